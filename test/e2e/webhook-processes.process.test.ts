/**
 * Webhook delivery across real roomd processes (`bun src/index.ts`) on one store, with a real receiver on
 * loopback and the real retry schedule (the first retry comes 4–6 s after a failure, so these tests wait seconds,
 * never minutes):
 * - a process SIGKILLed with deliveries pending (retries queued, and on Redis also sends in flight) loses none:
 *   another process delivers them, the in-flight ones once their claims' leases run out;
 * - three processes delivering many events to two webhooks never send one attempt twice: every webhook-id
 *   arrives exactly as often as the receiver's answers require, and each (event, attempt) is logged once;
 * - 410 Gone disables a webhook and the room gets webhook_disabled, whichever process delivered.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { httpClient } from "../support/http.ts";
import { startRedisServer } from "../support/redis-server.ts";
import { type SpawnedServer, spawnServer } from "../support/server.ts";
import { E2E_STORES, type E2eStore, newRoomId, TEST_ROOMS_PER_TEAM } from "../support/stores.ts";
import { startUpstashFront } from "../support/upstash-front.ts";
import { type Receiver, receiverPool } from "../support/webhook-receiver.ts";

/** A team of this run's own: the shared Redis keeps rooms and rate windows per team across test files. */
const TEAM = {
  teamId: `wh-${crypto.randomUUID().slice(0, 8)}`,
  secret: `webhook-processes-${crypto.randomUUID()}`,
};
// Exactly-once delivery across processes is tested, not speed: store calls get 20 s (docs/testing.md).
const ENV = {
  API_KEYS: `${TEAM.teamId}:${TEAM.secret}`,
  STORE_TIMEOUT_MS: "20000",
  RATE_LIMIT_PER_MINUTE: "1000000",
  WEBHOOK_SIGNING_KEY: "processes-webhook-signing-key-0123456789",
  WEBHOOK_ALLOW_HTTP: "true",
  WEBHOOK_ALLOW_PRIVATE: "true",
};

// The stores' tests run side by side (most of their time is the retry schedule's and the lease's waiting), so a
// receiver lives until the file ends rather than being stopped after each test.
const receivers = receiverPool();
afterAll(() => receivers.stopAll());

async function until(check: () => boolean | Promise<boolean>, what: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await Bun.sleep(50);
  }
}

/** The seq in a webhook-id `<roomId>.<seq>.<webhookId>`. */
const seqOf = (id: string | null) => Number(id?.split(".")[1]);

/** How often each webhook-id arrived, and with which answer. */
function tally(receiver: Receiver, answers: Map<string, number[]>) {
  return { receiver, answers, count: (id: string) => answers.get(id)?.length ?? 0 };
}

async function registerWebhook(url: string, roomId: string, path: string) {
  const http = httpClient(url);
  const made = await http.post(`/admin/rooms/${roomId}/webhooks`, TEAM.secret, { url: path });
  expect({ status: made.status, body: made.body }).toMatchObject({ status: 201 });
  return made.body.webhookId as string;
}

async function postEvents(urls: string[], roomId: string, count: number, parallel = 1): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        const i = next++;
        const res = await httpClient(urls[i % urls.length] as string).tool(TEAM.secret, "post_event", {
          roomId,
          type: "build",
          from: `agent-${i % 5}`,
          payload: { i },
        });
        expect(res.isError).toBe(false);
      }
    }),
  );
}

async function deliveries(url: string, roomId: string, webhookId: string): Promise<any[]> {
  const res = await httpClient(url).get(
    `/admin/rooms/${roomId}/webhooks/${webhookId}/deliveries`,
    TEAM.secret,
  );
  return res.body.deliveries ?? [];
}

/**
 * Process A takes the first attempts; events 1–4 fail fast (their retries are queued) and, with `inFlight`,
 * events 5–6 are held by the receiver while A is SIGKILLed. Process B, started afterwards, must deliver all.
 */
async function crashTest(store: Record<string, string>, inFlight: boolean): Promise<void> {
  const env = { ...ENV, ...store };
  let phase: "failing" | "ok" = "failing";
  const answers = new Map<string, number[]>();
  const receiver = receivers.start({
    respond: async (request) => {
      const id = request.headers.get("webhook-id") ?? "";
      const hold = phase === "failing" && seqOf(id) > 4;
      const status = phase === "failing" ? (hold ? 0 : 500) : 200;
      answers.set(id, [...(answers.get(id) ?? []), status]);
      if (hold) await Bun.sleep(10_000); // longer than the send timeout: A is killed before it answers
      return new Response(null, { status: status || 200 });
    },
  });
  const { count } = tally(receiver, answers);
  const events = inFlight ? 6 : 4;
  const a = await spawnServer(env);
  let b: SpawnedServer | undefined;
  try {
    const roomId = newRoomId();
    await httpClient(a.url).post("/admin/rooms", TEAM.secret, { roomId });
    const webhookId = await registerWebhook(a.url, roomId, `http://127.0.0.1:${receiver.port}/crash`);
    await postEvents([a.url], roomId, events);
    // Every first attempt has reached the receiver, and A recorded the four failures.
    await until(() => answers.size === events, "A's first attempts", 10_000);
    await until(async () => (await deliveries(a.url, roomId, webhookId)).length === 4, "A's records", 10_000);
    // The receiver takes every attempt from now on. On a loaded machine A may reach its retries (due ~5 s after
    // the failures) before it is killed: one it sent is then delivered by A, and one it had claimed but not sent
    // waits for its claim's lease (30 s) before B sends it — hence B's bound below, in both cases.
    phase = "ok";
    a.proc.kill("SIGKILL");
    await a.proc.exited;
    b = await spawnServer(env);
    const ids = [...answers.keys()];
    await until(() => ids.every((id) => answers.get(id)?.includes(200)), "B's deliveries", 45_000);
    await Bun.sleep(1500); // anything sent twice would arrive by now
    for (const id of ids)
      expect({ id, answers: answers.get(id) }).toEqual({
        id,
        answers: seqOf(id) <= 4 ? [500, 200] : [0, 200],
      });
    const log = await deliveries(b.url, roomId, webhookId);
    const byEvent = log.map((d) => `${d.eventSeq}:${d.attempt}:${d.outcome}`).sort();
    const expected = Array.from({ length: events }, (_, i) =>
      i < 4 ? [`${i + 1}:1:failed`, `${i + 1}:2:delivered`] : [`${i + 1}:1:delivered`],
    );
    expect(byEvent).toEqual(expected.flat().sort());
    expect(count(ids[0] as string)).toBe(2);
  } finally {
    if (a.proc.exitCode === null) a.proc.kill("SIGKILL");
    await b?.stop();
  }
}

/** The environment of a store of the test's own, and how to stop what it started. */
interface OwnStore {
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * A store no other test of this file uses. Every roomd process on a store delivers for every room of it, so two
 * tests on one store would deliver each other's events: SQLite gets a new file and PostgreSQL a new database (the
 * backing makes one each time), Redis Cluster has one test, and Redis and Upstash get a private redis-server (and a
 * REST front over it), started here and stopped by the test.
 */
async function ownStore(make: () => E2eStore): Promise<OwnStore> {
  const backing = make();
  if (backing.name !== "redis" && backing.name !== "upstash")
    return { env: await backing.env(), stop: async () => {} };
  const redis = await startRedisServer();
  const base = { ROOMS_PER_TEAM: String(TEST_ROOMS_PER_TEAM) };
  if (backing.name === "redis")
    return { env: { ...base, STORE: "redis", REDIS_URL: redis.url }, stop: () => redis.stop() };
  const front = await startUpstashFront({ redisUrl: redis.url });
  return {
    env: {
      ...base,
      STORE: "upstash",
      UPSTASH_REDIS_REST_URL: front.url,
      UPSTASH_REDIS_REST_TOKEN: front.token,
    },
    stop: async () => {
      await front.stop();
      await redis.stop();
    },
  };
}

/** Runs `body` on a store of its own, stopping the store's servers afterwards. */
async function onOwnStore(make: () => E2eStore, body: (env: Record<string, string>) => Promise<void>) {
  const store = await ownStore(make);
  try {
    await body(store.env);
  } finally {
    await store.stop();
  }
}

/**
 * Most of these tests' time is waiting (the retry schedule, a lease), and each runs on a store of its own, so they
 * all run side by side: the file takes as long as its longest test (the in-flight crash, which waits out a lease).
 */
for (const make of E2E_STORES) {
  const name = make().name;
  describe(`webhooks across roomd processes (${name})`, () => {
    // The claims of a send in flight are held for the lease (30 s): shown once, on a network store.
    if (name === "redis")
      test.concurrent(
        "a process SIGKILLed in the middle of sends: another sends them again once their claims' leases run out",
        () => onOwnStore(make, (env) => crashTest(env, true)),
        80_000,
      );

    // Once per body of the outbox: SQLite and PostgreSQL (one SQL body, two locking models) and Redis (the Lua
    // scripts Redis Cluster and Upstash run too, over transports the conformance suite and the three-process test
    // below cover on each of them).
    if (name !== "redis-cluster" && name !== "upstash")
      test.concurrent("a process SIGKILLed with retries queued loses none: a process started afterwards delivers them", () =>
        onOwnStore(make, (env) => crashTest(env, false)));

    test.concurrent("3 processes, 2 webhooks, 60 events: no attempt is sent twice, none is missing; 410 disables", () =>
      onOwnStore(make, async (store) => {
        const env = { ...ENV, ...store };
        const servers = await Promise.all([spawnServer(env), spawnServer(env), spawnServer(env)]);
        try {
          await threeProcesses(name, servers);
        } finally {
          await Promise.all(servers.map((s) => s.stop()));
        }
      }));
  });
}

/** The three-process test's body on `servers` (three roomd processes on one store of its own). */
async function threeProcesses(name: string, servers: SpawnedServer[]): Promise<void> {
  const urls = servers.map((s) => s.url);
  // The first attempt of every fourth event fails; everything else is answered 200. Each answer takes 100 ms,
  // so one process's slots for the room (8) fill up and the others claim side by side with it.
  const answers = new Map<string, number[]>();
  const receiver = receivers.start({
    respond: async (request) => {
      const id = request.headers.get("webhook-id") ?? "";
      const seen = answers.get(id) ?? [];
      const status = seen.length === 0 && seqOf(id) % 4 === 0 ? 500 : 200;
      answers.set(id, [...seen, status]);
      await Bun.sleep(100);
      return new Response(null, { status });
    },
  });
  const gone = receivers.start({ respond: () => new Response(null, { status: 410 }) });
  const roomId = newRoomId();
  const goneRoom = newRoomId();
  const http = httpClient(urls[0] as string);
  for (const id of [roomId, goneRoom]) {
    const made = await http.post("/admin/rooms", TEAM.secret, { roomId: id });
    expect({ status: made.status, body: made.body }).toMatchObject({ status: 201 });
  }
  const hooks = [
    await registerWebhook(urls[1] as string, roomId, `http://127.0.0.1:${receiver.port}/a`),
    await registerWebhook(urls[2] as string, roomId, `http://127.0.0.1:${receiver.port}/b`),
  ];
  const goneHook = await registerWebhook(urls[0] as string, goneRoom, `http://127.0.0.1:${gone.port}/`);
  const started = performance.now();
  await Promise.all([postEvents(urls, roomId, 60, 6), postEvents(urls, goneRoom, 1)]);
  const expected = new Map<string, number[]>();
  for (let seq = 1; seq <= 60; seq++) {
    for (const webhookId of hooks)
      expected.set(`${roomId}.${seq}.${webhookId}`, seq % 4 === 0 ? [500, 200] : [200]);
  }
  await until(
    () => [...expected.keys()].every((id) => answers.get(id)?.includes(200)),
    "every event delivered to both webhooks",
    60_000, // the stores' tests run side by side: loss is tested, not speed
  );
  const ms = Math.round(performance.now() - started);
  await Bun.sleep(1500); // a duplicate would arrive by now
  expect(new Map([...answers].sort())).toEqual(new Map([...expected].sort()));
  for (const webhookId of hooks) {
    const log = await deliveries(urls[2] as string, roomId, webhookId);
    const attempts = log.map((d) => `${d.eventSeq}:${d.attempt}`);
    expect(new Set(attempts).size).toBe(attempts.length);
    expect(log).toHaveLength(75);
    expect(log.filter((d) => d.outcome === "delivered")).toHaveLength(60);
    expect(log.filter((d) => d.outcome === "failed").map((d) => d.eventSeq % 4)).toEqual(Array(15).fill(0));
  }
  // 410: the webhook is disabled at once, the room is told so, and later events are not sent.
  await until(
    async () => {
      const [listed] = (await http.get(`/admin/rooms/${goneRoom}/webhooks`, TEAM.secret)).body.webhooks;
      return listed?.status === "disabled";
    },
    "the 410 webhook to be disabled",
    10_000,
  );
  await postEvents(urls, goneRoom, 3);
  await Bun.sleep(1500);
  expect(gone.requests).toHaveLength(1);
  const events = await http.tool(TEAM.secret, "read_events", { roomId: goneRoom });
  expect(events.text).toContain(`"type":"webhook_disabled"`);
  expect(events.text).toContain(`"webhookId":"${goneHook}"`);
  // The work was shared: the 30 failed first attempts were made (and logged) by more than one process.
  const failedBy = servers.map(
    (s) =>
      s
        .output()
        .split("\n")
        .filter((l) => l.includes('"msg":"webhook attempt failed"') && l.includes(roomId)).length,
  );
  expect(failedBy.reduce((a, b) => a + b, 0)).toBe(30);
  expect(failedBy.filter((n) => n > 0).length).toBeGreaterThan(1);
  console.log(
    `[webhooks ${name}] 3 processes: 120 deliveries + 30 retries received once each, all delivered after ${ms} ms; failed first attempts per process ${JSON.stringify(failedBy)}`,
  );
}
