/**
 * OpenTelemetry traces, received as a tracing backend receives them: a real OTLP/HTTP receiver in this test decodes
 * what roomd processes export. Each process (SQLite, Redis, PostgreSQL) gets MCP calls whose `params._meta` carries a
 * caller's trace; the receiver must get a SERVER span per request named and attributed after the MCP semantic
 * conventions, continuing that trace (parent span id, tracestate), with the store's work as its children (the
 * operation; on Redis and PostgreSQL each round trip under it). `mcp_server_operation_duration_seconds` counts the
 * same calls in /metrics.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import { type SpawnedServer, spawnServer, TEAM_A } from "../support/server.ts";
import { postgresE2e, redisE2e, sqliteE2e } from "../support/stores.ts";

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  traceState?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: { stringValue?: string; intValue?: string } }[];
  status?: { code?: number; message?: string };
}

const SERVER = 2;
const CLIENT = 3;
const INTERNAL = 1;
const ERROR = 2;
const METRICS_TOKEN = `metrics-token-${crypto.randomUUID()}`;

let receiver: Server<undefined>;
const spans: OtlpSpan[] = [];
const services = new Set<string>();

const attrs = (span: OtlpSpan) =>
  Object.fromEntries((span.attributes ?? []).map((a) => [a.key, a.value.stringValue ?? a.value.intValue]));

const hex = (bytes: number) =>
  [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");

/** Waits (bounded) until the receiver holds a span matching `find`. */
async function received(what: string, find: (span: OtlpSpan) => boolean): Promise<OtlpSpan> {
  for (let i = 0; i < 100; i++) {
    const span = spans.find(find);
    if (span) return span;
    await Bun.sleep(100);
  }
  throw new Error(`no span ${what} arrived; got: ${spans.map((s) => s.name).join(", ")}`);
}

/** One raw JSON-RPC request with the caller's trace in params._meta (or in `headers`: an HTTP traceparent). */
async function mcp(
  url: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${TEAM_A.secret}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "Mcp-Protocol-Version": "2025-06-18",
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", ...body }),
  });
}

/** One 2026-07-28 request (no handshake: the version and capabilities in `_meta`, method and name in headers). */
async function modernMcp(
  url: string,
  id: number,
  method: string,
  params: Record<string, unknown>,
  meta: Record<string, unknown>,
): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${TEAM_A.secret}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": method,
      ...(typeof params.name === "string" ? { "Mcp-Name": params.name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
          ...meta,
        },
      },
    }),
  });
}

beforeAll(() => {
  receiver = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      if (req.method !== "POST" || new URL(req.url).pathname !== "/v1/traces")
        return new Response("no", { status: 404 });
      const body = (await req.json()) as {
        resourceSpans: {
          resource: { attributes: { key: string; value: { stringValue?: string } }[] };
          scopeSpans: { spans: OtlpSpan[] }[];
        }[];
      };
      for (const resource of body.resourceSpans) {
        const name = resource.resource.attributes.find((a) => a.key === "service.name")?.value.stringValue;
        if (name) services.add(name);
        for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      }
      return Response.json({});
    },
  });
});

afterAll(async () => {
  await receiver.stop(true);
});

const BACKINGS = [
  { make: sqliteE2e, roundTrip: undefined },
  { make: redisE2e, roundTrip: { system: "redis", name: /^EVALSHA [A-Z_]+$/ } },
  { make: postgresE2e, roundTrip: { system: "postgresql", name: /^(SELECT|INSERT|UPDATE|WITH)$/ } },
] as const;

for (const { make, roundTrip } of BACKINGS) {
  const backing = make();
  describe(`traces from a roomd on ${backing.name}`, () => {
    let server: SpawnedServer;
    beforeAll(async () => {
      server = await spawnServer({
        ...(await backing.env()),
        API_KEYS: `${TEAM_A.teamId}:${TEAM_A.secret}`,
        METRICS_TOKEN,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`,
        OTEL_SERVICE_NAME: `roomd-${backing.name}`,
        // Spans reach the receiver within 50 ms rather than 1 s: the tests wait for them.
        OTEL_BSP_SCHEDULE_DELAY: "50",
      });
    });
    afterAll(async () => {
      await server?.stop();
    });

    test("a tool call: SERVER span after the MCP conventions, continuing _meta's trace, store work beneath", async () => {
      const traceId = hex(16);
      const parentId = hex(8);
      const roomId = `traced-${crypto.randomUUID().slice(0, 8)}`;
      const res = await mcp(server.url, {
        id: 7,
        method: "tools/call",
        params: {
          name: "add_task",
          arguments: { roomId, title: "traced", agentId: "tracer" },
          _meta: { traceparent: `00-${traceId}-${parentId}-01`, tracestate: "vendor=opaque" },
        },
      });
      expect(res.status).toBe(200);
      expect(JSON.stringify(await res.json())).not.toContain("isError");

      const call = await received("tools/call add_task", (s) => s.traceId === traceId && s.kind === SERVER);
      expect(call.name).toBe("tools/call add_task");
      expect(call.parentSpanId).toBe(parentId);
      expect(call.traceState).toBe("vendor=opaque");
      expect(attrs(call)).toMatchObject({
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": "add_task",
        "gen_ai.operation.name": "execute_tool",
        "jsonrpc.request.id": "7",
        "mcp.protocol.version": "2025-06-18",
      });
      expect(attrs(call)["error.type"]).toBeUndefined();
      expect(call.status?.code ?? 0).not.toBe(ERROR);

      const operation = await received("store.addTask", (s) => s.parentSpanId === call.spanId);
      expect(operation).toMatchObject({ name: "store.addTask", kind: INTERNAL, traceId });
      if (roundTrip) {
        const trip = await received(
          `a ${roundTrip.system} round trip`,
          (s) => s.parentSpanId === operation.spanId,
        );
        expect(trip.kind).toBe(CLIENT);
        expect(trip.name).toMatch(roundTrip.name);
        expect(attrs(trip)["db.system.name"]).toBe(roundTrip.system);
      }
      expect(services).toContain(`roomd-${backing.name}`);
    });

    test("a tool error is error.type tool_error with the ERROR status; a JSON-RPC error its code", async () => {
      const traceId = hex(16);
      const meta = { traceparent: `00-${traceId}-${hex(8)}-01` };
      await mcp(server.url, {
        id: "req-9",
        method: "tools/call",
        params: { name: "get_task", arguments: { roomId: "traced-none", id: "task-404" }, _meta: meta },
      });
      const failed = await received("tools/call get_task", (s) => s.traceId === traceId && s.kind === SERVER);
      expect(failed.name).toBe("tools/call get_task");
      expect(attrs(failed)).toMatchObject({ "error.type": "tool_error", "jsonrpc.request.id": "req-9" });
      expect(failed.status?.code).toBe(ERROR);

      const other = hex(16);
      await mcp(server.url, {
        id: 3,
        // A method of the protocol that roomd does not serve (it keeps no log level): -32601.
        method: "logging/setLevel",
        params: { level: "info", _meta: { traceparent: `00-${other}-${hex(8)}-01` } },
      });
      const unknown = await received("logging/setLevel", (s) => s.traceId === other);
      expect(unknown.name).toBe("logging/setLevel");
      expect(attrs(unknown)["error.type"]).toBe("-32601");
    });

    test("a plain tool call (the 2025 era's direct lane): the HTTP traceparent continued, store work beneath", async () => {
      const traceId = hex(16);
      const parentId = hex(8);
      const roomId = `traced-${crypto.randomUUID().slice(0, 8)}`;
      const res = await mcp(
        server.url,
        {
          id: 8,
          method: "tools/call",
          params: { name: "add_task", arguments: { roomId, title: "plain", agentId: "tracer" } },
        },
        { traceparent: `00-${traceId}-${parentId}-01` },
      );
      expect(res.status).toBe(200);
      expect(JSON.stringify(await res.json())).not.toContain("isError");
      const call = await received("tools/call add_task", (s) => s.traceId === traceId && s.kind === SERVER);
      expect(call.parentSpanId).toBe(parentId);
      expect(attrs(call)).toMatchObject({ "jsonrpc.request.id": "8", "mcp.protocol.version": "2025-06-18" });
      const operation = await received("store.addTask", (s) => s.parentSpanId === call.spanId);
      expect(operation).toMatchObject({ name: "store.addTask", kind: INTERNAL, traceId });
    });

    test("without _meta, the HTTP traceparent is continued; tools/list is named by its method", async () => {
      const traceId = hex(16);
      const parentId = hex(8);
      const res = await fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${TEAM_A.secret}`,
          "Content-Type": "application/json",
          Accept: "application/json",
          traceparent: `00-${traceId}-${parentId}-01`,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(res.status).toBe(200);
      const listed = await received("tools/list", (s) => s.traceId === traceId);
      expect(listed).toMatchObject({ name: "tools/list", kind: SERVER, parentSpanId: parentId });
      expect(attrs(listed)["gen_ai.tool.name"]).toBeUndefined();
    });

    test("the 2026-07-28 era: the same spans, its version, continuing _meta's trace; a refusal its code", async () => {
      const traceId = hex(16);
      const parentId = hex(8);
      const roomId = `traced-${crypto.randomUUID().slice(0, 8)}`;
      const res = await modernMcp(
        server.url,
        11,
        "tools/call",
        { name: "add_task", arguments: { roomId, title: "traced", agentId: "tracer" } },
        { traceparent: `00-${traceId}-${parentId}-01` },
      );
      expect(res.status).toBe(200);
      expect(JSON.stringify(await res.json())).not.toContain("isError");
      const call = await received(
        "2026 tools/call add_task",
        (s) => s.traceId === traceId && s.kind === SERVER,
      );
      expect(call).toMatchObject({ name: "tools/call add_task", parentSpanId: parentId });
      expect(attrs(call)).toMatchObject({
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": "add_task",
        "jsonrpc.request.id": "11",
        "mcp.protocol.version": "2026-07-28",
      });
      const operation = await received("2026 store.addTask", (s) => s.parentSpanId === call.spanId);
      expect(operation.name).toBe("store.addTask");

      const other = hex(16);
      const refused = await modernMcp(
        server.url,
        12,
        "prompts/get",
        { name: "no_such_prompt" },
        {
          traceparent: `00-${other}-${hex(8)}-01`,
        },
      );
      expect(((await refused.json()) as { error?: { code?: number } }).error?.code).toBeNumber();
      const failed = await received("2026 prompts/get", (s) => s.traceId === other);
      expect(failed.name).toBe("prompts/get");
      expect(attrs(failed)["error.type"]).toMatch(/^-32\d{3}$/);
      expect(failed.status?.code).toBe(ERROR);
    });

    test("mcp_server_operation_duration_seconds counts the calls by method, tool and error type", async () => {
      const text = await (
        await fetch(`${server.url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })
      ).text();
      const count = (labels: string) =>
        Number(
          new RegExp(`^mcp_server_operation_duration_seconds_count\\{${labels}\\} (\\d+)$`, "m").exec(
            text,
          )?.[1] ?? 0,
        );
      expect(
        count('mcp_method_name="tools/call",gen_ai_tool_name="add_task",error_type=""'),
      ).toBeGreaterThanOrEqual(1);
      expect(
        count('mcp_method_name="tools/call",gen_ai_tool_name="get_task",error_type="tool_error"'),
      ).toBeGreaterThanOrEqual(1);
      expect(count('mcp_method_name="tools/list",gen_ai_tool_name="",error_type=""')).toBeGreaterThanOrEqual(
        1,
      );
    });
  });
}
