/** The MCP transport surface: protocol versions, JSON vs SSE framing, health, stateless requests. */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { CATALOG } from "../../src/mcp/catalog.ts";
import { negotiate } from "../../src/mcp/server.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { type RunningServer, startInProcess, TEAM_A } from "../support/server.ts";
import { sqliteE2e } from "../support/stores.ts";

let store: RoomStore;
let server: RunningServer;
beforeAll(async () => {
  store = await sqliteE2e().open();
  server = startInProcess(store);
});
afterAll(async () => {
  await server.stop();
  await store.close();
});

const rpc = (
  body: unknown,
  accept = "application/json, text/event-stream",
  extra: Record<string, string> = {},
) =>
  fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${TEAM_A.secret}`,
      "Content-Type": "application/json",
      Accept: accept,
      ...extra,
    },
    body: JSON.stringify(body),
  });

const initialize = (protocolVersion: string) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

describe("MCP transport", () => {
  for (const version of SUPPORTED_PROTOCOL_VERSIONS) {
    test(`initialize with protocol ${version}`, async () => {
      const res = await rpc(initialize(version));
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, any>;
      expect(body.result.protocolVersion).toBe(version);
      expect(body.result.serverInfo.name).toBe("roomd");
      expect(res.headers.get("mcp-session-id")).toBeNull();
    });
  }

  test("JSON when the client prefers or only accepts JSON; SSE framing when it prefers SSE", async () => {
    const call = { jsonrpc: "2.0", id: 7, method: "tools/list" };
    const json = await rpc(call, "application/json");
    expect(json.headers.get("content-type")).toStartWith("application/json");
    expect(((await json.json()) as Record<string, any>).result.tools).toHaveLength(
      CATALOG.listing("full").length,
    );
    const sse = await rpc(call, "text/event-stream");
    expect(sse.headers.get("content-type")).toStartWith("text/event-stream");
    const text = await sse.text();
    const data = text.split("\n").find((l) => l.startsWith("data: "));
    expect(JSON.parse(data?.slice(6) ?? "{}").result.tools).toHaveLength(CATALOG.listing("full").length);
  });

  test("a tools/call needs no initialize first (stateless)", async () => {
    const res = await rpc(
      {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "read_plan", arguments: { roomId: "fresh-room-x" } },
      },
      "application/json",
      { "mcp-protocol-version": "2025-06-18" },
    );
    const body = (await res.json()) as Record<string, any>;
    expect(body.result.structuredContent).toMatchObject({ project: "fresh-room-x", tasks: [] });
  });

  test("negotiate() honours q-values", () => {
    expect(negotiate("application/json, text/event-stream").json).toBe(true);
    expect(negotiate("text/event-stream").json).toBe(false);
    expect(negotiate("text/event-stream, application/json;q=0.5").json).toBe(false);
    expect(negotiate("*/*").json).toBe(true);
    expect(negotiate(null).json).toBe(true);
  });

  test("GET /health reports the driver", async () => {
    const res = await fetch(`${server.url}/health`);
    expect(res.status).toBe(200);
    expect((await res.json()) as unknown).toEqual({ ok: true, store: "sqlite", version: expect.any(String) });
  });
});
