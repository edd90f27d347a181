/**
 * The live hub and the stream on a real SQLite store: one hub per room whatever the number of watchers, signals
 * coalesced to one per second per kind, a bounded cache with the store behind it, keep-alives on an idle stream.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LIMITS } from "../protocol/limits.ts";
import { openStore } from "../store/index.ts";
import type { RoomScope, RoomStore, SignalKind } from "../store/types.ts";
import { CACHE_BYTES, CACHE_EVENTS, createLiveRooms, type LiveRooms, RoomGone, type Watcher } from "./hub.ts";
import { openRoomStream } from "./stream.ts";
import { waitForEvents } from "./wait.ts";

let store: RoomStore;
let live: LiveRooms;
const scope: RoomScope = { roomId: "hub-room", teamId: "t" };

beforeEach(async () => {
  const path = join(mkdtempSync(join(tmpdir(), "roomd-hub-")), "roomd.sqlite");
  store = await openStore(
    { store: "sqlite", sqlitePath: path, storeTimeoutMs: 5000, roomsPerTeam: 100 },
    Date.now,
  );
  live = createLiveRooms(store);
  await store.postEvent(scope, { type: "open", from: "a", to: "all", payload: {} });
});
afterEach(async () => {
  live.close();
  await store.close();
});

function watcher(): Watcher & { events: number; signals: SignalKind[] } {
  const w = {
    events: 0,
    signals: [] as SignalKind[],
    onEvents() {
      w.events++;
    },
    onSignal(kind: SignalKind) {
      w.signals.push(kind);
    },
  };
  return w;
}

const post = (i: number) => store.postEvent(scope, { type: "e", from: "a", to: "all", payload: { i } });

describe("live hub", () => {
  test("one hub per room for any number of watchers; it closes with its last watcher", async () => {
    const hubs = await Promise.all(Array.from({ length: 50 }, () => live.join(scope, watcher())));
    expect(live.rooms).toBe(1);
    expect(hubs.every((h) => h.exists && h.head === 1)).toBe(true);
    for (const hub of hubs.slice(1)) hub.leave();
    expect(live.rooms).toBe(1);
    hubs[0]?.leave();
    expect(live.rooms).toBe(0);
  });

  test("a room of another team cannot be joined, and leaves no hub behind", async () => {
    await expect(live.join({ roomId: scope.roomId, teamId: "other" }, watcher())).rejects.toThrow(
      "Room not found or access denied",
    );
    expect(live.rooms).toBe(0);
  });

  test("new events are read once for every watcher, then each is woken", async () => {
    let reads = 0;
    const readLog = store.readLog.bind(store);
    store.readLog = (...args) => {
      reads++;
      return readLog(...args);
    };
    const watchers = Array.from({ length: 20 }, () => watcher());
    const hubs = await Promise.all(watchers.map((w) => live.join(scope, w)));
    await Bun.sleep(20);
    // The hub's first look woke them once already; count from here.
    for (const w of watchers) w.events = 0;
    const before = reads;
    await post(1);
    for (let i = 0; i < 50 && watchers.some((w) => w.events === 0); i++) await Bun.sleep(10);
    expect(watchers.every((w) => w.events >= 1)).toBe(true);
    // One read for the hub, not one per watcher; each watcher then takes the event from the cache.
    expect(reads - before).toBe(1);
    const got = await Promise.all(hubs.map((h) => h.eventsAfter(1, 10)));
    expect(reads - before).toBe(1);
    expect(got.map((events) => events.map((e) => e.seq))).toEqual(hubs.map(() => [2]));
  });

  test("a join that finds the store ahead of the hub wakes the watchers already there", async () => {
    // A feed that reports nothing: the hub learns of new events only from the second join's own read.
    const silent: RoomStore = { ...store, changes: { watch: () => () => {} } };
    const rooms = createLiveRooms(silent);
    try {
      const first = watcher();
      const hub = await rooms.join(scope, first);
      await Bun.sleep(20);
      first.events = 0;
      for (let i = 0; i < 3; i++) await post(i);
      const second = await rooms.join(scope, watcher());
      expect(second.start).toBe(4);
      for (let i = 0; i < 50 && first.events === 0; i++) await Bun.sleep(10);
      expect(first.events).toBeGreaterThan(0);
      expect((await hub.eventsAfter(1, 10)).map((e) => e.seq)).toEqual([2, 3, 4]);
    } finally {
      rooms.close();
    }
  });

  test("a room that changed owner: the new team's hub keeps hearing after the old team's watcher leaves", async () => {
    const first = watcher();
    const old = await live.join(scope, first);
    await store.deleteRoom(scope);
    const other: RoomScope = { roomId: scope.roomId, teamId: "t2" };
    await store.postEvent(other, { type: "open", from: "b", to: "all", payload: {} });
    const second = watcher();
    const hub = await live.join(other, second);
    old.leave();
    await Bun.sleep(20);
    second.events = 0;
    await store.postEvent(other, { type: "e", from: "b", to: "all", payload: {} });
    for (let i = 0; i < 50 && second.events === 0; i++) await Bun.sleep(10);
    expect(second.events).toBeGreaterThan(0);
    expect((await hub.eventsAfter(1, 10)).map((e) => e.seq)).toEqual([2]);
  });

  test("R2-8 a room deleted under a hub: each watcher is told RoomGone, nothing of the next life reaches it", async () => {
    for (const teamId of ["t", "t2"]) {
      const gone: unknown[] = [];
      const w = { ...watcher(), onEvents: (error?: unknown) => void (error && gone.push(error)) };
      const signals: SignalKind[] = [];
      w.onSignal = (kind: SignalKind) => void signals.push(kind);
      await live.join(scope, w);
      await store.deleteRoom(scope);
      expect(gone.map((e) => e instanceof RoomGone)).toEqual([true]);
      expect(live.rooms).toBe(0);
      // The room made again (by the same team or another): its signals and events go to no old watcher.
      const next: RoomScope = { roomId: scope.roomId, teamId };
      await store.setVar(next, "k", "v", "b");
      await store.postEvent(next, { type: "open", from: "b", to: "all", payload: {} });
      await Bun.sleep(50);
      expect({ gone: gone.length, signals }).toEqual({ gone: 1, signals: [] });
      // A new join watches the new life: a hub of its own, at the new log's head.
      const fresh = await live.join(next, watcher());
      expect({ teamId, head: fresh.head, hubs: live.rooms }).toEqual({
        teamId,
        head: (await store.readLog(next, 0, 1)).head,
        hubs: 1,
      });
      fresh.leave();
      if (teamId === "t2") await store.deleteRoom(next);
      await store.postEvent(scope, { type: "open", from: "a", to: "all", payload: {} });
    }
  });

  test("R2-8 a wait on a room that is deleted under it returns then, with nothing", async () => {
    await store.consumeEvents(scope, "w", 100);
    const waiting = waitForEvents({ store, live, scope, agent: "w", limit: 10, timeoutMs: 600_000 });
    for (let i = 0; i < 50 && live.rooms === 0; i++) await Bun.sleep(10);
    expect(live.rooms).toBe(1);
    await store.deleteRoom(scope);
    // Without the deletion ending it, this would wait ten minutes: the test would fail on its own timeout.
    expect(await waiting).toMatchObject({ count: 0, events: [], timedOut: true });
    expect(live.rooms).toBe(0);
  });

  test("the cache is bounded in bytes: large events beyond it are read from the store again", async () => {
    let reads = 0;
    const readLog = store.readLog.bind(store);
    store.readLog = (...args) => {
      reads++;
      return readLog(...args);
    };
    const hub = await live.join(scope, watcher());
    const big = "x".repeat(60_000);
    for (let i = 0; i < 100; i++)
      await store.postEvent(scope, { type: "big", from: "a", to: "all", payload: { big } });
    for (let i = 0; i < 200 && hub.head < 101; i++) await Bun.sleep(10);
    const before = reads;
    // 100 events of ~60 KB are more than the cache holds (CACHE_BYTES): the oldest come from the store.
    const first = await hub.eventsAfter(1, 10);
    expect(first.map((e) => e.seq)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(reads - before).toBe(1);
    const last = await hub.eventsAfter(100, 10);
    expect(last.map((e) => e.seq)).toEqual([101]);
    expect(reads - before).toBe(1);
    expect(CACHE_BYTES).toBeLessThan(100 * 60_000);
  });

  test("signals are coalesced to one per second per kind; kinds do not hold each other back", async () => {
    const w = watcher();
    await live.join(scope, w);
    for (let i = 0; i < 5; i++) await store.setVar(scope, "k", String(i), "a");
    await store.acquireLock(scope, "r", "a", 30_000);
    await Bun.sleep(50);
    expect(w.signals.filter((k) => k === "vars")).toEqual(["vars"]);
    expect(w.signals).toContain("locks");
    // The burst's later sets are not dropped: one more vars signal follows within the second.
    await Bun.sleep(1100);
    expect(w.signals.filter((k) => k === "vars")).toEqual(["vars", "vars"]);
  });

  test("an agent going offline (time passing, no write) is signalled once, when it happens", async () => {
    // The heartbeat is recorded as if it were made 120 s minus 300 ms ago: the agent goes offline in 300 ms.
    const path = join(mkdtempSync(join(tmpdir(), "roomd-hub-")), "roomd.sqlite");
    const settings = { store: "sqlite", sqlitePath: path, storeTimeoutMs: 5000, roomsPerTeam: 100 } as const;
    const earlier = await openStore(settings, () => Date.now() - LIMITS.presenceOnlineMs + 300);
    const rooms = createLiveRooms(earlier);
    try {
      await earlier.postEvent(scope, { type: "open", from: "a", to: "all", payload: {} });
      await earlier.heartbeat(scope, "a", "about to leave");
      const w = watcher();
      await rooms.join(scope, w);
      await Bun.sleep(100);
      expect(w.signals).toEqual([]);
      await Bun.sleep(700);
      expect(w.signals).toEqual(["presence"]);
      // Read now, with the real clock, the agent is offline.
      const reader = await openStore(settings, Date.now);
      expect((await reader.getPresence(scope))[0]?.status).toBe("offline");
      await reader.close();
    } finally {
      rooms.close();
      await earlier.close();
    }
  });

  test(`a watcher more than ${CACHE_EVENTS} events behind is served from the store, in order`, async () => {
    const hub = await live.join(scope, watcher());
    for (let i = 0; i < CACHE_EVENTS + 300; i++) await post(i);
    for (let i = 0; i < 100 && hub.head < CACHE_EVENTS + 301; i++) await Bun.sleep(10);
    const seqs: number[] = [];
    for (let after = 0; after < hub.head; ) {
      const page = await hub.eventsAfter(after, 100);
      seqs.push(...page.map((e) => e.seq));
      after = page.at(-1)?.seq ?? hub.head;
    }
    expect(seqs).toEqual(Array.from({ length: CACHE_EVENTS + 301 }, (_, i) => i + 1));
  });
});

describe("room stream", () => {
  const read = async (body: ReadableStream<Uint8Array>, until: (text: string) => boolean) => {
    const reader = body.getReader();
    let text = "";
    while (!until(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    reader.releaseLock();
    return text;
  };

  test("retry first, then a keep-alive comment while idle; cancelling frees the hub", async () => {
    let closed = 0;
    const body = await openRoomStream({
      join: (w) => live.join(scope, w),
      after: null,
      keepAliveMs: 50,
      onClose: () => closed++,
    });
    const text = await read(body, (t) => t.includes(": keep-alive\n\n"));
    expect(text.startsWith("retry: 2000\n\n")).toBe(true);
    expect(text).not.toContain("data:");
    await body.cancel();
    expect(closed).toBe(1);
    expect(live.rooms).toBe(0);
  });

  test("a join that fails leaves nothing open and calls onClose once", async () => {
    let closed = 0;
    await expect(
      openRoomStream({
        join: () => Promise.reject(new Error("denied")),
        after: 0,
        keepAliveMs: 50,
        onClose: () => closed++,
      }),
    ).rejects.toThrow("denied");
    expect(closed).toBe(1);
  });

  test("shutdown ends every stream", async () => {
    const body = await openRoomStream({
      join: (w) => live.join(scope, w),
      after: 0,
      keepAliveMs: 10_000,
      onClose: () => {},
    });
    const first = await read(body, (t) => t.includes("id: 1\n"));
    expect(first).toContain('"seq":1');
    live.close();
    const rest = await read(body, () => false);
    expect(rest).toBe("");
    expect(live.rooms).toBe(0);
  });
});
