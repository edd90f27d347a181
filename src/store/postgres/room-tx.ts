/**
 * Room operations' transactions on PostgreSQL: the shared room body (store/sql/room-tx.ts: the kept result of an
 * idempotency key, the actor's presence) run inside this driver's transactions. A write holds the room's advisory
 * lock from its first statement, so every write of a room runs alone, in every process; a read runs in one
 * snapshot, and its actor is recorded afterwards in a small write of its own.
 */
import type { Clock } from "../../protocol/time.ts";
import { asyncStepOf } from "../sql/adapt.ts";
import type { RoomTx } from "../sql/room-tx.ts";
import type { Rooms } from "../sql/rooms.ts";
import { runAsync } from "../sql/run.ts";
import type { RoomScope } from "../types.ts";
import type { Pg } from "./db.ts";
import { roomLock } from "./rooms.ts";

type RoomFn<A extends unknown[], T> = (scope: RoomScope, ...args: A) => Promise<T>;

export function roomTransactions(pg: Pg, now: Clock, rooms: Rooms, roomTx: RoomTx) {
  /** Best-effort refresh of the rooms reads found idle, each in a write of its own; a failure must not fail the read. */
  async function touchAfterRead(): Promise<void> {
    for (const roomId of rooms.takeTouches()) {
      try {
        await pg.write([roomLock(roomId)], () => runAsync(rooms.touch(roomId)), "touch");
      } catch {
        // The read already succeeded; the next use refreshes the room.
      }
    }
  }

  /** Best effort, after a read: the actor's presence, throttled per agent. */
  async function seenAfterRead(scope: RoomScope, at: number): Promise<void> {
    const body = roomTx.seenAfterRead(scope, at);
    if (!body) return;
    try {
      await pg.write([roomLock(scope.roomId)], () => runAsync(body), "presence");
    } catch {
      // The read already succeeded; the agent's next call records it.
    }
  }

  return {
    /**
     * A room write: under the room's lock, idempotency, then fn, then presence and the kept result, in one
     * transaction, at one instant. `keep` says whether a result is kept under the idempotency key.
     */
    write<A extends unknown[], T>(
      fn: RoomFn<A, T>,
      keep: (result: T) => boolean = () => true,
    ): (scope: RoomScope, ...args: A) => Promise<T> {
      const body = roomTx.write(asyncStepOf(fn), keep);
      return (scope, ...args) =>
        pg.write([roomLock(scope.roomId)], () => runAsync(body(scope, ...args)), fn.name);
    },
    /** A room read: fn in one snapshot; the actor's presence is recorded after it. */
    read<A extends unknown[], T>(fn: RoomFn<A, T>): (scope: RoomScope, ...args: A) => Promise<T> {
      return async (scope, ...args) => {
        const at = now();
        let result: T;
        try {
          result = await pg.read(() => fn(scope, ...args), fn.name);
        } finally {
          await touchAfterRead();
        }
        if (scope.actor !== undefined) await seenAfterRead(scope, at);
        return result;
      };
    },
    /** Non-room writes (keys, limiter, admin) under the locks named by their first argument; reads in one snapshot. */
    plain: {
      write<A extends unknown[], T>(
        locks: (first: NoInfer<A>[0]) => string[],
        fn: (...args: A) => Promise<T>,
      ): (...args: A) => Promise<T> {
        return (...args) => pg.write(locks(args[0]), () => fn(...args), fn.name);
      },
      read<A extends unknown[], T>(fn: (...args: A) => Promise<T>): (...args: A) => Promise<T> {
        return (...args) => pg.read(() => fn(...args), fn.name);
      },
    },
  };
}
