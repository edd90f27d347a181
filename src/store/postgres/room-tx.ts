/**
 * Room operations' transactions, as the SQLite driver's (src/store/sqlite/room-tx.ts): the kept result of an
 * idempotency key and the actor's presence (with its leases and claims renewed), in the operation's own
 * transaction. A write holds the room's advisory lock from its first statement, so every write of a room runs
 * alone, in every process; a read runs in one snapshot and records its actor afterwards, at most once per
 * PRESENCE_READ_EVERY_MS per agent.
 */
import { errors } from "../../protocol/errors.ts";
import { LIMITS } from "../../protocol/limits.ts";
import type { RoomScope } from "../types.ts";
import { createRenewal } from "./renewal.ts";
import { roomLock, type StoreParts } from "./rooms.ts";

const PRESENCE_READ_EVERY_MS = 15_000;
const SEEN_MEMORY = 10_000;

type RoomFn<A extends unknown[], T> = (scope: RoomScope, ...args: A) => Promise<T>;

export function roomTransactions({ pg, now, changes, rooms }: StoreParts) {
  const kept = pg.query<{ fingerprint: string; result: string; at: number }, [string, string]>(
    "SELECT fingerprint, result, at FROM idempotency WHERE room_id = ? AND key = ?",
  );
  const keep = pg.query<unknown, [string, string, string, string, number]>(
    `INSERT INTO idempotency (room_id, key, fingerprint, result, at) VALUES (?1, ?2, ?3, ?4, ?5)
     ON CONFLICT (room_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, result = excluded.result,
       at = excluded.at`,
  );
  const owner = pg.query<{ owner: string; last_activity: number }, [string]>(
    "SELECT owner, last_activity FROM rooms WHERE room_id = ?",
  );
  // Any call brings an agent that left back (left_at cleared). One statement: the row as it was (`before` reads
  // the statement's snapshot, taken before the upsert) and the upsert.
  const upsertSeen = pg.query<
    { last_seen: number | null; left_at: number | null; known: boolean },
    [string, string, number]
  >(
    `WITH before AS (SELECT last_seen, left_at FROM presence WHERE room_id = ?1 AND agent_id = ?2),
     up AS (INSERT INTO presence (room_id, agent_id, last_seen) VALUES (?1, ?2, ?3)
       ON CONFLICT (room_id, agent_id) DO UPDATE
       SET last_seen = greatest(presence.last_seen, excluded.last_seen), left_at = NULL)
     SELECT (SELECT last_seen FROM before) AS last_seen, (SELECT left_at FROM before) AS left_at,
       EXISTS (SELECT 1 FROM before) AS known`,
  );
  const renewal = createRenewal(pg);

  /** Records the agent's presence and renews its leases and claims; a presence signal when it comes online. */
  async function seen(roomId: string, agentId: string, t: number): Promise<void> {
    const before = await upsertSeen.get(roomId, agentId, t);
    await renewal.renew(roomId, agentId, t);
    if (!before?.known || before.left_at !== null || t - (before.last_seen ?? 0) >= LIMITS.presenceOnlineMs)
      changes.signal(roomId, "presence");
  }

  const ownedByTeam = async (scope: RoomScope, t: number) => {
    const row = await owner.get(scope.roomId);
    return row !== null && row.owner === scope.teamId && !rooms.isExpired(row, t);
  };

  async function replay(scope: RoomScope): Promise<{ value: unknown } | undefined> {
    const idem = scope.idempotency;
    if (!idem) return undefined;
    const row = await kept.get(scope.roomId, idem.key);
    if (!row || now() - row.at >= LIMITS.idempotencyKeepMs) return undefined;
    if (row.fingerprint !== idem.fingerprint) throw errors.idempotencyMismatch(idem.key);
    idem.replayed = true;
    return { value: JSON.parse(row.result) };
  }

  async function settle(scope: RoomScope, result: unknown, kept: boolean): Promise<void> {
    const t = now();
    if (!(scope.actor !== undefined || scope.idempotency) || !(await ownedByTeam(scope, t))) return;
    if (scope.actor !== undefined) await seen(scope.roomId, scope.actor, t);
    const idem = scope.idempotency;
    if (idem && kept)
      await keep.run(scope.roomId, idem.key, idem.fingerprint, JSON.stringify(result ?? null), t);
  }

  const lastSeenWrite = new Map<string, number>();
  /** Best effort, after a read: the actor's presence, throttled per agent. */
  async function flushSeen(scope: RoomScope, at: number): Promise<void> {
    if (!scope.actor) return;
    const id = `${scope.roomId}\n${scope.actor}`;
    if (at - (lastSeenWrite.get(id) ?? 0) < PRESENCE_READ_EVERY_MS) return;
    lastSeenWrite.delete(id);
    lastSeenWrite.set(id, at);
    if (lastSeenWrite.size > SEEN_MEMORY) lastSeenWrite.delete(lastSeenWrite.keys().next().value as string);
    try {
      await pg.write(
        [roomLock(scope.roomId)],
        async () => {
          if (await ownedByTeam(scope, at)) await seen(scope.roomId, scope.actor as string, at);
        },
        "presence",
      );
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
      return (scope, ...args) =>
        pg.write(
          [roomLock(scope.roomId)],
          async () => {
            const earlier = await replay(scope);
            if (earlier) return earlier.value as T;
            const result = await fn(scope, ...args);
            await settle(scope, result, keep(result));
            return result;
          },
          fn.name,
        );
    },
    /** A room read: fn in one snapshot; the actor's presence is recorded after it. */
    read<A extends unknown[], T>(fn: RoomFn<A, T>): (scope: RoomScope, ...args: A) => Promise<T> {
      return async (scope, ...args) => {
        const at = now();
        let result: T;
        try {
          result = await pg.read(() => fn(scope, ...args), fn.name);
        } finally {
          await rooms.flushReadTouch();
        }
        if (scope.actor !== undefined) await flushSeen(scope, at);
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
