/**
 * What every room operation gets from RoomScope, in one place: the refusal of a suspended actor or caller, the kept
 * result of an idempotency key, and the actor's presence refresh, which also renews its live task leases and file
 * claims (Dialect.renew). The caller (RoomScope.caller) is only checked: it records no presence, writes nothing.
 *
 * A write looks its key up first (a kept result is returned as is, another fingerprint refused), then runs the
 * operation, then — only when it succeeded on a room the team owns — records the actor's last_seen and the kept
 * result, all in the operation's one transaction. A read changes nothing inside its transaction; its actor is
 * recorded afterwards in a small write of its own, at most once per PRESENCE_READ_EVERY_MS per agent.
 */
import { comesOnline, replaysKept } from "../../protocol/room-rules.ts";
import type { RoomScope } from "../types.ts";
import type { SqlParts } from "./rooms.ts";
import type { Op } from "./run.ts";
import { createSuspensionCheck } from "./suspensions.ts";

/** A reader's presence is recorded at most this often (presence stays online for 120 s). */
const PRESENCE_READ_EVERY_MS = 15_000;
/** Most agents whose read-time refresh is remembered; beyond it the oldest are forgotten (bounded memory). */
const SEEN_MEMORY = 10_000;

/** A room operation's body: its scope, then its arguments. */
export type RoomBody<A extends unknown[], T> = (scope: RoomScope, ...args: A) => Op<T>;

export function createRoomTx(parts: SqlParts) {
  const { sql, now, rooms, changes, dialect } = parts;
  const kept = sql.query<{ fingerprint: string; result: string; at: number }, [string, string]>(
    "SELECT fingerprint, result, at FROM idempotency WHERE room_id = ? AND key = ?",
  );
  const keep = sql.query<unknown, [string, string, string, string, number]>(
    `INSERT INTO idempotency (room_id, key, fingerprint, result, at) VALUES (?1, ?2, ?3, ?4, ?5)
     ON CONFLICT (room_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, result = excluded.result,
       at = excluded.at`,
  );
  const owner = sql.query<{ owner: string; last_activity: number }, [string]>(
    "SELECT owner, last_activity FROM rooms WHERE room_id = ?",
  );
  const { refuseSuspended } = createSuspensionCheck(parts);

  /**
   * Records the agent's presence and renews its live leases and claims; a presence signal when it comes online
   * (new, back from leave_room, or offline until now).
   */
  function* seen(roomId: string, agentId: string, t: number): Op<void> {
    const before = yield* dialect.markSeen(roomId, agentId, t);
    yield* dialect.renew(roomId, agentId, t);
    if (comesOnline(before, t)) changes.signal(roomId, "presence");
  }

  function* ownedByTeam(scope: RoomScope, t: number): Op<boolean> {
    const row = yield* owner.get(scope.roomId);
    return row !== null && row.owner === scope.teamId && !rooms.isExpired(row, t);
  }

  /** The kept result of the scope's key, or undefined; throws when the key was used with other arguments. */
  function* replay(scope: RoomScope): Op<{ value: unknown } | undefined> {
    const idem = scope.idempotency;
    if (!idem) return undefined;
    const row = yield* kept.get(scope.roomId, idem.key);
    if (!row || !replaysKept(row, idem, now())) return undefined;
    idem.replayed = true;
    return { value: JSON.parse(row.result) };
  }

  /** After a successful write: presence and the kept result, on a room the team owns. */
  function* settle(scope: RoomScope, result: unknown, kept: boolean): Op<void> {
    const t = now();
    if (!(scope.actor !== undefined || scope.idempotency) || !(yield* ownedByTeam(scope, t))) return;
    if (scope.actor !== undefined) yield* seen(scope.roomId, scope.actor, t);
    const idem = scope.idempotency;
    if (idem && kept)
      yield* keep.run(scope.roomId, idem.key, idem.fingerprint, JSON.stringify(result ?? null), t);
  }

  /** When each agent's presence was last recorded after a read (room and agent → ms), oldest first. */
  const lastSeenWrite = new Map<string, number>();

  return {
    /**
     * A room write's body: idempotency, then `fn`, then presence and the kept result. `keep` says whether a result
     * is kept under the idempotency key (a write that changed nothing need not be).
     */
    write<A extends unknown[], T>(
      fn: RoomBody<A, T>,
      keep: (result: T) => boolean = () => true,
    ): RoomBody<A, T> {
      return function* (scope, ...args) {
        // Most calls carry no key, and some no actor: their steps are skipped, not entered (a step costs ~0.1 µs).
        if (scope.actor !== undefined || scope.caller !== undefined) yield* refuseSuspended(scope);
        const earlier = scope.idempotency ? yield* replay(scope) : undefined;
        if (earlier) return earlier.value as T;
        const result = yield* fn(scope, ...args);
        if (scope.actor !== undefined || scope.idempotency) yield* settle(scope, result, keep(result));
        return result;
      };
    },
    /** A room read's body: a suspended actor's or caller's read is refused like its writes, in the read's snapshot. */
    read<A extends unknown[], T>(fn: RoomBody<A, T>): RoomBody<A, T> {
      return function* (scope, ...args) {
        if (scope.actor !== undefined || scope.caller !== undefined) yield* refuseSuspended(scope);
        return yield* fn(scope, ...args);
      };
    },
    /**
     * After a read at `at`: the body recording its actor's presence (in a write of its own), or null when there is
     * no actor or its presence was recorded less than PRESENCE_READ_EVERY_MS ago.
     */
    seenAfterRead(scope: RoomScope, at: number): Op<void> | null {
      const actor = scope.actor;
      if (!actor) return null;
      const id = `${scope.roomId}\n${actor}`;
      if (at - (lastSeenWrite.get(id) ?? 0) < PRESENCE_READ_EVERY_MS) return null;
      lastSeenWrite.delete(id);
      lastSeenWrite.set(id, at);
      if (lastSeenWrite.size > SEEN_MEMORY) lastSeenWrite.delete(lastSeenWrite.keys().next().value as string);
      return (function* () {
        if (yield* ownedByTeam(scope, at)) yield* seen(scope.roomId, actor, at);
      })();
    },
  };
}

export type RoomTx = ReturnType<typeof createRoomTx>;
