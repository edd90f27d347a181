/**
 * The change feed (types.ts ChangeFeed): a write through another instance of the store (another connection, as
 * another process would have) is reported within a second, signals are reported by kind, and an unwatched room
 * reports nothing more. Reports are hints (a watcher reads what changed by seq), so the tests wait for the first
 * report that says enough.
 */
import { expect, test } from "bun:test";
import type { RoomChange, RoomScope, RoomStore } from "../../../src/store/types.ts";
import { claimedRoom, newTask, type Suite } from "./harness.ts";

/** Resolves with the first change of `roomId` that `wanted` accepts, or rejects after `ms`. */
function nextChange(store: RoomStore, roomId: string, wanted: (c: RoomChange) => boolean, ms = 1500) {
  return new Promise<RoomChange>((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`no matching change of ${roomId} within ${ms} ms`));
    }, ms);
    const stop = store.changes.watch(roomId, (change) => {
      if (!wanted(change)) return;
      clearTimeout(timer);
      stop();
      resolve(change);
    });
  });
}

/**
 * Waits until this instance's feed hears the room's writes made through the other instance. A fresh watch is
 * confirmed asynchronously (PostgreSQL's LISTEN connection opens on the first watch of a process, a Redis room's
 * sharded subscription on the room's first watcher), and how long that takes depends on the machine's load; so
 * rather than sleep a guess, this heartbeats through the other instance until the presence signal arrives. Call it
 * while the test's own watch is open (a room left without watchers may be unsubscribed). A heartbeat appends no
 * event, so the log the test looks at is untouched.
 */
async function untilHeard(suite: Suite, scope: RoomScope): Promise<void> {
  let heard = false;
  const stop = suite.store.changes.watch(scope.roomId, (c) => {
    heard ||= "signal" in c && c.signal === "presence";
  });
  try {
    const deadline = Date.now() + 10_000;
    while (!heard) {
      if (Date.now() > deadline)
        throw new Error(`the feed heard no write of another instance to ${scope.roomId} within 10 s`);
      await suite.second.heartbeat(scope, "listener-check", "here");
      await Bun.sleep(50);
    }
  } finally {
    stop();
  }
}

export function feedTests(suite: Suite): void {
  test("a write through another instance is reported with the log's new head within a second", async () => {
    const scope: RoomScope = await claimedRoom(suite.store);
    const seen = nextChange(suite.store, scope.roomId, (c) => "seq" in c && c.seq >= 1);
    await untilHeard(suite, scope);
    const task = await suite.second.addTask(scope, newTask("t"));
    expect(await seen).toEqual({ roomId: scope.roomId, seq: 1 });
    expect(task.id).toBeTruthy();
  });

  test("signals by kind: presence, locks, vars — from this instance and from another", async () => {
    const scope = await claimedRoom(suite.store);
    for (const [kind, write] of [
      ["presence", () => suite.second.heartbeat(scope, "a", "here")],
      ["locks", () => suite.store.acquireLock(scope, "r", "a", 30_000)],
      ["vars", () => suite.second.setVar(scope, "k", "v", "a")],
    ] as const) {
      const seen = nextChange(suite.store, scope.roomId, (c) => "signal" in c && c.signal === kind);
      await untilHeard(suite, scope);
      await write();
      expect(await seen).toEqual({ roomId: scope.roomId, signal: kind });
    }
  });

  test("a write right after watch() is never lost to a watcher that re-reads the log on every report", async () => {
    // As the live hub does: watch, read the head once, then re-read on every report (seq, signal or resync).
    for (let i = 0; i < 10; i++) {
      const scope = await claimedRoom(suite.store);
      let head = 0;
      const look = async () => {
        head = Math.max(head, (await suite.store.readLog(scope, 0, 1)).head);
      };
      const stop = suite.store.changes.watch(scope.roomId, () => void look());
      await look();
      await suite.second.postEvent(scope, { type: "e", from: "a", to: "all", payload: {} });
      for (let t = 0; t < 75 && head < 1; t++) await Bun.sleep(20);
      stop();
      expect(head).toBe(1);
    }
  });

  test("an unwatched room reports nothing more", async () => {
    const scope = await claimedRoom(suite.store);
    const reports: RoomChange[] = [];
    const stop = suite.store.changes.watch(scope.roomId, (c) => reports.push(c));
    await untilHeard(suite, scope);
    // The event is reported while watched (waited for, not slept on) ...
    await suite.second.postEvent(scope, { type: "e", from: "a", to: "all", payload: {} });
    const deadline = Date.now() + 10_000;
    while (!reports.some((c) => "seq" in c && c.seq > 0)) {
      if (Date.now() > deadline) throw new Error(`the event in ${scope.roomId} was not reported within 10 s`);
      await Bun.sleep(10);
    }
    stop();
    // ... and from the moment the watch stops, nothing more reaches it: not a late report, not the next event.
    const before = reports.length;
    await suite.second.postEvent(scope, { type: "e", from: "a", to: "all", payload: {} });
    await Bun.sleep(600);
    expect(reports.length).toBe(before);
  });

  test("R2-8 a room deleted through another instance is reported as seq 0, with or without events", async () => {
    for (const events of [0, 3]) {
      const scope = await claimedRoom(suite.store);
      for (let i = 0; i < events; i++)
        await suite.store.postEvent(scope, { type: "e", from: "a", to: "all", payload: {} });
      const gone = nextChange(suite.store, scope.roomId, (c) => "seq" in c && c.seq === 0);
      await untilHeard(suite, scope);
      await suite.second.deleteRoom(scope);
      expect(await gone).toEqual({ roomId: scope.roomId, seq: 0 });
    }
  });

  test("R2-8 a room deleted and made again at once (same team, another team): seq 0 comes before the new life's changes", async () => {
    for (const again of ["same team", "another team"]) {
      const scope = await claimedRoom(suite.store);
      const reports: RoomChange[] = [];
      const stop = suite.store.changes.watch(scope.roomId, (c) => reports.push(c));
      try {
        await untilHeard(suite, scope);
        const next = again === "same team" ? scope : { roomId: scope.roomId, teamId: `${scope.teamId}-b` };
        await suite.second.deleteRoom(scope);
        // A deletion and the next write are two requests, never in the same millisecond.
        suite.clock.advance(1);
        await suite.second.setVar(next, "k", "v", "a");
        const signalled = () => reports.findIndex((c) => "signal" in c && c.signal === "vars");
        for (let t = 0; t < 75 && signalled() < 0; t++) await Bun.sleep(20);
        const deleted = reports.findIndex((c) => "seq" in c && c.seq === 0);
        expect({ again, deleted: deleted >= 0, before: deleted < signalled() }).toEqual({
          again,
          deleted: true,
          before: true,
        });
      } finally {
        stop();
      }
    }
  });
}
