/**
 * How the SQLite driver runs the shared bodies (store/sql/store.ts Runner): each body synchronously, inside one of
 * this driver's transactions. A write runs in BEGIN IMMEDIATE with the other writes of the same turn, in its own
 * savepoint (group-commit.ts); a room write also holds the clock at one instant, as a Redis script has its NOW, so
 * the renewal after the operation sets the same expiries the operation just wrote. A read runs in a deferred
 * transaction; its actor is recorded afterwards in a small IMMEDIATE write of its own.
 */
import type { Database } from "bun:sqlite";
import type { Clock } from "../../protocol/time.ts";
import type { RoomBody, RoomTx } from "../sql/room-tx.ts";
import { type Op, runSync } from "../sql/run.ts";
import type { Runner } from "../sql/store.ts";
import type { RoomScope } from "../types.ts";
import { type TxHooks, transactions } from "./tx.ts";

/** A clock that can be held at one instant for the length of a write. */
export interface FrozenClock {
  now: Clock;
  /** Holds now() at the current instant until thaw(). */
  freeze(): void;
  thaw(): void;
}

export function frozenClock(base: Clock): FrozenClock {
  let held: number | undefined;
  return {
    now: () => held ?? base(),
    freeze: () => {
      held = base();
    },
    thaw: () => {
      held = undefined;
    },
  };
}

export function sqliteRunner(db: Database, roomTx: RoomTx, hooks: TxHooks, clock: FrozenClock): Runner {
  const tx = transactions(db, hooks);
  let pendingSeen: Op<void> | null = null;

  /** Best effort, after a read committed: the actor's presence, in an IMMEDIATE transaction of its own. */
  function flushSeen(): void {
    const pending = pendingSeen;
    pendingSeen = null;
    if (!pending) return;
    try {
      db.transaction(() => runSync(pending)).immediate();
      hooks.afterWrite(true);
    } catch {
      // The read already succeeded; the agent's next call records it.
      hooks.afterWrite(false);
    }
  }

  return {
    roomWrite<A extends unknown[], T>(body: RoomBody<A, T>, keep?: (result: T) => boolean) {
      const full = roomTx.write(body, keep);
      return tx.write((scope: RoomScope, ...args: A): T => {
        clock.freeze();
        try {
          return runSync(full(scope, ...args));
        } finally {
          clock.thaw();
        }
      }, body.name);
    },
    roomRead<A extends unknown[], T>(body: RoomBody<A, T>) {
      const guarded = roomTx.read(body);
      const inner = tx.read((scope: RoomScope, ...args: A): T => {
        const result = runSync(guarded(scope, ...args));
        pendingSeen = roomTx.seenAfterRead(scope, clock.now());
        return result;
      }, body.name);
      return async (scope: RoomScope, ...args: A): Promise<T> => {
        try {
          return await inner(scope, ...args);
        } finally {
          flushSeen();
        }
      };
    },
    // One process's writes all hold the file's write lock: there is nothing finer to lock.
    write: <A extends unknown[], T>(_locks: unknown, body: (...args: A) => Op<T>) =>
      tx.write((...args: A) => runSync(body(...args)), body.name),
    read: <A extends unknown[], T>(body: (...args: A) => Op<T>) =>
      tx.read((...args: A) => runSync(body(...args)), body.name),
  };
}
