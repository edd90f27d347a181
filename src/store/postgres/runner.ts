/**
 * How the PostgreSQL driver runs the shared bodies (store/sql/store.ts Runner): each body asynchronously, every
 * statement awaited, inside one transaction of db.ts. A write holds the advisory locks it names (a room write: its
 * room's, from its first statement), so every write of a room runs alone, in every process, while different rooms
 * proceed in parallel; a read runs in one REPEATABLE READ snapshot, and its actor is recorded afterwards in a small
 * write of its own.
 */
import type { Clock } from "../../protocol/time.ts";
import { roomLock } from "../sql/parts.ts";
import type { RoomBody, RoomTx } from "../sql/room-tx.ts";
import type { Rooms } from "../sql/rooms.ts";
import { type Op, runAsync } from "../sql/run.ts";
import type { Runner } from "../sql/store.ts";
import type { RoomScope } from "../types.ts";
import type { Pg } from "./db.ts";

export function pgRunner(pg: Pg, now: Clock, rooms: Rooms, roomTx: RoomTx): Runner {
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

  /** Best effort, after a read: the actor's presence, throttled per agent (room-tx.ts seenAfterRead). */
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
    roomWrite<A extends unknown[], T>(body: RoomBody<A, T>, keep?: (result: T) => boolean) {
      const full = roomTx.write(body, keep);
      return (scope: RoomScope, ...args: A) =>
        pg.write([roomLock(scope.roomId)], () => runAsync(full(scope, ...args)), body.name);
    },
    roomRead<A extends unknown[], T>(body: RoomBody<A, T>) {
      const guarded = roomTx.read(body);
      return async (scope: RoomScope, ...args: A): Promise<T> => {
        const at = now();
        let result: T;
        try {
          result = await pg.read(() => runAsync(guarded(scope, ...args)), body.name);
        } finally {
          await touchAfterRead();
        }
        if (scope.actor !== undefined) await seenAfterRead(scope, at);
        return result;
      };
    },
    write<A extends unknown[], T>(locks: (first: NoInfer<A>[0]) => string[], body: (...args: A) => Op<T>) {
      return (...args: A) => pg.write(locks(args[0]), () => runAsync(body(...args)), body.name);
    },
    read<A extends unknown[], T>(body: (...args: A) => Op<T>) {
      return (...args: A) => pg.read(() => runAsync(body(...args)), body.name);
    },
  };
}
