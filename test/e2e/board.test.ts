/**
 * The room board for chat clients over real HTTP, in both eras of /mcp (docs/people.md, "The room board in chat
 * clients"): the tools' MCP Apps metadata in tools/list, the `ui://` resource in resources/list and
 * resources/read, the document itself (self-contained: no external URL, no eval), show_room_board's text and
 * snapshot, the poll, and the people's acts — refused to agents' keys and to roles that may not, whoever lists them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BOARD_URI } from "../../src/mcp/board/ui.ts";
import { BOARD_LIMITS } from "../../src/protocol/board.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { type InProcessServer, OPERATOR, startInProcess } from "../support/server.ts";
import { newRoomId, sqliteE2e } from "../support/stores.ts";

type Json = Record<string, any>;
const MODERN = "2026-07-28";
const APP_TOOLS = ["board_changes", "message_agent", "decide_approval", "hand_over"];

let store: RoomStore;
let server: InProcessServer;
let http: ReturnType<typeof httpClient>;
/** pat: a person of the team; vic: another person; agents: the team's agent key. */
const keys = { pat: "", vic: "", agents: "" };

beforeAll(async () => {
  store = await sqliteE2e().open();
  server = startInProcess(store, undefined, { OPERATOR_KEYS: `${OPERATOR.teamId}:${OPERATOR.secret}` });
  http = httpClient(server.url);
  const teamId = `bd-${crypto.randomUUID().slice(0, 8)}`;
  const made = await http.post("/admin/keys/provision", OPERATOR.secret, {
    teamId,
    kind: "human",
    humanId: "pat",
  });
  keys.pat = made.body.secret;
  keys.vic = (await http.post("/admin/keys", keys.pat, { kind: "human", humanId: "vic" })).body.secret;
  keys.agents = (await http.post("/admin/keys", keys.pat, { note: "agents" })).body.secret;
});
afterAll(async () => {
  await server?.stop();
  await store?.close();
});

/** One JSON-RPC request in either era; its result (or error). */
async function rpc(
  era: "legacy" | "modern",
  method: string,
  params: Json = {},
  key = keys.pat,
  path = "/mcp",
) {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "board-test", version: "1" },
  };
  const name = typeof params.name === "string" ? params.name : params.uri;
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${key}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...(era === "modern"
        ? { "MCP-Protocol-Version": MODERN, "Mcp-Method": method, ...(name ? { "Mcp-Name": name } : {}) }
        : { "MCP-Protocol-Version": "2025-11-25" }),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method,
      params: era === "modern" ? { _meta: meta, ...params } : params,
    }),
  });
  return (await res.json()) as { result?: Json; error?: { code: number; message: string } };
}

const call = async (name: string, args: Json, key = keys.pat) =>
  (await rpc("legacy", "tools/call", { name, arguments: args }, key)).result as Json;
const errorText = (result: Json) => (result.isError ? result.content[0].text : null);

for (const era of ["legacy", "modern"] as const) {
  describe(`MCP Apps metadata, ${era} era`, () => {
    test("tools/list: show_room_board points at the board; the board's own tools are for the app only", async () => {
      const { tools } = (await rpc(era, "tools/list")).result as { tools: Json[] };
      const byName = new Map(tools.map((t) => [t.name, t]));
      expect(byName.get("show_room_board")?._meta).toEqual({
        ui: { resourceUri: BOARD_URI },
        "ui/resourceUri": BOARD_URI,
      });
      for (const name of APP_TOOLS) {
        expect(byName.get(name)?._meta).toEqual({
          ui: { resourceUri: BOARD_URI, visibility: ["app"] },
          "ui/resourceUri": BOARD_URI,
        });
      }
      // Every other tool is a plain tool; the compact profile carries none of the board's.
      expect(tools.filter((t) => t._meta !== undefined).map((t) => t.name)).toEqual([
        "show_room_board",
        ...APP_TOOLS,
      ]);
      const compact = (await rpc(era, "tools/list", {}, keys.pat, "/mcp?profile=compact")).result as {
        tools: Json[];
      };
      expect(compact.tools.filter((t) => t._meta !== undefined)).toEqual([]);
    });

    test("resources/list holds the board; resources/read answers one self-contained document", async () => {
      const listed = (await rpc(era, "resources/list")).result as { resources: Json[] };
      expect(listed.resources[0]).toMatchObject({
        uri: BOARD_URI,
        mimeType: "text/html;profile=mcp-app",
        _meta: { ui: { prefersBorder: true } },
      });
      const read = (await rpc(era, "resources/read", { uri: BOARD_URI })).result as { contents: Json[] };
      expect(read.contents).toHaveLength(1);
      const [content] = read.contents as [Json];
      expect(content).toMatchObject({ uri: BOARD_URI, mimeType: "text/html;profile=mcp-app" });
      const html = content.text as string;
      expect(html.startsWith("<!doctype html>")).toBe(true);
      // Nothing is loaded from anywhere: no URL with a scheme or of another host, no src/href, no @import.
      expect(html.match(/[a-z][a-z0-9+.-]*:\/\/|\/\/[a-z0-9-]+\.[a-z]/gi)).toBeNull();
      expect(
        html.match(/\s(src|href|action|srcset)\s*=|<link\b|@import|url\(\s*["']?(?!data:)/gi),
      ).toBeNull();
      // No code from strings.
      expect(html.match(/\beval\s*\(|new\s+Function\s*\(|setTimeout\(\s*["'`]|import\s*\(/g)).toBeNull();
      // One inline script and one inline style, the script's text unbroken by the document.
      expect(html.match(/<script\b/g)).toHaveLength(1);
      expect(html.match(/<\/script/g)).toHaveLength(1);
      expect(html.match(/<style\b/g)).toHaveLength(1);
    });
  });
}

describe("show_room_board and the poll", () => {
  test("a readable text and the board as structuredContent, with who is looking", async () => {
    const roomId = newRoomId();
    await call("add_task", { roomId, title: "Design the API", agentId: "planner" }, keys.agents);
    const second = await call(
      "add_task",
      { roomId, title: "Build the cart", agentId: "planner" },
      keys.agents,
    );
    const secondId = JSON.parse(second.content[0].text).id;
    await call("claim_task", { roomId, taskId: secondId, agentId: "backend" }, keys.agents);
    await call("request_approval", { roomId, agentId: "backend", action: "deploy api" }, keys.agents);
    const result = await call("show_room_board", { roomId });
    const board = result.structuredContent;
    expect(board).toMatchObject({
      roomId,
      viewer: { person: "human:pat", role: "approver", operator: false },
      driver: { holder: null },
      approvals: [{ action: "deploy api", status: "pending" }],
    });
    expect(board.tasks.map((t: Json) => [t.title, t.status, t.owner])).toEqual([
      ["Design the API", "pending", null],
      ["Build the cart", "in_progress", "backend"],
    ]);
    expect(board.tasks[1].lease_expires_at).toEqual(expect.any(String));
    expect(board.events[0].seq).toBe(board.seq);
    const text = result.content[0].text as string;
    expect(text).toContain(`Room ${roomId} at event #${board.seq}: 2 tasks, 0 done; nobody drives.`);
    expect(text).toContain(`${secondId} “Build the cart” — in progress · backend · lease until`);
    expect(text).toContain("“deploy api” asked by backend");
    // An agent's key reads the board too, as nobody in particular.
    const seen = (await call("show_room_board", { roomId }, keys.agents)).structuredContent;
    expect(seen.viewer).toEqual({ person: null, role: null, operator: false });
  });

  test(`capped at ${BOARD_LIMITS.maxBytes} bytes, saying what it left out`, async () => {
    const roomId = newRoomId();
    const long = "x".repeat(4000);
    for (let i = 0; i < 60; i++)
      await call(
        "add_task",
        { roomId, title: `Task ${i} ${"t".repeat(180)}`, description: long, agentId: "p" },
        keys.agents,
      );
    const result = await call("show_room_board", { roomId });
    const size = new TextEncoder().encode(JSON.stringify(result.structuredContent)).length;
    expect(size).toBeLessThanOrEqual(BOARD_LIMITS.maxBytes);
    expect(result.structuredContent.omitted.descriptions).toBe(60);
    expect(result.content[0].text).toContain("Left out to keep the board small:");
  });

  test("board_changes: nothing after the head; a write wakes a waiting poll with the new board", async () => {
    const roomId = newRoomId();
    await call("add_task", { roomId, title: "one", agentId: "p" }, keys.agents);
    const { seq } = (await call("show_room_board", { roomId })).structuredContent;
    expect(
      (await call("board_changes", { roomId, afterSeq: seq, waitSeconds: 0 })).structuredContent,
    ).toEqual({
      changed: false,
      seq,
    });
    const waiting = call("board_changes", { roomId, afterSeq: seq, waitSeconds: 10 });
    await Bun.sleep(200);
    await call("add_task", { roomId, title: "two", agentId: "p" }, keys.agents);
    const woken = (await waiting).structuredContent;
    expect(woken.changed).toBe(true);
    expect(woken.seq).toBeGreaterThan(seq);
    expect(woken.board.tasks.map((t: Json) => t.title)).toEqual(["one", "two"]);
  });
});

test("board_changes: a change that appends no event, made between two polls, is found by the next (afterState)", async () => {
  const roomId = newRoomId();
  await call("add_task", { roomId, title: "one", agentId: "p" }, keys.agents);
  const before = (await call("show_room_board", { roomId })).structuredContent;
  const look = { roomId, afterSeq: before.seq, afterState: before.state, waitSeconds: 0 };
  expect((await call("board_changes", look)).structuredContent.changed).toBe(false);
  await call("heartbeat", { roomId, agentId: "newcomer", statusText: "just arrived" }, keys.agents);
  const after = await call("board_changes", look);
  expect(after.structuredContent).toMatchObject({ changed: true, seq: before.seq });
  expect(after.structuredContent.board.presence.map((p: Json) => p.agentId)).toContain("newcomer");
  expect(after.structuredContent.board.state).not.toBe(before.state);
  expect(errorText(await call("board_changes", { ...look, afterState: "not-a-state" }))).toMatch(
    /^Error: Invalid arguments: afterState/,
  );
});

describe("the people's acts from the board", () => {
  test("an agent's key is refused every one of them, and nothing changes", async () => {
    const roomId = newRoomId();
    const asked = await call(
      "request_approval",
      { roomId, agentId: "backend", action: "deploy" },
      keys.agents,
    );
    const approvalId = JSON.parse(asked.content[0].text).id;
    const refusals = [
      ["decide_approval", { roomId, approvalId, decision: "approve" }, "decide approvals"],
      ["message_agent", { roomId, to: "backend", text: "hi" }, "post messages"],
      ["hand_over", { roomId, to: "any", note: "yours" }, "hand work over"],
    ] as const;
    for (const [name, args, what] of refusals)
      expect(errorText(await call(name, args, keys.agents))).toBe(`Error: Only people can ${what}`);
    const read = await call("get_approval", { roomId, approvalId }, keys.agents);
    expect(JSON.parse(read.content[0].text).status).toBe("pending");
  });

  test("a person decides, messages and hands over as themselves, within their role", async () => {
    const roomId = newRoomId();
    const asked = await call(
      "request_approval",
      { roomId, agentId: "backend", action: "deploy" },
      keys.agents,
    );
    const approvalId = JSON.parse(asked.content[0].text).id;
    const task = JSON.parse(
      (await call("add_task", { roomId, title: "t", agentId: "p" }, keys.agents)).content[0].text,
    );
    // vic is a viewer here (pat names themself an approver first): every act is refused, naming the role needed.
    expect((await http.put(`/admin/rooms/${roomId}/roles/pat`, keys.pat, { role: "approver" })).status).toBe(
      200,
    );
    expect((await http.put(`/admin/rooms/${roomId}/roles/vic`, keys.pat, { role: "viewer" })).status).toBe(
      200,
    );
    expect(
      errorText(await call("decide_approval", { roomId, approvalId, decision: "reject" }, keys.vic)),
    ).toBe(`Error: Deciding approvals in room ${roomId} needs the approver role; you are a viewer`);
    expect(errorText(await call("message_agent", { roomId, to: "backend", text: "hi" }, keys.vic))).toBe(
      `Error: Posting messages in room ${roomId} needs the member role; you are a viewer`,
    );
    const decided = await call("decide_approval", { roomId, approvalId, decision: "approve", note: "ok" });
    expect(decided.structuredContent).toMatchObject({
      status: "approved",
      decidedBy: "human:pat",
      note: "ok",
    });
    const sent = await call("message_agent", { roomId, to: "backend", text: "add tests" });
    expect(sent.structuredContent).toMatchObject({ type: "human_message", from: "human:pat", to: "backend" });
    const offered = await call("hand_over", { roomId, to: "any", taskIds: [task.id], note: "yours" });
    expect(offered.structuredContent).toMatchObject({
      from: "human:pat",
      offeredBy: "human:pat",
      status: "offered",
    });
    const cancelled = await call("hand_over", { roomId, cancel: offered.structuredContent.id });
    expect(cancelled.structuredContent).toMatchObject({ status: "cancelled", closedBy: "human:pat" });
  });
});
