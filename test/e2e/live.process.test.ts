/**
 * Live rooms end to end, on every driver: one roomd in this process (A) and one separate `bun src/index.ts`
 * process (B) on the same store. Streams and waits on one process see writes made through the other; a reconnect
 * with Last-Event-ID resumes exactly, under load, on either process; waits consume exactly once; a client that
 * goes leaves nothing behind.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient, postTool } from "../support/http.ts";
import { connect, type RoomClient } from "../support/mcp-client.ts";
import { prng } from "../support/prng.ts";
import {
  type InProcessServer,
  type SpawnedServer,
  spawnServer,
  startInProcess,
  TEAM_A,
  TEAM_B,
} from "../support/server.ts";
import { eventsOf, openSse, type SseReader } from "../support/sse.ts";
import { E2E_STORES, newRoomId, sqliteE2e } from "../support/stores.ts";

type Json = Record<string, any>;
const KEYS = [TEAM_A, TEAM_B].map((k) => `${k.teamId}:${k.secret}`).join(",");

/** Collects a stream's events until `count` have arrived, then closes it. */
async function collect(reader: SseReader, count: number, ms = 10_000) {
  await reader.until((r) => eventsOf(r).length >= count, ms);
  reader.close();
  return eventsOf(reader);
}

for (const make of E2E_STORES) {
  const backing = make();
  describe(`live rooms on ${backing.name}`, () => {
    let store: RoomStore;
    let a: InProcessServer;
    let b: SpawnedServer;
    let onA: RoomClient;
    let onB: RoomClient;
    const stream = (
      server: { url: string },
      roomId: string,
      query = "",
      headers: Record<string, string> = {},
    ) => openSse({ url: `${server.url}/rooms/${roomId}/stream${query}`, secret: TEAM_A.secret, headers });
    const post = (client: RoomClient, roomId: string, extra: Json = {}) =>
      client.call<Json>("post_event", { roomId, from: "writer", type: "note", payload: {}, ...extra });

    beforeAll(async () => {
      // The shared Redis backings keep every test file's rooms: no room or rate limit may get in the way.
      const unlimited = { RATE_LIMIT_PER_MINUTE: "1000000", ROOMS_PER_TEAM: "1000000" };
      store = await backing.open();
      a = startInProcess(store, undefined, unlimited);
      b = await spawnServer({ ...(await backing.env()), API_KEYS: KEYS, ...unlimited });
      onA = await connect(a.url, TEAM_A.secret);
      onB = await connect(b.url, TEAM_A.secret);
    });
    afterAll(async () => {
      await onA?.close();
      await onB?.close();
      await b?.stop();
      await a?.stop();
      await store?.close();
    });

    test("a stream on one process receives an event posted through the other within 1 s", async () => {
      const roomId = newRoomId();
      await post(onA, roomId, { type: "opened" });
      for (const [watching, writing] of [
        [b, onA],
        [a, onB],
      ] as const) {
        const reader = await stream(watching, roomId);
        expect(reader.status).toBe(200);
        expect(reader.headers.get("content-type")).toBe("text/event-stream");
        expect(reader.headers.get("cache-control")).toBe("no-store");
        expect(reader.headers.get("x-accel-buffering")).toBe("no");
        const sent = await post(writing, roomId, { type: "ping" });
        const acked = performance.now();
        const first = await reader.message(0, 1000);
        expect(performance.now() - acked).toBeLessThan(1000);
        expect(reader.retry).toBe(2000);
        // Without after or Last-Event-ID the stream starts with the next new event: "opened" is not replayed.
        expect(first).toEqual({ event: "message", id: String(sent.seq), data: expect.any(String) });
        expect(JSON.parse(first.data)).toEqual(sent);
        reader.close();
      }
    });

    test("after replays the log, then goes live; the filters keep only what was asked", async () => {
      const roomId = newRoomId();
      const posted: Json[] = [];
      for (let i = 0; i < 6; i++) {
        posted.push(
          await post(onA, roomId, { type: i % 2 ? "odd" : "even", to: i % 3 === 0 ? "bob" : "all" }),
        );
      }
      const all = await stream(b, roomId, "?after=2");
      const forBob = await stream(b, roomId, "?after=0&agentId=carol");
      const odd = await stream(a, roomId, "?after=0&types=odd,other");
      posted.push(await post(onB, roomId, { type: "odd", to: "carol" }));
      expect((await collect(all, 5)).map((e) => e.seq)).toEqual(posted.slice(2).map((e) => e.seq));
      // Events to "all" and to carol; those to bob are not hers.
      const carol = posted.filter((e) => e.to === "all" || e.to === "carol");
      expect((await collect(forBob, carol.length)).map((e) => e.seq)).toEqual(carol.map((e) => e.seq));
      const odds = posted.filter((e) => e.type === "odd");
      expect((await collect(odd, odds.length)).map((e) => e.seq)).toEqual(odds.map((e) => e.seq));
    });

    test("Last-Event-ID resumes exactly, on either process, while 8 writers append (4 clients reconnecting)", async () => {
      const roomId = newRoomId();
      await post(onA, roomId, { type: "start" });
      const WRITERS = 8;
      const EACH = 25;
      const total = 1 + WRITERS * EACH;
      const writers = Array.from({ length: WRITERS }, async (_, w) => {
        const client = w % 2 ? onB : onA;
        for (let i = 0; i < EACH; i++) {
          await post(client, roomId, { type: `w${w}`, payload: { i } });
          // Spread the writes out, so reconnects keep landing while the log grows (and during replays).
          if (i % 5 === 4) await Bun.sleep(10 + w);
        }
      });
      const rand = prng(7);
      const clients = Array.from({ length: 4 }, async (_, c) => {
        const seen: number[] = [];
        let reconnects = 0;
        while (seen.length < total) {
          const server = (c + reconnects) % 2 ? b : a;
          const last = seen.at(-1);
          // The first connection replays from the start with after=0; every later one resumes by Last-Event-ID.
          const reader =
            last === undefined
              ? await stream(server, roomId, "?after=0")
              : await stream(server, roomId, "?after=99999", { "Last-Event-ID": String(last) });
          const want = Math.min(total - seen.length, 1 + Math.floor(rand() * 20));
          const got = await collect(reader, want);
          // The client "drops" after `want` events, whatever else had arrived: it resumes after the last it took.
          seen.push(...got.slice(0, want).map((e) => e.seq));
          reconnects++;
        }
        return { seen, reconnects };
      });
      await Promise.all(writers);
      for (const { seen, reconnects } of await Promise.all(clients)) {
        expect(reconnects).toBeGreaterThan(4);
        expect(seen).toEqual(Array.from({ length: total }, (_, i) => i + 1));
      }
    });

    test("a resume point beyond the room's last event starts with the next new event (a reset log)", async () => {
      const roomId = newRoomId();
      await post(onA, roomId);
      const reader = await stream(b, roomId, "", { "Last-Event-ID": "99999" });
      const next = await post(onA, roomId, { type: "after-reset" });
      expect((await collect(reader, 1)).map((e) => e.seq)).toEqual([next.seq]);
    });

    test("R2-8 a stream on another process ends when its room is deleted, whoever makes the room again", async () => {
      const admin = httpClient(a.url);
      // The three cases side by side: each waits out the coalescing of signals below.
      const cases = [null, TEAM_A, TEAM_B] as const;
      await Promise.all(
        cases.map(async (again) => {
          const roomId = newRoomId();
          for (let i = 0; i < 3; i++) await post(onA, roomId);
          const reader = await stream(b, roomId);
          expect(reader.status).toBe(200);
          // Past the one-second coalescing of signals: the writer's presence signal is sent before the deletion.
          await Bun.sleep(1100);
          expect((await admin.del(`/admin/rooms/${roomId}`, TEAM_A.secret)).status).toBe(200);
          const seen = reader.messages.length;
          if (again !== null) {
            // The room made again at once: a signal and events of its new life must not reach the old stream.
            const owner = again === TEAM_A ? onA : await connect(a.url, TEAM_B.secret);
            await owner.call("heartbeat", { roomId, agentId: "newcomer", statusText: "here" });
            await owner.call("set_shared_var", { roomId, key: "k", value: "v", agentId: "newcomer" });
            await post(owner, roomId, { type: "reborn" });
            if (owner !== onA) await owner.close();
          }
          await reader.until((r) => r.ended, 5000);
          expect({ again: again?.teamId ?? "nobody", after: reader.messages.slice(seen) }).toEqual({
            again: again?.teamId ?? "nobody",
            after: [],
          });
          reader.close();
        }),
      );
    });

    test("wait_for_events with types and an idempotencyKey consumes what it returns, once; a retry replays it", async () => {
      const roomId = newRoomId();
      await post(onA, roomId, { type: "opened", to: "gina" });
      await post(onA, roomId, { type: "ping", to: "gina" });
      const args = { roomId, agentId: "gina", timeoutSeconds: 0, types: ["ping"], idempotencyKey: "w-1" };
      const first = await onB.call<Json>("wait_for_events", args);
      expect(first.events.map((e: Json) => e.type)).toEqual(["opened", "ping"]);
      expect(first).toMatchObject({ cursor: 2, count: 2, remaining: 0, timedOut: false });
      const retry = await onA.call<Json>("wait_for_events", args);
      expect(retry.events.map((e: Json) => e.seq)).toEqual([1, 2]);
      expect(retry.replayed).toBe(true);
      const after = await onA.call<Json>("get_unread_events", { roomId, agentId: "gina" });
      expect(after.events).toEqual([]);
    });

    test("a reader 1,500 events behind is sent every one of them, in order", async () => {
      const roomId = newRoomId();
      await post(onA, roomId);
      // Setting the log up through the store directly: 1,499 tool calls would only slow the test down.
      const scope = { roomId, teamId: TEAM_A.teamId };
      for (let i = 0; i < 1499; i++)
        await store.postEvent(scope, { type: "bulk", from: "w", to: "all", payload: { i } });
      const reader = await stream(b, roomId, "?after=0");
      const got = await collect(reader, 1500, 20_000);
      expect(got.map((e) => e.seq)).toEqual(Array.from({ length: 1500 }, (_, i) => i + 1));
    });

    test("signals: a shared variable set on one process reaches a stream on the other as event: signal", async () => {
      const roomId = newRoomId();
      await post(onA, roomId);
      const reader = await stream(b, roomId);
      // The stream is joined once its answer started; give the watch a moment to be in place on every driver.
      await Bun.sleep(300);
      await onA.call("set_shared_var", { roomId, key: "k", value: "1", agentId: "alice" });
      // alice's call also marks her present: a presence signal may come first.
      const vars = { event: "signal", data: JSON.stringify({ kind: "vars" }) };
      await reader.until((r) => r.messages.some((m) => m.event === "signal" && m.data === vars.data), 3000);
      expect(reader.messages.filter((m) => m.event === "signal" && m.data === vars.data)).toEqual([vars]);
      // Signals carry no id: they are not part of the log and a reconnect does not resume them.
      expect(reader.messages.filter((m) => m.event === "signal").every((m) => m.id === undefined)).toBe(true);
      reader.close();
    });

    test("wait_for_events on one process returns within 1 s of a post on the other", async () => {
      const roomId = newRoomId();
      await post(onA, roomId, { type: "opened" });
      // alice's cursor is at the head: the wait has to wait.
      await onB.call("get_unread_events", { roomId, agentId: "alice" });
      for (const [waiting, writing] of [
        [onB, onA],
        [onA, onB],
      ] as const) {
        const wait = waiting.call<Json>("wait_for_events", { roomId, agentId: "alice", timeoutSeconds: 10 });
        await Bun.sleep(200);
        const sent = await post(writing, roomId, { type: "to-alice", to: "alice" });
        const acked = performance.now();
        const result = await wait;
        expect(performance.now() - acked).toBeLessThan(1000);
        expect(result).toEqual({ events: [sent], cursor: sent.seq, count: 1, remaining: 0, timedOut: false });
      }
    });

    test("8 concurrent waiters on one agent id, on both processes, receive each event exactly once", async () => {
      const roomId = newRoomId();
      await post(onA, roomId, { type: "opened", to: "someone-else" });
      const POSTS = 40;
      const received: number[] = [];
      let done = false;
      const waiters = Array.from({ length: 8 }, async (_, w) => {
        const client = w % 2 ? onB : onA;
        while (!done) {
          const r = await client.call<Json>("wait_for_events", {
            roomId,
            agentId: "bob",
            timeoutSeconds: 1,
            limit: 3,
          });
          received.push(...r.events.map((e: Json) => e.seq));
        }
      });
      const sent: number[] = [];
      for (let i = 0; i < POSTS; i++) {
        sent.push((await post(i % 2 ? onA : onB, roomId, { to: i % 4 === 0 ? "all" : "bob" })).seq);
        if (i % 5 === 0) await Bun.sleep(20);
      }
      for (let t = 0; t < 500 && received.length < POSTS; t++) await Bun.sleep(20);
      done = true;
      await Promise.all(waiters);
      expect([...received].sort((x, y) => x - y)).toEqual(sent);
    });

    test("a wait with nothing to deliver times out with timedOut: true and no events", async () => {
      const roomId = newRoomId();
      await post(onA, roomId, { to: "someone-else" });
      const result = await onB.call<Json>("wait_for_events", { roomId, agentId: "dave", timeoutSeconds: 1 });
      expect(result).toEqual({ events: [], cursor: null, count: 0, remaining: 0, timedOut: true });
      const other = await onA.call<Json>("wait_for_events", { roomId, agentId: "dave", timeoutSeconds: 0 });
      expect(other.timedOut).toBe(true);
    });

    test("with types, only those types end the wait, and every unread event is returned", async () => {
      const roomId = newRoomId();
      await post(onA, roomId, { type: "opened", to: "erin" });
      await onA.call("get_unread_events", { roomId, agentId: "erin" });
      const wait = onB.call<Json>("wait_for_events", {
        roomId,
        agentId: "erin",
        timeoutSeconds: 10,
        types: ["review_done"],
      });
      await Bun.sleep(200);
      const chatter = await post(onA, roomId, { type: "chatter", to: "erin" });
      await Bun.sleep(300);
      const done = await post(onA, roomId, { type: "review_done", to: "all" });
      const result = await wait;
      expect(result.timedOut).toBe(false);
      expect(result.events.map((e: Json) => e.seq)).toEqual([chatter.seq, done.seq]);
    });

    test("a waiting client that disconnects leaves nothing behind: no hub, the next event stays unread", async () => {
      const roomId = newRoomId();
      await post(onA, roomId, { type: "opened", to: "frank" });
      await onA.call("get_unread_events", { roomId, agentId: "frank" });
      const gone = new AbortController();
      const pending = postTool(
        a.url,
        TEAM_A.secret,
        "wait_for_events",
        { roomId, agentId: "frank", timeoutSeconds: 30 },
        gone.signal,
      ).catch(() => "aborted");
      await Bun.sleep(300);
      expect(a.live.rooms).toBe(1);
      gone.abort();
      expect(await pending).toBe("aborted");
      for (let i = 0; i < 50 && a.live.rooms > 0; i++) await Bun.sleep(20);
      expect(a.live.rooms).toBe(0);
      const later = await post(onB, roomId, { to: "frank" });
      const unread = await onB.call<Json>("get_unread_events", { roomId, agentId: "frank" });
      expect(unread.events).toEqual([later]);
    });
  });
}

describe("stream input and limits (sqlite)", () => {
  const backing = sqliteE2e();
  let store: RoomStore;
  let server: InProcessServer;
  const http = () => httpClient(server.url);
  const roomId = newRoomId();
  const otherRoom = newRoomId();
  const teamBRoom = newRoomId();
  /** Opens a stream as team A, or with `secret` ("" for no bearer at all). */
  const open = (path: string, secret = TEAM_A.secret, headers: Record<string, string> = {}) =>
    openSse({ url: `${server.url}${path}`, ...(secret ? { secret } : {}), headers });

  beforeAll(async () => {
    store = await backing.open();
    server = startInProcess(store, undefined, { STREAMS_PER_TEAM: "3", STREAMS_PER_PROCESS: "5" });
    for (const [room, key] of [
      [roomId, TEAM_A],
      [otherRoom, TEAM_A],
      [teamBRoom, TEAM_B],
    ] as const) {
      expect((await http().post("/admin/rooms", key.secret, { roomId: room })).status).toBe(201);
    }
  });
  afterAll(async () => {
    await server?.stop();
    await store?.close();
  });

  test("unknown room, another team's room and an invite for another room: 404, nothing said about it", async () => {
    const invite = (
      await http().post(`/admin/rooms/${otherRoom}/invite`, TEAM_A.secret, { agentId: "guest" })
    ).body;
    for (const [path, secret] of [
      [`/rooms/${newRoomId()}/stream`, TEAM_A.secret],
      [`/rooms/${teamBRoom}/stream`, TEAM_A.secret],
      [`/rooms/${roomId}/stream`, invite.token],
      [`/rooms/bad%20id!/stream`, TEAM_A.secret],
    ] as const) {
      const reader = await open(path, secret);
      expect(reader.status).toBe(404);
      expect(reader.error).toEqual({ error: "Room not found or access denied" });
    }
    expect((await open(`/rooms/${roomId}/stream`, "")).status).toBe(401);
    expect((await open(`/rooms/${roomId}/stream`, "rk_nope_0000000000000000")).status).toBe(401);
    expect(server.live.rooms).toBe(0);
  });

  test("bad after, Last-Event-ID, agentId and types: 400 naming the input", async () => {
    const cases: Array<[string, Record<string, string>, string]> = [
      ["?after=abc", {}, "after must be an event seq"],
      ["?after=-1", {}, "after must be an event seq"],
      ["?after=1e3", {}, "after must be an event seq"],
      ["", { "Last-Event-ID": "x" }, "Last-Event-ID must be an event seq"],
      ["?agentId=bad%20agent", {}, "agentId must be"],
      [`?types=${Array.from({ length: 21 }, (_, i) => `t${i}`).join(",")}`, {}, "types must be at most 20"],
      [`?types=${"x".repeat(200)}`, {}, "types must be at most 20"],
      ["?types=a,,b", {}, "types must be at most 20"],
    ];
    for (const [query, headers, message] of cases) {
      const reader = await open(`/rooms/${roomId}/stream${query}`, TEAM_A.secret, headers);
      expect(reader.status).toBe(400);
      expect(reader.error.error).toContain(message);
    }
    expect(server.live.rooms).toBe(0);
  });

  test("an invite and a bound key are held to their agent", async () => {
    const invite = (await http().post(`/admin/rooms/${roomId}/invite`, TEAM_A.secret, { agentId: "guest" }))
      .body;
    const key = (await http().post("/admin/keys", TEAM_A.secret, { boundAgentId: "bound" })).body;
    const refused = await open(`/rooms/${roomId}/stream?agentId=other`, key.secret);
    expect(refused.status).toBe(403);
    expect(refused.error).toEqual({ error: "This key is bound to agent bound" });
    const asGuest = await open(`/rooms/${roomId}/stream`, invite.token);
    const asBound = await open(`/rooms/${roomId}/stream`, key.secret);
    expect([asGuest.status, asBound.status]).toEqual([200, 200]);
    const owner = await connect(server.url, TEAM_A.secret);
    for (const to of ["guest", "bound", "all"]) {
      await owner.call("post_event", { roomId, from: "owner", type: "note", payload: {}, to });
    }
    expect((await collect(asGuest, 2)).map((e) => e.to)).toEqual(["guest", "all"]);
    expect((await collect(asBound, 2)).map((e) => e.to)).toEqual(["bound", "all"]);
    await owner.close();
  });

  test("too many streams: 429 with Retry-After per team, then per process; closing one frees its place", async () => {
    const mine = await Promise.all([1, 2, 3].map(() => open(`/rooms/${roomId}/stream`)));
    expect(mine.map((r) => r.status)).toEqual([200, 200, 200]);
    const fourth = await open(`/rooms/${otherRoom}/stream`);
    expect(fourth.status).toBe(429);
    expect(fourth.headers.get("retry-after")).toBe("5");
    expect(fourth.error.error).toContain("STREAMS_PER_TEAM");
    const theirs = await Promise.all([1, 2].map(() => open(`/rooms/${teamBRoom}/stream`, TEAM_B.secret)));
    expect(theirs.map((r) => r.status)).toEqual([200, 200]);
    const sixth = await open(`/rooms/${teamBRoom}/stream`, TEAM_B.secret);
    expect(sixth.status).toBe(429);
    expect(sixth.error.error).toContain("STREAMS_PER_PROCESS");
    // A public stream (no key) counts against the same process limit.
    const watcherOfPublic = await openSse({ url: `${server.url}/room/${roomId}/stream` });
    expect(watcherOfPublic.status).toBe(429);
    expect(watcherOfPublic.error.error).toContain("STREAMS_PER_PROCESS");
    mine[0]?.close();
    let again = await open(`/rooms/${roomId}/stream`);
    for (let i = 0; i < 50 && again.status === 429; i++) {
      await Bun.sleep(20);
      again = await open(`/rooms/${roomId}/stream`);
    }
    expect(again.status).toBe(200);
    for (const r of [...mine, ...theirs, again]) r.close();
    for (let i = 0; i < 50 && server.live.rooms > 0; i++) await Bun.sleep(20);
    expect(server.live.rooms).toBe(0);
  });

  test("an idle stream reads nothing from the store", async () => {
    const quiet = startInProcess(store, undefined, {}, Date.now);
    try {
      // Count the store's log reads while streams sit idle.
      let reads = 0;
      const readLog = store.readLog.bind(store);
      store.readLog = (...args) => {
        reads++;
        return readLog(...args);
      };
      const readers = await Promise.all(
        Array.from({ length: 20 }, () =>
          openSse({ url: `${quiet.url}/rooms/${roomId}/stream`, secret: TEAM_A.secret }),
        ),
      );
      await Bun.sleep(300);
      const settled = reads;
      await Bun.sleep(1500);
      expect(reads - settled).toBe(0);
      store.readLog = readLog;
      for (const r of readers) r.close();
    } finally {
      await quiet.stop();
    }
  });
});
