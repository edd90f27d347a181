/**
 * Watching the server: GET /metrics parses as the Prometheus text format (test/support/prometheus.ts, written from
 * the format's specification) and counts a scripted workload exactly — tool calls by tool and outcome, the duration
 * histogram, HTTP answers by route pattern (never a raw path), store operations (none added by the live feed or the
 * webhooks when nobody watches), rate-limit refusals, open streams; who may read it; and one JSON log line per tool
 * call with its request id, tool, outcome and duration, and nothing secret. Counts, never timings.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createLogger } from "../../src/log.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { type MetricFamily, parseExposition, sampleValue } from "../support/prometheus.ts";
import {
  OPERATOR,
  type RunningServer,
  spawnServer,
  startInProcess,
  TEAM_A,
  TEAM_B,
} from "../support/server.ts";
import { openSse } from "../support/sse.ts";
import { E2E_STORES, newRoomId, sqliteE2e } from "../support/stores.ts";
import { type Receiver, startReceiver } from "../support/webhook-receiver.ts";

const METRICS_TOKEN = `metrics-token-${crypto.randomUUID()}`;

type Families = Map<string, MetricFamily>;

async function scrape(url: string, secret = METRICS_TOKEN): Promise<{ text: string; families: Families }> {
  const res = await fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${secret}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  const text = await res.text();
  return { text, families: parseExposition(text) };
}

/** How much a sample grew between two scrapes (a sample not yet there counts as 0). */
const grew = (before: Families, after: Families, name: string, labels: Record<string, string> = {}) =>
  (sampleValue(after, name, labels) ?? 0) - (sampleValue(before, name, labels) ?? 0);

for (const make of E2E_STORES) {
  describe(`GET /metrics and the per-call log (${make().name})`, () => {
    const e2e = make();
    let store: RoomStore;
    let server: RunningServer;
    let http: ReturnType<typeof httpClient>;
    const lines: string[] = [];
    beforeAll(async () => {
      store = await e2e.open();
      server = startInProcess(
        store,
        createLogger("info", (line) => lines.push(line)),
        { METRICS_TOKEN },
      );
      http = httpClient(server.url);
    });
    afterAll(async () => {
      await server.stop();
      await store.close();
    });

    test("a scripted workload is counted exactly: tool calls by outcome, the histogram, routes, store operations", async () => {
      const roomId = newRoomId();
      const before = (await scrape(server.url)).families;
      expect(
        (await http.tool(TEAM_A.secret, "set_shared_var", { roomId, key: "k", value: "v", agentId: "a" }))
          .isError,
      ).toBe(false);
      for (let i = 0; i < 7; i++)
        expect((await http.tool(TEAM_A.secret, "get_shared_var", { roomId, key: "k" })).isError).toBe(false);
      for (let i = 0; i < 3; i++)
        expect((await http.tool(TEAM_A.secret, "get_task", { roomId, taskId: "task-999" })).text).toContain(
          "not found",
        );
      for (let i = 0; i < 2; i++)
        expect((await http.tool(TEAM_A.secret, "get_shared_var", { roomId, key: 42 })).text).toContain(
          "Invalid arguments",
        );
      expect((await http.tool(TEAM_A.secret, "no_such_tool", { roomId })).text).toContain("Unknown tool");
      for (let i = 0; i < 2; i++)
        expect((await http.tool(TEAM_B.secret, "get_shared_var", { roomId, key: "k" })).isError).toBe(true);
      // A route with an id in its path, and a path no route matches.
      expect((await http.get(`/room/${roomId}`)).status).toBe(200);
      expect((await http.get(`/no/such/${roomId}`)).status).toBe(404);
      const { text, families: after } = await scrape(server.url);

      const calls = (tool: string, outcome: string) =>
        grew(before, after, "roomd_tool_calls_total", { tool, outcome });
      expect(calls("set_shared_var", "ok")).toBe(1);
      expect(calls("get_shared_var", "ok")).toBe(7);
      expect(calls("get_shared_var", "invalid")).toBe(2);
      expect(calls("get_shared_var", "denied")).toBe(2);
      expect(calls("get_task", "not_found")).toBe(3);
      expect(calls("unknown", "unknown_tool")).toBe(1);
      // The histogram counts every call of the tool, whatever its outcome; its buckets are cumulative (the parser
      // checks that, and that +Inf equals _count).
      const count = (tool: string) => grew(before, after, "roomd_tool_duration_seconds_count", { tool });
      expect(count("get_shared_var")).toBe(11);
      expect(count("get_task")).toBe(3);
      expect(
        grew(before, after, "roomd_tool_duration_seconds_bucket", { tool: "get_shared_var", le: "+Inf" }),
      ).toBe(11);
      expect(
        sampleValue(after, "roomd_tool_duration_seconds_sum", { tool: "get_shared_var" }),
      ).toBeGreaterThan(0);
      // Routes by pattern: 16 tool calls, the room page, the unmatched path, the first scrape.
      const route = (path: string, status: string) =>
        grew(before, after, "roomd_http_requests_total", { route: path, status });
      expect(route("/mcp", "200")).toBe(16);
      expect(route("/room/:roomId", "200")).toBe(1);
      expect(route("unmatched", "404")).toBe(1);
      expect(route("/metrics", "200")).toBe(1);
      expect(text).not.toContain(roomId);
      // Store operations: each call's rate charge (static keys are checked in memory), plus the tool's one
      // operation unless it was refused before reaching the store (bad arguments, unknown tool); the public room
      // page reads one summary. Nobody watches the room, so the live feed and the webhooks add nothing; /metrics
      // with METRICS_TOKEN costs none.
      const driver = store.driver;
      // The two refused for another team's room also read the caller's rooms once each (the typo hint).
      const ops = 1 * 2 + 7 * 2 + 3 * 2 + 2 * 1 + 1 * 1 + 2 * 3 + 1;
      expect(grew(before, after, "roomd_store_requests_total", { driver })).toBe(ops);
      expect(sampleValue(after, "roomd_build_info", { driver })).toBe(1);
    });

    test("who may read it: METRICS_TOKEN or an operator key; no bearer or a wrong one 401; any other key 403", async () => {
      const roomId = newRoomId();
      await http.tool(TEAM_A.secret, "set_shared_var", { roomId, key: "k", value: "v", agentId: "alice" });
      const dynamic = (await http.post("/admin/keys", TEAM_A.secret, { note: "metrics test" })).body
        .secret as string;
      const invite = (await http.post(`/admin/rooms/${roomId}/invite`, TEAM_A.secret, {})).body
        .token as string;
      const status = async (secret?: string) =>
        (
          await fetch(
            `${server.url}/metrics`,
            secret ? { headers: { Authorization: `Bearer ${secret}` } } : {},
          )
        ).status;
      expect(await status()).toBe(401);
      expect(await status("not-a-key-of-anyone-0123456789")).toBe(401);
      expect(await status(`${METRICS_TOKEN}x`)).toBe(401);
      for (const secret of [TEAM_A.secret, dynamic, invite]) expect(await status(secret)).toBe(403);
      expect((await http.get("/metrics", TEAM_B.secret)).body).toEqual({
        error: "Only an operator key or METRICS_TOKEN can read metrics",
      });
      expect(await status(OPERATOR.secret)).toBe(200);
      expect(await status(METRICS_TOKEN)).toBe(200);
      const { families } = await scrape(server.url, OPERATOR.secret);
      for (const name of [
        "process_cpu_seconds_total",
        "process_resident_memory_bytes",
        "process_heap_bytes",
        "process_start_time_seconds",
      ])
        expect(sampleValue(families, name)).toBeGreaterThan(0);
    });

    test("open room streams are a gauge: up while open, back down when closed", async () => {
      const roomId = newRoomId();
      await http.tool(TEAM_A.secret, "set_shared_var", { roomId, key: "k", value: "v", agentId: "alice" });
      const open = async () => sampleValue((await scrape(server.url)).families, "roomd_streams_open") ?? 0;
      const base = await open();
      const streams = await Promise.all(
        [0, 1].map(() => openSse({ url: `${server.url}/rooms/${roomId}/stream`, secret: TEAM_A.secret })),
      );
      for (const s of streams) expect(s.status).toBe(200);
      expect(await open()).toBe(base + 2);
      for (const s of streams) s.close();
      const deadline = Date.now() + 5000;
      while ((await open()) !== base && Date.now() < deadline) await Bun.sleep(20);
      expect(await open()).toBe(base);
    });

    test("one log line per tool call: request id, tool, outcome, duration; no secret anywhere in the log", async () => {
      const roomId = newRoomId();
      const from = lines.length;
      const answers = [
        await http.tool(TEAM_A.secret, "set_shared_var", { roomId, key: "k", value: "v", agentId: "a" }),
        await http.tool(TEAM_A.secret, "get_shared_var", { roomId, key: 42 }),
        await http.tool(TEAM_B.secret, "get_shared_var", { roomId, key: "k" }),
      ];
      const records = lines
        .slice(from)
        .map((line) => JSON.parse(line))
        .filter((r) => r.msg === "tool call");
      expect(records.map((r) => [r.tool, r.outcome])).toEqual([
        ["set_shared_var", "ok"],
        ["get_shared_var", "invalid"],
        ["get_shared_var", "denied"],
      ]);
      records.forEach((record, i) => {
        expect(record.level).toBe("info");
        expect(record.requestId).toBe(answers[i]?.headers.get("x-request-id"));
        expect(typeof record.ms).toBe("number");
        expect(record.ms).toBeGreaterThanOrEqual(0);
        expect(Object.keys(record).sort()).toEqual([
          "level",
          "ms",
          "msg",
          "outcome",
          "requestId",
          "time",
          "tool",
        ]);
      });
      const log = lines.join("");
      const digest = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest("hex");
      for (const secret of [TEAM_A.secret, TEAM_B.secret, OPERATOR.secret, METRICS_TOKEN]) {
        expect(log).not.toContain(secret);
        expect(log).not.toContain(digest(secret));
      }
    });
  });
}

describe("rate-limit refusals are counted (sqlite)", () => {
  test("tool calls over the team's window answer rate_limited and count in roomd_rate_limited_total", async () => {
    const make = E2E_STORES.find((m) => m().name === "sqlite") ?? E2E_STORES[0];
    if (!make) return;
    const store = await make().open();
    const server = startInProcess(store, undefined, { METRICS_TOKEN, RATE_LIMIT_PER_MINUTE: "3" });
    try {
      const http = httpClient(server.url);
      const teamId = `m-${crypto.randomUUID().slice(0, 8)}`;
      const made = await http.post("/admin/keys/provision", OPERATOR.secret, { teamId });
      expect(made.status).toBe(201);
      const secret = made.body.secret as string;
      const roomId = newRoomId();
      const before = (await scrape(server.url)).families;
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push(await http.tool(secret, "list_shared_vars", { roomId }));
      expect(answers.map((a) => a.text.startsWith("Error: Rate limit exceeded"))).toEqual([
        false,
        false,
        false,
        true,
        true,
      ]);
      // Over the limit the name is not even looked up: a name outside the catalog still counts as "unknown".
      const invented = `made_up_${crypto.randomUUID().slice(0, 8)}`;
      expect((await http.tool(secret, invented, { roomId })).text).toStartWith("Error: Rate limit exceeded");
      const { text, families: after } = await scrape(server.url);
      expect(text).not.toContain(invented);
      expect(
        grew(before, after, "roomd_tool_calls_total", { tool: "unknown", outcome: "rate_limited" }),
      ).toBe(1);
      expect(grew(before, after, "roomd_tool_calls_total", { tool: "list_shared_vars", outcome: "ok" })).toBe(
        3,
      );
      expect(
        grew(before, after, "roomd_tool_calls_total", { tool: "list_shared_vars", outcome: "rate_limited" }),
      ).toBe(2);
      expect(grew(before, after, "roomd_rate_limited_total")).toBe(3);
    } finally {
      await server.stop();
      await store.close();
    }
  });
});

describe("a roomd process (bun src/index.ts, sqlite)", () => {
  const team = {
    teamId: `mp-${crypto.randomUUID().slice(0, 8)}`,
    secret: `metrics-process-${crypto.randomUUID()}`,
  };
  const env = async (logLevel: string) => ({
    ...(await sqliteE2e().env()),
    API_KEYS: `${team.teamId}:${team.secret}`,
    RATE_LIMIT_PER_MINUTE: "1000000",
    METRICS_TOKEN,
    LOG_LEVEL: logLevel,
    WEBHOOK_ALLOW_HTTP: "true",
    WEBHOOK_ALLOW_PRIVATE: "true",
  });
  let receiver: Receiver | undefined;
  afterAll(() => receiver?.stop());

  test("LOG_LEVEL=info: a line per call on stderr, no secret; webhook deliveries and process metrics are counted", async () => {
    const server = await spawnServer(await env("info"));
    try {
      const http = httpClient(server.url);
      receiver = startReceiver();
      const roomId = newRoomId();
      await http.tool(team.secret, "set_shared_var", { roomId, key: "k", value: "v", agentId: "a" });
      const hook = await http.post(`/admin/rooms/${roomId}/webhooks`, team.secret, {
        url: `http://127.0.0.1:${receiver.port}/hook`,
      });
      expect(hook.status).toBe(201);
      await http.tool(team.secret, "post_event", { roomId, type: "build", from: "a", payload: { ok: true } });
      const deadline = Date.now() + 10_000;
      const delivered = async () =>
        sampleValue((await scrape(server.url)).families, "roomd_webhook_deliveries_total", {
          outcome: "delivered",
        });
      while ((await delivered()) !== 1 && Date.now() < deadline) await Bun.sleep(50);
      expect(await delivered()).toBe(1);
      const { families } = await scrape(server.url);
      expect(sampleValue(families, "roomd_tool_calls_total", { tool: "post_event", outcome: "ok" })).toBe(1);
      expect(sampleValue(families, "process_cpu_seconds_total")).toBeGreaterThan(0);
      expect(sampleValue(families, "process_resident_memory_bytes")).toBeGreaterThan(0);
      expect(sampleValue(families, "process_open_fds")).toBeGreaterThan(0);
      const calls = server
        .output()
        .split("\n")
        .filter((line) => line.includes('"msg":"tool call"'))
        .map((line) => JSON.parse(line));
      expect(calls.map((c) => [c.tool, c.outcome])).toEqual([
        ["set_shared_var", "ok"],
        ["post_event", "ok"],
      ]);
      const secret = hook.body.secret as string | undefined;
      for (const s of [team.secret, METRICS_TOKEN, ...(secret ? [secret] : [])])
        expect(server.output()).not.toContain(s);
    } finally {
      await server.stop();
    }
  });

  test("LOG_LEVEL=warn: no line per call", async () => {
    const server = await spawnServer(await env("warn"));
    try {
      const roomId = newRoomId();
      const http = httpClient(server.url);
      for (let i = 0; i < 3; i++)
        await http.tool(team.secret, "set_shared_var", { roomId, key: "k", value: "v", agentId: "a" });
      expect(server.output()).not.toContain('"msg":"tool call"');
      expect(server.output()).not.toContain('"level":"info"');
    } finally {
      await server.stop();
    }
  });
});
