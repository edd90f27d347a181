/**
 * Bad input gets a clear error and changes nothing: every tool with missing, wrong-typed, oversized and unknown
 * arguments; unknown ids; malformed JSON-RPC; oversized bodies; wrong keys.
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { UNAUTHORIZED } from "../../src/http/auth.ts";
import { CATALOG } from "../../src/mcp/catalog.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { connect, errorText, type RoomClient, roomSnapshot } from "../support/mcp-client.ts";
import { type RunningServer, startInProcess, TEAM_A } from "../support/server.ts";
import { newRoomId, sqliteE2e } from "../support/stores.ts";

type Json = Record<string, any>;

let store: RoomStore;
let server: RunningServer;
let c: RoomClient;
const roomId = newRoomId();

const snapshot = () => roomSnapshot(c, roomId);

beforeAll(async () => {
  store = await sqliteE2e().open();
  server = startInProcess(store);
  c = await connect(server.url, TEAM_A.secret);
  await c.call("add_task", { roomId, title: "t" });
  await c.call("heartbeat", { roomId, agentId: "a" });
});

afterAll(async () => {
  await c.close();
  await server.stop();
  await store.close();
});

describe("bad arguments beyond the catalog-wide cases (test/e2e/catalog.test.ts)", () => {
  test("payloads over 64 KB are refused by every tool that takes one", async () => {
    const big = { text: "y".repeat(66_000) };
    const takers = CATALOG.tools.filter((t) => "payload" in t.input.shape);
    expect(takers.map((t) => t.name)).toEqual([
      "write_context",
      "update_context",
      "post_event",
      "reply_to_event",
      "context_write",
      "post",
    ]);
    const room = { call: (name: string, a: Json) => c.call<any>(name, { roomId, ...a }) };
    const examples = [];
    for (const tool of takers) examples.push({ tool, args: await tool.example(room) });
    const before = await snapshot();
    for (const { tool, args } of examples) {
      const result = await c.raw(tool.name, { roomId, ...args, payload: big });
      expect(errorText(result), tool.name).toMatch(
        /^Error: Invalid arguments: payload: Payload too large: \d+ bytes \(max 65536\)/,
      );
    }
    expect(await snapshot()).toBe(before);
  });

  test("unknown ids name what was not found", async () => {
    const before = await snapshot();
    expect(errorText(await c.raw("update_task", { roomId, taskId: "task-9", status: "done" }))).toBe(
      "Error: Task not found: task-9",
    );
    expect(errorText(await c.raw("read_context", { roomId, id: "ctx-9" }))).toBe(
      "Error: Context entry not found: ctx-9",
    );
    expect(errorText(await c.raw("update_context", { roomId, id: "ctx-9", author: "a", summary: "s" }))).toBe(
      "Error: Context entry not found: ctx-9",
    );
    expect(
      errorText(await c.raw("reply_to_event", { roomId, replyToId: "evt-99", type: "x", from: "a" })),
    ).toBe("Error: Event not found: evt-99");
    expect(errorText(await c.raw("get_event_reads", { roomId, eventId: "nope" }))).toBe(
      "Error: Event not found: nope",
    );
    expect(await snapshot()).toBe(before);
  });

  test("invalid room ids and agent ids", async () => {
    for (const bad of ["A", "x", "ab__c", "-ab", "a b", "ü-room", "a".repeat(65)]) {
      expect(errorText(await c.raw("read_plan", { roomId: bad }))).toStartWith("Error: Invalid roomId: ");
    }
    expect(errorText(await c.raw("heartbeat", { roomId, agentId: "bad agent" }))).toStartWith(
      "Error: Invalid arguments: agentId: ",
    );
    expect(
      errorText(await c.raw("post_event", { roomId, type: "x", from: "a", to: "not valid" })),
    ).toStartWith("Error: Invalid arguments: to: ");
  });

  test("an unknown tool is refused", async () => {
    const result = await c.raw("drop_everything", { roomId });
    expect(result.isError).toBe(true);
    expect(errorText(result)).toBe(
      "Error: Unknown tool: drop_everything; call tools/list for the tools roomd offers",
    );
  });
});

describe("malformed requests never get a 500", () => {
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${TEAM_A.secret}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        ...headers,
      },
      body,
    });

  test("malformed JSON → JSON-RPC parse error", async () => {
    const res = await post("{not json");
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error.code).toBe(-32700);
  });

  test("valid JSON that is not JSON-RPC → invalid request", async () => {
    for (const body of ['{"hello":1}', "[]", "42", '{"jsonrpc":"2.0","method":5,"id":1}']) {
      const res = await post(body);
      expect(res.status, body).toBeGreaterThanOrEqual(400);
      expect(res.status, body).toBeLessThan(500);
      expect(((await res.json()) as Json).error.code, body).toBeLessThan(0);
    }
  });

  test("a body over the limit → 413", async () => {
    const res = await post(
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { x: "y".repeat(600_000) } }),
    );
    expect(res.status).toBe(413);
    expect(((await res.json()) as Json).error.message).toMatch(/too large/);
  });

  test("wrong, missing and malformed keys → 401 with no detail", async () => {
    for (const authorization of [
      "Bearer wrong-key-0123456789",
      "",
      "Basic abc",
      `Bearer ${"k".repeat(5000)}`,
      `Bearer ${TEAM_A.secret}x`,
    ]) {
      const res = await fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: {
          Authorization: authorization,
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(res.status).toBe(401);
      expect((await res.json()) as Json).toEqual({ error: UNAUTHORIZED });
    }
  });

  test("GET and DELETE /mcp → 405 (stateless server)", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(`${server.url}/mcp`, {
        method,
        headers: { Authorization: `Bearer ${TEAM_A.secret}` },
      });
      expect(res.status).toBe(405);
    }
  });

  test("unknown routes → 404 JSON", async () => {
    const res = await fetch(`${server.url}/nope`);
    expect(res.status).toBe(404);
    expect((await res.json()) as Json).toEqual({ error: "Not found" });
  });
});
