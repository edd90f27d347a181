/**
 * Room operations' transactions: what every room operation gets from RoomScope, in one place — the kept result of
 * an idempotency key (revisions §1.5) and the actor's presence refresh (revisions §3.10).
 *
 * The actor's presence also renews its live task leases and file claims (renewal.ts).
 *
 * A write runs in BEGIN IMMEDIATE: the key is looked up first (a kept result is returned as is, another
 * fingerprint refused), then the operation, then — only when it succeeded on a room the team owns — the actor's
 * last_seen and the kept result, all in the same transaction. A read changes nothing inside its transaction; its
 * actor is recorded afterwards in a small separate write, at most once per PRESENCE_READ_EVERY_MS per agent.
 */
import { errors } from "../../protocol/errors.ts";
import { LIMITS } from "../../protocol/limits.ts";
import type { Clock } from "../../protocol/time.ts";
import type { RoomScope } from "../types.ts";
import { createRenewal } from "./renewal.ts";
import type { StoreParts } from "./rooms.ts";
import { type TxHooks, transactions } from "./tx.ts";

/** A reader's presence is recorded at most this often (presence stays online for 120 s). */
const PRESENCE_READ_EVERY_MS = 15_000;
/** Most agents whose read-time refresh is remembered; beyond it the oldest are forgotten (bounded memory). */
const SEEN_MEMORY = 10_000;

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
  { db, now, changes, rooms }: StoreParts,
  hooks: TxHooks,
  clock?: Pick<FrozenClock, "freeze" | "thaw">,
) {
  const { read, write } = transactions(db, hooks);
  const kept = db.query<{ fingerprint: string; result: string; at: number }, [string, string]>(
    "SELECT fingerprint, result, at FROM idempotency WHERE room_id = ? AND key = ?",
  );
  const keep = db.query<unknown, [string, string, string, string, number]>(
    "INSERT OR REPLACE INTO idempotency (room_id, key, fingerprint, result, at) VALUES (?, ?, ?, ?, ?)",
  );
  const owner = db.query<{ owner: string; last_activity: number }, [string]>(
    "SELECT owner, last_activity FROM rooms WHERE room_id = ?",
  );
  // Any call brings an agent that left back (left_at cleared).
  const upsertSeen = db.query<unknown, [string, string, number]>(
    `INSERT INTO presence (room_id, agent_id, last_seen) VALUES (?1, ?2, ?3)
     ON CONFLICT (room_id, agent_id) DO UPDATE
     SET last_seen = max(presence.last_seen, excluded.last_seen), left_at = NULL`,
  );
  const renewal = createRenewal(db);
  const lastSeen = db.query<{ last_seen: number; left_at: number | null }, [string, string]>(
    "SELECT last_seen, left_at FROM presence WHERE room_id = ? AND agent_id = ?",
  );
  /**
   * Records the agent's presence and renews its live leases and claims; a presence signal when it comes online
   * (new, back from leave_room, or offline until now).
   */
  function seen(roomId: string, agentId: string, t: number): void {
    const before = lastSeen.get(roomId, agentId);
    upsertSeen.run(roomId, agentId, t);
    renewal.renew(roomId, agentId, t);
    if (!before || before.left_at !== null || t - before.last_seen >= LIMITS.presenceOnlineMs)
      changes.signal(roomId, "presence");
  }

  const ownedByTeam = (scope: RoomScope, t: number) => {
    const row = owner.get(scope.roomId);
    return row !== null && row.owner === scope.teamId && !rooms.isExpired(row, t);
  };

  /** The kept result of the scope's key, or undefined; throws when the key was used with other arguments. */
  function replay(scope: RoomScope): { value: unknown } | undefined {
    const idem = scope.idempotency;
    if (!idem) return undefined;
    const row = kept.get(scope.roomId, idem.key);
    if (!row || now() - row.at >= LIMITS.idempotencyKeepMs) return undefined;
    if (row.fingerprint !== idem.fingerprint) throw errors.idempotencyMismatch(idem.key);
    idem.replayed = true;
    return { value: JSON.parse(row.result) };
  }

  /** After a successful write: presence and the kept result, on a room the team owns. */
  function settle(scope: RoomScope, result: unknown, kept: boolean): void {
    const t = now();
    if (!(scope.actor !== undefined || scope.idempotency) || !ownedByTeam(scope, t)) return;
    if (scope.actor !== undefined) seen(scope.roomId, scope.actor, t);
    const idem = scope.idempotency;
    if (idem && kept) keep.run(scope.roomId, idem.key, idem.fingerprint, JSON.stringify(result ?? null), t);
  }

  const lastSeenWrite = new Map<string, number>();
  let pendingSeen: { scope: RoomScope; at: number } | null = null;
  /** Best effort, after a read committed: the actor's presence, throttled per agent. */
  function flushSeen(): void {
    const pending = pendingSeen;
    pendingSeen = null;
    if (!pending?.scope.actor) return;
    const id = `${pending.scope.roomId}\n${pending.scope.actor}`;
    if (pending.at - (lastSeenWrite.get(id) ?? 0) < PRESENCE_READ_EVERY_MS) return;
    lastSeenWrite.delete(id);
    lastSeenWrite.set(id, pending.at);
    if (lastSeenWrite.size > SEEN_MEMORY) lastSeenWrite.delete(lastSeenWrite.keys().next().value as string);
    try {
      db.transaction(() => {
        if (ownedByTeam(pending.scope, pending.at))
          seen(pending.scope.roomId, pending.scope.actor as string, pending.at);
      }).immediate();
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
      return write((scope: RoomScope, ...args: A): T => {
        clock?.freeze();
        try {
          const earlier = replay(scope);
          if (earlier) return earlier.value as T;
          const result = fn(scope, ...args);
          settle(scope, result, keep(result));
          return result;
        } finally {
          clock?.thaw();
        }
      }, fn.name);
    },
    /** A room read: fn in a deferred transaction; the actor's presence is recorded after it. */
    read<A extends unknown[], T>(fn: RoomFn<A, T>): (scope: RoomScope, ...args: A) => Promise<T> {
      const inner = read((scope: RoomScope, ...args: A): T => {
        const result = fn(scope, ...args);
        if (scope.actor !== undefined) pendingSeen = { scope, at: now() };
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
