/**
 * The 2026-07-28 era on /mcp, as raw HTTP (the new era's bad input is what no SDK client sends): _meta and header
 * checks, unknown versions, removed methods, resources and their access rules, completion, prompts, and
 * subscriptions/listen refused for another team's room and bounded per team like every stream. In process, SQLite.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RoomStore } from "../../src/store/types.ts";
import { type InProcessServer, startInProcess, TEAM_A, TEAM_B } from "../support/server.ts";
import { newRoomId, openWith } from "../support/stores.ts";

const V = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": V,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
};

let store: RoomStore;
let server: InProcessServer;
const roomId = newRoomId();

beforeAll(async () => {
  store = await openWith({
    store: "sqlite",
    sqlitePath: join(mkdtempSync(join(tmpdir(), "roomd-2026-")), "r.sqlite"),
  } as never);
  server = startInProcess(store, undefined, { STREAMS_PER_TEAM: "5" });
  await modern("tools/call", { name: "add_task", arguments: { roomId, title: "first", agentId: "alice" } });
});

afterAll(async () => {
  await server?.stop();
  await store?.close();
});

interface Sent {
  status: number;
  body: {
    id?: unknown;
    /** {} when the answer carried none. */
    result: Record<string, unknown>;
    error?: { code: number; message: string; data?: Record<string, unknown> };
  };
  headers: Headers;
}

/** A modern request with its headers derived from the body, unless `headers` overrides them. */
async function modern(
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string | null> = {},
  secret = TEAM_A.secret,
): Promise<Sent> {
  const name =
    typeof params.name === "string" ? params.name : typeof params.uri === "string" ? params.uri : undefined;
  const base: Record<string, string | null> = {
    Authorization: `Bearer ${secret}`,
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": V,
    "Mcp-Method": method,
    ...(name ? { "Mcp-Name": name } : {}),
    ...headers,
  };
  const sent = Object.fromEntries(Object.entries(base).filter(([, v]) => v !== null)) as Record<
    string,
    string
  >;
  const res = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: sent,
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params: { _meta: META, ...params } }),
  });
  const parsed = (await res.json()) as Sent["body"];
  return { status: res.status, body: { ...parsed, result: parsed.result ?? {} }, headers: res.headers };
}

describe("the 2026-07-28 envelope", () => {
  test("server/discover: versions of both eras, capabilities, identity, caching hints", async () => {
    const { status, body } = await modern("server/discover");
    expect(status).toBe(200);
    expect(body.result.supportedVersions).toEqual([V, "2025-11-25", "2025-06-18", "2025-03-26"]);
    expect(body.result.capabilities).toMatchObject({
      tools: {},
      resources: { subscribe: true },
      prompts: {},
    });
    expect(body.result.resultType).toBe("complete");
    expect(
      (body.result._meta as Record<string, { name: string }>)["io.modelcontextprotocol/serverInfo"]?.name,
    ).toBe("roomd");
    expect(body.result).toMatchObject({ ttlMs: 300_000, cacheScope: "public" });
  });

  test("missing _meta or its required keys: 400, -32602, the request's id", async () => {
    const res = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${TEAM_A.secret}`,
        "Content-Type": "application/json",
        "MCP-Protocol-Version": V,
        "Mcp-Method": "tools/list",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: "x1", method: "tools/list", params: {} }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ id: "x1", error: { code: -32602 } });
    const partial = await modern("tools/list", { _meta: { "io.modelcontextprotocol/protocolVersion": V } });
    expect(partial.status).toBe(400);
    expect(partial.body.error?.message).toContain("clientCapabilities");
  });

  test("headers that do not mirror the body: 400, -32020", async () => {
    const mismatches: Record<string, string | null>[] = [
      { "Mcp-Method": "tools/list" }, // the body says tools/call
      { "Mcp-Name": "get_task" }, // the body names read_plan
      { "Mcp-Name": null }, // missing
      { "MCP-Protocol-Version": "2025-11-25" }, // differs from _meta
    ];
    for (const headers of mismatches) {
      const sent = await modern("tools/call", { name: "read_plan", arguments: { roomId } }, headers);
      expect([sent.status, sent.body.error?.code, sent.body.id]).toEqual([400, -32020, 7]);
    }
    // A Base64 sentinel is decoded before it is compared.
    const encoded = `=?base64?${btoa("read_plan")}?=`;
    expect(
      (await modern("tools/call", { name: "read_plan", arguments: { roomId } }, { "Mcp-Name": encoded }))
        .status,
    ).toBe(200);
  });

  test("an unknown version: 400, -32022 listing the supported versions and echoing the requested", async () => {
    const sent = await modern(
      "tools/list",
      { _meta: { ...META, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
      { "MCP-Protocol-Version": "2099-01-01" },
    );
    expect(sent.status).toBe(400);
    expect(sent.body.error).toMatchObject({
      code: -32022,
      data: { requested: "2099-01-01", supported: [V, "2025-11-25", "2025-06-18", "2025-03-26"] },
    });
  });

  test("removed and unknown methods: 404, -32601", async () => {
    for (const method of [
      "initialize",
      "ping",
      "logging/setLevel",
      "resources/subscribe",
      "resources/unsubscribe",
      "no/such",
    ]) {
      const sent = await modern(method, { uri: "roomd://rooms/x/plan" });
      expect([method, sent.status, sent.body.error?.code]).toEqual([method, 404, -32601]);
    }
  });

  test("tools: deterministic order, resultType on calls, the same bound-key rules as the 2025 era", async () => {
    const a = await modern("tools/list");
    const b = await modern("tools/list");
    const names = (r: Sent) => (r.body.result.tools as { name: string }[]).map((t) => t.name);
    expect(names(a)).toEqual(names(b));
    expect(a.body.result).toMatchObject({ ttlMs: 300_000, cacheScope: "public", resultType: "complete" });
    // A read-only key's list holds only read tools, and depends on the key: private.
    const readOnly = await fetch(`${server.url}/admin/keys`, {
      method: "POST",
      headers: { Authorization: `Bearer ${TEAM_A.secret}`, "Content-Type": "application/json" },
      body: JSON.stringify({ readOnly: true }),
    });
    const reader = (await readOnly.json()) as { secret: string };
    const listed = await modern("tools/list", {}, {}, reader.secret);
    expect(listed.body.result).toMatchObject({ cacheScope: "private", resultType: "complete" });
    expect(names(listed)).toContain("read_plan");
    expect(names(listed)).not.toContain("add_task");
    const key = await fetch(`${server.url}/admin/keys`, {
      method: "POST",
      headers: { Authorization: `Bearer ${TEAM_A.secret}`, "Content-Type": "application/json" },
      body: JSON.stringify({ boundAgentId: "bound-bo" }),
    });
    const { secret } = (await key.json()) as { secret: string };
    const refused = await modern(
      "tools/call",
      { name: "heartbeat", arguments: { roomId, agentId: "someone-else" } },
      {},
      secret,
    );
    expect(refused.body.result).toMatchObject({ isError: true, resultType: "complete" });
    expect(JSON.stringify(refused.body.result.content)).toContain("bound to agent bound-bo");
    const filled = await modern("tools/call", { name: "heartbeat", arguments: { roomId } }, {}, secret);
    expect(JSON.parse((filled.body.result.content as { text: string }[])[0]?.text ?? "{}").agentId).toBe(
      "bound-bo",
    );
  });
});

describe("rooms as resources", () => {
  test("templates, a read, and another team's room answering exactly like a missing one", async () => {
    const templates = await modern("resources/templates/list");
    expect(
      (templates.body.result.resourceTemplates as { uriTemplate: string }[]).map((t) => t.uriTemplate),
    ).toContain("roomd://rooms/{roomId}/plan");
    const plan = await modern("resources/read", { uri: `roomd://rooms/${roomId}/plan` });
    const text = (plan.body.result.contents as { text: string }[])[0]?.text ?? "";
    expect(JSON.parse(text).tasks[0].title).toBe("first");
    expect(plan.body.result).toMatchObject({ ttlMs: 0, cacheScope: "private" });
    const theirs = await modern("resources/read", { uri: `roomd://rooms/${roomId}/plan` }, {}, TEAM_B.secret);
    const missing = await modern(
      "resources/read",
      { uri: `roomd://rooms/${newRoomId()}/tasks/task-9` },
      {},
      TEAM_B.secret,
    );
    expect(theirs.body.error?.code).toBe(-32602);
    expect(theirs.body.error?.data).toEqual({ uri: `roomd://rooms/${roomId}/plan` });
    expect(JSON.stringify(theirs.body.error)).not.toContain("first");
    expect(missing.body.error?.code).toBe(-32602);
  });

  test("completion completes room and task ids from what the key may read", async () => {
    const rooms = await modern("completion/complete", {
      ref: { type: "ref/resource", uri: "roomd://rooms/{roomId}/plan" },
      argument: { name: "roomId", value: roomId.slice(0, 4) },
    });
    expect((rooms.body.result.completion as { values: string[] }).values).toContain(roomId);
    const tasks = await modern("completion/complete", {
      ref: { type: "ref/resource", uri: "roomd://rooms/{roomId}/tasks/{taskId}" },
      argument: { name: "taskId", value: "task-" },
      context: { arguments: { roomId } },
    });
    expect((tasks.body.result.completion as { values: string[] }).values).toEqual(["task-1"]);
    const theirs = await modern(
      "completion/complete",
      {
        ref: { type: "ref/resource", uri: "roomd://rooms/{roomId}/plan" },
        argument: { name: "roomId", value: "" },
      },
      {},
      TEAM_B.secret,
    );
    expect((theirs.body.result.completion as { values: string[] }).values).not.toContain(roomId);
  });

  test("join_room: the instructions filled in and the agent's summary", async () => {
    const sent = await modern("prompts/get", {
      name: "join_room",
      arguments: { room: roomId, agent: "alice" },
    });
    const text = JSON.stringify(sent.body.result.messages);
    expect(text).toContain(`Room: \`${roomId}\``);
    expect(text).toContain("get_my_summary");
    expect(text).toContain("first");
  });
});

describe("subscriptions/listen", () => {
  test("a subscription to another team's room is refused with the read's answer; nothing is streamed", async () => {
    const sent = await modern(
      "subscriptions/listen",
      { notifications: { resourceSubscriptions: [`roomd://rooms/${roomId}/plan`] } },
      {},
      TEAM_B.secret,
    );
    expect(sent.status).toBe(200);
    expect(sent.body.error).toMatchObject({ code: -32602, data: { uri: `roomd://rooms/${roomId}/plan` } });
    expect(sent.headers.get("content-type")).toContain("application/json");
  });

  test("listens of one team are bounded like streams (STREAMS_PER_TEAM), and a closed one frees its slot", async () => {
    // The answers are kept: one collected unread would close its connection, and free its slot.
    const open: { controller: AbortController; res: Response }[] = [];
    const statuses: number[] = [];
    for (let i = 0; i < 1000; i++) {
      const controller = new AbortController();
      const res = await fetch(`${server.url}/mcp`, {
        method: "POST",
        signal: controller.signal,
        headers: {
          Authorization: `Bearer ${TEAM_A.secret}`,
          "Content-Type": "application/json",
          Accept: "text/event-stream",
          "MCP-Protocol-Version": V,
          "Mcp-Method": "subscriptions/listen",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: i,
          method: "subscriptions/listen",
          params: { _meta: META, notifications: { resourceSubscriptions: [`roomd://rooms/${roomId}/plan`] } },
        }),
      });
      statuses.push(res.status);
      if (res.status === 200) open.push({ controller, res });
      else await res.body?.cancel();
      if (statuses.filter((s) => s === 429).length >= 995) break;
    }
    expect(statuses.filter((s) => s === 200).length).toBe(5);
    expect(statuses.filter((s) => s === 429).length).toBe(995);
    for (const { controller } of open) controller.abort();
    await Bun.sleep(100);
    const again = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${TEAM_A.secret}`,
        "Content-Type": "application/json",
        Accept: "text/event-stream",
        "MCP-Protocol-Version": V,
        "Mcp-Method": "subscriptions/listen",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "again",
        method: "subscriptions/listen",
        params: { _meta: META, notifications: {} },
      }),
    });
    expect(again.status).toBe(200);
    const reader = (again.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain("notifications/subscriptions/acknowledged");
    expect(first).toContain('"io.modelcontextprotocol/subscriptionId":"again"');
    expect(again.headers.get("x-accel-buffering")).toBe("no");
    await reader.cancel();
  });
});
