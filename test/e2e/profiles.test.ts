/**
 * Tool profiles through the official MCP SDK client over real HTTP: what each profile lists, the AgentRoom
 * protocol played by two agents (claim, conflict, broadcast, read), and the room and agent taken from the
 * X-Roomd-Room / X-Roomd-Agent headers or the key — where a bound key or an invite always wins.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CATALOG } from "../../src/mcp/catalog.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { connect, errorText, type RoomClient } from "../support/mcp-client.ts";
import { type RunningServer, startInProcess, TEAM_A } from "../support/server.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";

type Json = Record<string, any>;
const AGENTROOM = ["room_claim", "room_release", "room_state", "room_broadcast", "room_read"];

for (const make of E2E_STORES) {
  describe(`tool profiles (${make().name})`, () => {
    let store: RoomStore;
    let server: RunningServer;
    const http = () => httpClient(server.url);
    const clients: RoomClient[] = [];
    const open = async (...args: Parameters<typeof connect>) => {
      const client = await connect(...args);
      clients.push(client);
      return client;
    };
    /** A key of team A bound to the agent. */
    const boundKey = async (agent: string): Promise<string> =>
      (await http().post("/admin/keys", TEAM_A.secret, { boundAgentId: agent })).body.secret;

    beforeAll(async () => {
      store = await make().open();
      server = startInProcess(store);
    });
    afterAll(async () => {
      await Promise.all(clients.map((c) => c.close()));
      await server.stop();
      await store.close();
    });

    test("each profile lists its tools: agentroom exactly five, compact its own, full every protocol tool", async () => {
      const names = async (profile: "full" | "compact" | "agentroom") =>
        (await (await open(server.url, TEAM_A.secret, "json", { profile })).client.listTools()).tools.map(
          (t) => t.name,
        );
      expect(await names("agentroom")).toEqual(AGENTROOM);
      const compact = await names("compact");
      expect(compact).toEqual(CATALOG.listing("compact").map((t) => t.name));
      const full = await names("full");
      expect(full).toEqual(CATALOG.listing("full").map((t) => t.name));
      for (const name of [...AGENTROOM, ...compact]) expect(full).not.toContain(name);
      // AgentRoom tools publish neither the room nor the agent; compact ones publish them as optional.
      const { tools } = await (
        await open(server.url, TEAM_A.secret, "json", { profile: "agentroom" })
      ).client.listTools();
      for (const tool of tools) {
        expect(Object.keys(tool.inputSchema.properties ?? {})).not.toContain("roomId");
        expect(Object.keys(tool.inputSchema.properties ?? {})).not.toContain("agentId");
      }
      expect(tools.find((t) => t.name === "room_claim")?.inputSchema.required).toEqual(["path"]);
      const plan = CATALOG.listing("compact").find((t) => t.name === "summary");
      expect(plan?.inputSchema.required ?? []).not.toContain("roomId");
    });

    test("AgentRoom: two agents claim, conflict, broadcast and read, through the SDK client", async () => {
      const roomId = newRoomId();
      await http().post("/admin/rooms", TEAM_A.secret, { roomId });
      // alice by a bound key, bob by the X-Roomd-Agent header on the team key: the room from X-Roomd-Room.
      const alice = await open(server.url, await boundKey("alice"), "json", {
        profile: "agentroom",
        headers: { "X-Roomd-Room": roomId },
      });
      const bob = await open(server.url, TEAM_A.secret, "sse", {
        profile: "agentroom",
        headers: { "X-Roomd-Room": roomId, "X-Roomd-Agent": "bob" },
      });
      expect(await alice.call<Json>("room_state", {})).toEqual({ claims: [], agents: [], lastSeq: 0 });
      const claimed = await alice.call<Json>("room_claim", { path: "./src/auth.ts" });
      expect(claimed).toMatchObject({ claimed: true, path: "src/auth.ts" });
      expect(await bob.call<Json>("room_claim", { path: "src/*.ts" })).toEqual({
        claimed: false,
        path: "src/*.ts",
        heldBy: "alice",
        pattern: "src/auth.ts",
        expiresAt: claimed.expiresAt,
      });
      expect(await bob.call<Json>("room_claim", { path: "src/db.ts" })).toMatchObject({ claimed: true });
      await alice.call("room_broadcast", { message: "CLAIMING src/auth.ts", status: "working" });
      const state = await bob.call<Json>("room_state", {});
      expect(state.claims.map((c: Json) => [c.path, c.heldBy])).toEqual([
        ["src/auth.ts", "alice"],
        ["src/db.ts", "bob"],
      ]);
      expect(state.agents).toContainEqual({ agentId: "alice", status: "online", statusText: "working" });
      const read = await bob.call<Json>("room_read", {});
      expect(read.events.map((e: Json) => [e.type, e.from])).toEqual([
        ["files_claimed", "alice"],
        ["files_claimed", "bob"],
        ["broadcast", "alice"],
      ]);
      expect(read.events[2].payload).toEqual({ message: "CLAIMING src/auth.ts", status: "working" });
      expect(await bob.call<Json>("room_read", {})).toEqual({ events: [], remaining: 0 });
      const again = await bob.call<Json>("room_read", { since: 1 });
      expect(again.events.map((e: Json) => e.seq)).toEqual([2, 3]);
      expect(await alice.call<Json>("room_release", { path: "src/auth.ts" })).toEqual({
        released: true,
        path: "src/auth.ts",
      });
      expect(await bob.call<Json>("room_claim", { path: "src/*.ts" })).toMatchObject({ claimed: true });
      // Room and agent are not arguments here.
      expect(errorText(await alice.raw("room_state", { roomId }))).toBe(
        'Error: Invalid arguments: arguments: Unrecognized key "roomId" — no arguments (the room and agent come from the X-Roomd-Room and X-Roomd-Agent headers)',
      );
      expect(errorText(await alice.raw("room_claim", { path: "../etc/passwd" }))).toStartWith(
        'Error: Invalid arguments: path: Invalid path "../etc/passwd": has a ".." segment',
      );
    });

    test("the key always wins: a header naming another agent or room is refused like such an argument", async () => {
      const roomId = newRoomId();
      const other = newRoomId();
      await http().post("/admin/rooms", TEAM_A.secret, { roomId });
      const mallory = await open(server.url, await boundKey("alice"), "json", {
        profile: "agentroom",
        headers: { "X-Roomd-Room": roomId, "X-Roomd-Agent": "mallory" },
      });
      expect(errorText(await mallory.raw("room_claim", { path: "a.ts" }))).toBe(
        "Error: This key is bound to agent alice (the X-Roomd-Agent header names mallory)",
      );
      const invite = (await http().post(`/admin/rooms/${roomId}/invite`, TEAM_A.secret, {})).body.token;
      const elsewhere = await open(server.url, invite, "json", {
        profile: "agentroom",
        headers: { "X-Roomd-Room": other, "X-Roomd-Agent": "guest" },
      });
      expect(errorText(await elsewhere.raw("room_state", {}))).toStartWith(
        "Error: Room not found or access denied (",
      );
      // Without headers, the invite gives its room (and its bound agent).
      const guest = await open(server.url, invite, "json", { profile: "agentroom" });
      expect(await guest.call<Json>("room_claim", { path: "docs/x.md" })).toMatchObject({ claimed: true });
      const claims = await (await open(server.url, TEAM_A.secret)).call<Json[]>("list_claims", { roomId });
      expect(claims.map((c) => c.heldBy)).toEqual([expect.stringMatching(/^invite:/)]);
      // Nothing names the room: a clear refusal.
      const lost = await open(server.url, TEAM_A.secret, "json", { profile: "agentroom" });
      expect(errorText(await lost.raw("room_state", {}))).toBe(
        "Error: Invalid roomId: none given; send the X-Roomd-Room header, or use an invite for the room",
      );
    });

    test("compact: roomId and agentId from the headers or the key; arguments still work", async () => {
      const roomId = newRoomId();
      const c = await open(server.url, TEAM_A.secret, "json", {
        profile: "compact",
        headers: { "X-Roomd-Room": roomId, "X-Roomd-Agent": "carol" },
      });
      await c.call("add_task", { roomId, title: "first", agentId: "carol" });
      const [ready] = await c.call<Json[]>("plan", { ready: true });
      const task = await c.call<Json>("claim", { taskId: ready?.id });
      expect(task).toMatchObject({
        owner: "carol",
        status: "in_progress",
        lease_expires_at: expect.any(String),
      });
      expect((await c.call<Json>("files", { action: "claim", paths: ["src/**"] })).claimed).toHaveLength(1);
      expect(await c.call<Json[]>("files", { action: "check", paths: ["src/a.ts"] })).toEqual([
        { path: "src/a.ts", state: "mine", pattern: "src/**" },
      ]);
      const summary = await c.call<Json>("summary", {});
      expect(summary.myTasks.map((t: Json) => t.id)).toEqual([task.id]);
      const done = await c.call<Json>("update", { taskId: task.id, status: "done", note: "shipped" });
      expect(done).toMatchObject({ status: "done", owner: "carol" });
      // An explicit argument beats the header.
      const dave = await c.call<Json>("post", { agentId: "dave", type: "hello" });
      expect(dave.from).toBe("dave");
      // Without headers or a bound key, compact says what is missing.
      const plain = await open(server.url, TEAM_A.secret, "json", { profile: "compact" });
      expect(errorText(await plain.raw("summary", {}))).toBe(
        "Error: Invalid roomId: required; pass roomId, or send the X-Roomd-Room header (an invite gives its room)",
      );
      expect(errorText(await plain.raw("summary", { roomId }))).toBe(
        "Error: Invalid arguments: agentId: required; pass agentId, or send the X-Roomd-Agent header (a key bound to an agent gives it)",
      );
      // A bound key gives the agent.
      const bound = await open(server.url, await boundKey("erin"), "json", {
        profile: "compact",
        headers: { "X-Roomd-Room": roomId },
      });
      expect((await bound.call<Json>("summary", {})).agentId).toBe("erin");
    });
  });
}

test("an unknown profile is refused before any work", async () => {
  const make = E2E_STORES[0] as (typeof E2E_STORES)[number];
  const store = await make().open();
  const server = startInProcess(store);
  try {
    const res = await fetch(`${server.url}/mcp?profile=tiny`, {
      method: "POST",
      headers: { Authorization: `Bearer ${TEAM_A.secret}`, "Content-Type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error.message).toBe(
      "Unknown profile: use ?profile=full | compact | agentroom",
    );
  } finally {
    await server.stop();
    await store.close();
  }
});
