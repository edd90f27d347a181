/**
 * The 2025 era's direct lane (src/mcp/legacy-call.ts) answers a plain lone tools/call byte for byte as the SDK's
 * server and transport do. Each request is sent twice through real HTTP: with `Content-Type: application/json` (the
 * lane) and with `application/json; charset=utf-8` (a spelling the lane leaves to the SDK, which accepts it as
 * JSON); status, content type and body must be identical, and so must the operation metric each adds. roomd runs in
 * this process, so the test also counts the SDK servers connected: none for the lane, one for the SDK's path.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RoomStore } from "../../src/store/types.ts";
import { type InProcessServer, startInProcess, TEAM_A } from "../support/server.ts";
import { newRoomId, sqliteE2e } from "../support/stores.ts";

const METRICS = "metrics-token-legacy-call-0123456789";
const LANE = "application/json";
const SDK = "application/json; charset=utf-8";

/** SDK servers connected so far in this process (one per request the SDK's path answers). */
let connected = 0;
const connect = Server.prototype.connect;
Server.prototype.connect = function (this: Server, ...args: Parameters<Server["connect"]>) {
  connected++;
  return connect.apply(this, args);
};

describe("a plain lone tools/call of the 2025 era", () => {
  let store: RoomStore;
  let server: InProcessServer;
  const roomId = newRoomId();

  beforeAll(async () => {
    store = await sqliteE2e().open();
    server = startInProcess(store, undefined, { METRICS_TOKEN: METRICS });
    const made = await call(LANE, {
      name: "set_shared_var",
      arguments: { roomId, agentId: "ann", key: "k", value: "1" },
    });
    expect(JSON.parse(made.body).result.isError).toBeUndefined();
    for (let t = 0; t < 30; t++)
      await call(LANE, {
        name: "add_task",
        arguments: { roomId, title: `Task ${t}, titled at some length` },
      });
  });
  afterAll(async () => {
    Server.prototype.connect = connect;
    await server.stop();
    await store.close();
  });

  async function call(
    contentType: string,
    params: unknown,
    options: { id?: unknown; path?: string; headers?: Record<string, string> } = {},
  ) {
    const res = await fetch(`${server.url}${options.path ?? "/mcp"}`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${TEAM_A.secret}`,
        "Content-Type": contentType,
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-11-25",
        ...options.headers,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: options.id ?? 7, method: "tools/call", params }),
    });
    return { status: res.status, type: res.headers.get("content-type"), body: await res.text() };
  }

  /** The operation histogram's counts, by labels. */
  async function operations(): Promise<Map<string, number>> {
    const text = await (
      await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${METRICS}` } })
    ).text();
    const counts = new Map<string, number>();
    for (const [, labels, count] of text.matchAll(
      /^mcp_server_operation_duration_seconds_count\{(.*)\} (\d+)$/gm,
    ))
      counts.set(labels as string, Number(count));
    return counts;
  }

  /** Sends `params` through the lane, then through the SDK: the same answer, and one more of the same operation. */
  async function same(params: unknown, options: Parameters<typeof call>[2] = {}) {
    const before = await operations();
    const servers = connected;
    const lane = await call(LANE, params, options);
    expect(connected - servers, "the lane connects no SDK server").toBe(0);
    const afterLane = await operations();
    const sdk = await call(SDK, params, options);
    expect(connected - servers, "the SDK's path connects one").toBe(1);
    const afterSdk = await operations();
    expect(lane).toEqual(sdk);
    const added = (from: Map<string, number>, to: Map<string, number>) =>
      [...to]
        .filter(([labels, n]) => n !== (from.get(labels) ?? 0))
        .map(([labels, n]) => [labels, n - (from.get(labels) ?? 0)]);
    expect(added(before, afterLane)).toEqual(added(afterLane, afterSdk));
    return lane;
  }

  test("a small answer (text content and structuredContent), with numeric and string ids", async () => {
    const small = await same({ name: "get_shared_var", arguments: { roomId, key: "k" } });
    expect(small.status).toBe(200);
    expect(small.type).toBe("application/json");
    expect(JSON.parse(small.body).result.structuredContent).toMatchObject({ key: "k", value: "1" });
    await same({ name: "get_shared_var", arguments: { roomId, key: "k" } }, { id: 'req-ü"1' });
  });

  test("a large answer (the SDK splices it) and a write", async () => {
    const plan = await same({ name: "read_plan", arguments: { roomId } });
    expect(plan.body.length).toBeGreaterThan(4096);
    // A write whose answer is the same each time (the variable's new value, set twice).
    await same({
      name: "set_shared_var",
      arguments: { roomId, agentId: "ann", key: "u", value: 'é\n\u2028"<b>' },
    });
  });

  test("tool errors: bad arguments, an unknown tool, no arguments; a room never written", async () => {
    const bad = await same({ name: "get_shared_var", arguments: { roomId, key: 5 } });
    expect(JSON.parse(bad.body).result.isError).toBe(true);
    await same({ name: "get_shared_var", arguments: { roomId: newRoomId(), key: "k" } });
    await same({ name: "no_such_tool", arguments: {} });
    await same({ name: "read_plan" });
  });

  test("the model-facing profile's text, and the room and agent from headers", async () => {
    await same({ name: "read_plan", arguments: { roomId } }, { path: "/mcp?profile=compact" });
    await same(
      { name: "get_shared_var", arguments: { key: "k" } },
      { headers: { "X-Roomd-Room": roomId, "X-Roomd-Agent": "ann" } },
    );
  });

  test("what the lane leaves to the SDK is answered as before: _meta, an older version, an unknown one", async () => {
    const meta = await call(LANE, {
      name: "get_shared_var",
      arguments: { roomId, key: "k" },
      _meta: { progressToken: 1 },
    });
    expect(meta.status).toBe(200);
    expect(JSON.parse(meta.body).result.structuredContent).toMatchObject({ value: "1" });
    await same(
      { name: "get_shared_var", arguments: { roomId, key: "k" } },
      { headers: { "MCP-Protocol-Version": "2025-03-26" } },
    );
    const unknown = await call(
      LANE,
      { name: "get_shared_var", arguments: { roomId, key: "k" } },
      {
        headers: { "MCP-Protocol-Version": "2024-01-01" },
      },
    );
    expect(unknown.status).toBe(400);
  });
});
