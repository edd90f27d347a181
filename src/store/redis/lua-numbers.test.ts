/**
 * Lua prints a number with 14 significant digits unless told otherwise (`tostring`, `..`): 10^15 becomes "1e+15".
 * Every id and number a script writes is printed from an integer, so a room whose counters are large still mints
 * `task-1000000000000001`, never `task-1e+15`. The counters are set on the server directly, past anything an import
 * accepts, to see the scripts' own printing. Also: walks over the log are bounded by the events the room holds, so
 * a log whose head and trim disagree (a gap no live room has) answers instead of scanning the gap.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { sharedRedis } from "../../../test/support/redis-server.ts";
import type { RoomScope, RoomStore } from "../types.ts";
import { createRedisStore } from "./store.ts";
import { createTcpScriptClient } from "./tcp-client.ts";

const LARGE = 10 ** 15;
let raw: RedisClient;
let store: RoomStore;

const newScope = (): RoomScope => ({
  roomId: `r-${crypto.randomUUID().slice(0, 8)}`,
  teamId: `t-${crypto.randomUUID().slice(0, 8)}`,
});

beforeAll(async () => {
  const server = await sharedRedis();
  raw = new RedisClient(server.url);
  store = createRedisStore({
    client: createTcpScriptClient(server.url, { timeoutMs: 5000 }),
    driver: "redis",
  });
});
afterAll(async () => {
  await store.close();
  raw.close();
});

describe("Redis scripts print numbers as integers", () => {
  test("R2-1 ids minted past 10^14 are whole numbers, not 1e+15", async () => {
    const scope = newScope();
    await store.addTask(scope, { title: "first", description: "", depends_on: [], priority: null });
    const meta = `room:{${scope.roomId}}:meta`;
    const counters = ["task_n", "ctx_n", "review_n", "approval_n", "handoff_n", "verdict_n"];
    await raw.send("HSET", [meta, ...counters.flatMap((c) => [c, String(LARGE)])]);
    // The log's head and its trim move together, as in an imported room whose older events were trimmed.
    await raw.send("HSET", [meta, "event_seq", String(LARGE), "trim_seq", String(LARGE)]);
    const next = String(LARGE + 1);

    const task = await store.addTask(scope, { title: "t", description: "", depends_on: [], priority: null });
    const entry = await store.writeContext(scope, {
      type: "note",
      summary: "s",
      consuming_agents: [],
      payload: { text: "x" },
      author: "alice",
    });
    const review = await store.requestReview(scope, {
      requester: "alice",
      reviewer: "bob",
      subject: "s",
      details: "",
    });
    const approval = await store.requestApproval(scope, {
      requestedBy: "alice",
      action: "deploy",
      details: {},
      expiresInMs: 60_000,
    });
    const handoff = await store.offerHandoff(scope, {
      from: "alice",
      to: "bob",
      taskIds: [],
      contextIds: [],
      note: "n",
      offeredBy: "alice",
      agentOffer: true,
    });
    const verdict = await store.recordVerdict(scope, {
      by: "alice",
      verdict: "pass",
      summary: "s",
      details: "",
      ref: null,
    });
    expect([task.id, entry.id, review.id, approval.id, handoff.id, verdict.id]).toEqual(
      ["task", "ctx", "rev", "apr", "hof", "vrd"].map((p) => `${p}-${next}`),
    );
    const events = await store.readEvents(scope, { limit: 100 });
    expect(events.length).toBeGreaterThanOrEqual(5);
    for (const e of events) expect(e.id).toBe(`evt-${e.seq}`);
    expect(events.at(-1)?.id).toBe(`evt-${next}`);
    const page = await store.readLog(scope, LARGE, 100);
    expect(page.head).toBe(events[0]?.seq as number);
  });

  test("R2-1 reads walk only as many seqs as the room holds events", async () => {
    const scope = newScope();
    await store.postEvent(scope, { type: "note", from: "alice", to: "all", payload: {} });
    // A head far past the one event the room holds, with nothing trimmed: a walk down to the trim would scan the
    // whole gap (2^22 seqs here; near 2^53 it would never end).
    await raw.send("HSET", [`room:{${scope.roomId}}:meta`, "event_seq", String(2 ** 22)]);
    expect(await store.readEvents(scope, { limit: 5 })).toEqual([]);
    const summary = await store.roomSummary(scope.roomId);
    expect(summary?.recentEvents).toEqual([]);
  });
});
