/**
 * Input that must never hurt a room (docs/security.md#input-and-store-what-no-client-can-do-to-a-room), on every
 * store through real HTTP: lone surrogates anywhere in the arguments and control characters in one-line fields are
 * refused naming the field, payloads nested too deeply or with too many values are refused before anything is stored,
 * malformed JSON-RPC params get a readable -32602 — and the room keeps working afterwards (the earlier failure: one
 * lone surrogate in depends_on broke every later read of the room on Redis).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RoomStore } from "../../src/store/types.ts";
import { snapshot } from "../support/catalog-check.ts";
import { httpClient } from "../support/http.ts";
import { type RunningServer, startInProcess, TEAM_A, TEAM_B } from "../support/server.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";

for (const make of E2E_STORES) {
  describe(`input safety on ${make().name}`, () => {
    let store: RoomStore;
    let server: RunningServer;
    let http: ReturnType<typeof httpClient>;
    const env = () => ({ http, teamKey: TEAM_A.secret, otherTeamKey: TEAM_B.secret });
    beforeAll(async () => {
      store = await make().open();
      server = startInProcess(store);
      http = httpClient(server.url);
    });
    afterAll(async () => {
      await server.stop();
      await store.close();
    });

    test("a lone surrogate anywhere is refused naming the field, and the room keeps working", async () => {
      const roomId = newRoomId();
      const task = JSON.parse((await http.tool(TEAM_A.secret, "add_task", { roomId, title: "t" })).text);
      const before = await snapshot(env(), roomId);
      const cases: [string, Record<string, unknown>, string][] = [
        ["add_task", { title: "ok", depends_on: [task.id, "\ud800"] }, "depends_on.1"],
        ["add_task", { title: "ok", description: "a\udc00b" }, "description"],
        [
          "post_event",
          { type: "x", from: "a", payload: { nested: { list: ["ok", "\ud83d"] } } },
          "payload.nested.list.1",
        ],
        ["post_event", { type: "x", from: "a", payload: { "bad\ud800key": 1 } }, "payload (a key)"],
        ["set_shared_var", { key: "k", value: "\udfff", agentId: "a" }, "value"],
        ["heartbeat", { agentId: "a", statusText: "\ud800" }, "statusText"],
      ];
      for (const [tool, args, field] of cases) {
        const answer = await http.tool(TEAM_A.secret, tool, { roomId, ...args });
        expect(answer.text, tool).toStartWith(`Error: Invalid arguments: ${field}: contains invalid Unicode`);
      }
      expect(await snapshot(env(), roomId)).toBe(before);
      const summary = await http.tool(TEAM_A.secret, "get_my_summary", { roomId, agentId: "a" });
      expect(summary.isError).toBe(false);
      expect((await http.get(`/room/${roomId}`)).status).toBe(200);
    });

    test("control characters are refused in one-line fields, kept in free text, stripped from status", async () => {
      const roomId = newRoomId();
      for (const [tool, args, field] of [
        ["add_task", { title: "a\u0007b" }, "title"],
        ["post_event", { type: "x\u001b[31m", from: "a" }, "type"],
        ["set_shared_var", { key: "k\u0000", value: "v", agentId: "a" }, "key"],
        ["acquire_lock", { resource: "r\u0008", agentId: "a" }, "resource"],
      ] as const) {
        const answer = await http.tool(TEAM_A.secret, tool, { roomId, ...args });
        expect(answer.text, tool).toBe(
          `Error: Invalid arguments: ${field}: must not contain control characters`,
        );
      }
      const kept = await http.tool(TEAM_A.secret, "add_task", {
        roomId,
        title: "ok",
        description: "line 1\n\tline 2\u0007",
      });
      expect(JSON.parse(kept.text).description).toBe("line 1\n\tline 2\u0007");
      const beat = await http.tool(TEAM_A.secret, "heartbeat", {
        roomId,
        agentId: "a",
        statusText: "tab\there\u001b[0m",
      });
      expect(JSON.parse(beat.text).presence.statusText).toBe("tabhere[0m");
    });

    test("a payload 32,000 levels deep or with 10,001 values is refused and stores nothing", async () => {
      const roomId = newRoomId();
      await http.tool(TEAM_A.secret, "add_task", { roomId, title: "t" });
      const before = await snapshot(env(), roomId);
      let deep = '{"text":"x"}';
      for (let i = 0; i < 32_000; i++) deep = `{"a":${deep}}`;
      const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"post_event","arguments":{"roomId":"${roomId}","type":"x","from":"a","payload":${deep}}}}`;
      const res = await fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${TEAM_A.secret}`,
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
        },
        body,
      });
      const answer = (await res.json()) as { result?: { content: { text: string }[] } };
      expect(answer.result?.content[0]?.text).toBe(
        "Error: Invalid arguments: payload: Payload nested too deeply (max 32 levels)",
      );
      const wide = await http.tool(TEAM_A.secret, "post_event", {
        roomId,
        type: "x",
        from: "a",
        payload: { values: Array.from({ length: 10_001 }, (_, i) => i) },
      });
      expect(wide.text).toBe("Error: Invalid arguments: payload: Payload too large (max 10000 values)");
      expect(await snapshot(env(), roomId)).toBe(before);
      // 32 levels and 10,000 values are still fine.
      const atLimit = { a: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]] };
      const accepted = await http.tool(TEAM_A.secret, "post_event", {
        roomId,
        type: "x",
        from: "a",
        payload: atLimit,
      });
      expect(accepted.isError).toBe(false);
    });

    test("malformed JSON-RPC params get a readable -32602, never a validation dump", async () => {
      for (const [params, text] of [
        [{ name: 5 }, "Invalid params: params.name: must be the tool's name, a string"],
        [
          { name: "read_plan", arguments: "x" },
          "Invalid params: params.arguments: must be an object of named arguments",
        ],
        [undefined, "Invalid params: params: required (object)"],
      ] as const) {
        const res = await fetch(`${server.url}/mcp`, {
          method: "POST",
          headers: {
            Authorization: `Bearer ${TEAM_A.secret}`,
            "Content-Type": "application/json",
            Accept: "application/json, text/event-stream",
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 7,
            method: "tools/call",
            ...(params ? { params } : {}),
          }),
        });
        expect(res.status).toBe(400);
        expect(await res.json()).toEqual({ jsonrpc: "2.0", id: 7, error: { code: -32602, message: text } });
      }
    });
  });
}
