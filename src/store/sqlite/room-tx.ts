/**
 * Room operations' transactions on SQLite: the shared room body (store/sql/room-tx.ts: the kept result of an
 * idempotency key, the actor's presence) run inside this driver's transactions. A write runs in BEGIN IMMEDIATE,
 * with the other writes of the same turn (group-commit.ts), at one instant; a read runs in a deferred transaction,
 * and its actor is recorded afterwards in a small write of its own.
 */
import type { Database } from "bun:sqlite";
import type { Clock } from "../../protocol/time.ts";
import { stepOf } from "../sql/adapt.ts";
import type { RoomTx } from "../sql/room-tx.ts";
import { type Op, runSync } from "../sql/run.ts";
import type { RoomScope } from "../types.ts";
import { type TxHooks, transactions } from "./tx.ts";

type RoomFn<A extends unknown[], T> = (scope: RoomScope, ...args: A) => T;

/** A clock that can be held at one instant for the length of a write (see roomTransactions). */
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

export function roomTransactions(
  db: Database,
  roomTx: RoomTx,
  hooks: TxHooks,
  clock: Pick<FrozenClock, "now" | "freeze" | "thaw">,
) {
  const { read, write } = transactions(db, hooks);
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
    /**
     * A room write: idempotency, then fn, then presence and the kept result, in one IMMEDIATE transaction, all at
     * one instant (the clock is held from when the write lock is taken). `keep` says whether a result is kept
     * under the idempotency key (a write that changed nothing need not be).
     */
    write<A extends unknown[], T>(
      fn: RoomFn<A, T>,
      keep: (result: T) => boolean = () => true,
    ): (scope: RoomScope, ...args: A) => Promise<T> {
      const body = roomTx.write(stepOf(fn), keep);
      return write((scope: RoomScope, ...args: A): T => {
        clock.freeze();
        try {
          return runSync(body(scope, ...args));
        } finally {
          clock.thaw();
        }
      }, fn.name);
    },
    /** A room read: fn in a deferred transaction; the actor's presence is recorded after it. */
    read<A extends unknown[], T>(fn: RoomFn<A, T>): (scope: RoomScope, ...args: A) => Promise<T> {
      const inner = read((scope: RoomScope, ...args: A): T => {
        const result = fn(scope, ...args);
        pendingSeen = roomTx.seenAfterRead(scope, clock.now());
        return result;
      }, fn.name);
      return async (scope, ...args) => {
        try {
          return await inner(scope, ...args);
        } finally {
          flushSeen();
        }
      };
    },
    /** Non-room operations (keys, limiter, admin). */
    plain: { read, write },
  };
}
