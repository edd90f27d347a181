/**
 * The change feed of the SQLite driver (types.ts ChangeFeed). Writes of this process queue their changes inside
 * the transaction and report them right after it commits (nothing is reported for a rolled-back one). Writes of
 * other processes on the same file are noticed by polling `PRAGMA data_version` every POLL_MS while any room is
 * watched — a statement that reads no table — and, only when it moved, one query for the watched rooms' heads and
 * signal counters. Nothing runs while nothing is watched. A room deleted by another process (its row gone, its
 * owner or creation time changed, its head gone down) is reported as seq 0 before anything of its next life, as
 * this process's own deletions are. (A room's life is its owner and creation time: one made again by the same team
 * in the same millisecond, between two looks, is not told apart from the one deleted.)
 */
import type { Database } from "bun:sqlite";
import type { ChangeFeed, RoomChange, SignalKind } from "../types.ts";

const POLL_MS = 50;

type Listener = (change: RoomChange) => void;

interface Known {
  seq: number;
  /** "<owner> <created_at>": which life of the room this is (null: no room). */
  life: string | null;
  signals: Map<string, number>;
}

export interface SqliteFeed {
  readonly feed: ChangeFeed;
  /** Inside a write transaction: the room's log reached `seq`. */
  appended(roomId: string, seq: number): void;
  /** Inside a write transaction: a signal of the room (its counter is bumped in the same transaction). */
  signal(roomId: string, kind: SignalKind): void;
  /** After the transaction committed: reports what it queued. */
  committed(): void;
  /** After it rolled back: forgets what it queued. */
  rolledBack(): void;
  /** How many reports are queued (an operation's savepoint starts here). */
  mark(): number;
  /** Forgets the reports queued since `mark` (the operation was rolled back to its savepoint). */
  discard(mark: number): void;
  close(): void;
}

export function createSqliteFeed(db: Database): SqliteFeed {
  const listeners = new Map<string, Set<Listener>>();
  const known = new Map<string, Known>();
  let queued: RoomChange[] = [];
  let timer: ReturnType<typeof setInterval> | undefined;
  let version = 0;

  const bump = db.query<unknown, [string, string]>(
    `INSERT INTO signals (room_id, kind, v) VALUES (?1, ?2, 1)
     ON CONFLICT (room_id, kind) DO UPDATE SET v = v + 1`,
  );
  const dataVersion = db.query<{ data_version: number }, []>("PRAGMA data_version");
  const heads = db.query<
    { room_id: string; seq: number; life: string; kind: string | null; v: number | null },
    [string]
  >(
    `SELECT r.room_id, r.event_seq AS seq, r.owner || ' ' || r.created_at AS life, s.kind, s.v FROM rooms r
     LEFT JOIN signals s ON s.room_id = r.room_id
     WHERE r.room_id IN (SELECT value FROM json_each(?1))`,
  );

  function emit(change: RoomChange): void {
    for (const listener of listeners.get(change.roomId) ?? []) {
      try {
        listener(change);
      } catch {
        // One watcher's failure must not cost the others their changes.
      }
    }
  }

  /** The watched rooms' heads and signal counters as the file holds them now. */
  function read(roomIds: string[]): Map<string, Known> {
    const state = new Map<string, Known>(
      roomIds.map((id) => [id, { seq: 0, life: null, signals: new Map() }]),
    );
    for (const row of heads.all(JSON.stringify(roomIds))) {
      const room = state.get(row.room_id) as Known;
      room.seq = row.seq;
      room.life = row.life;
      if (row.kind !== null && row.v !== null) room.signals.set(row.kind, row.v);
    }
    return state;
  }

  /** Reports what other processes changed since the last look. */
  function poll(): void {
    try {
      const now = dataVersion.get()?.data_version ?? 0;
      if (now === version) return;
      version = now;
      for (const [roomId, fresh] of read([...listeners.keys()])) {
        const before = known.get(roomId);
        known.set(roomId, fresh);
        if (!before) continue;
        // Another process deleted the room (and perhaps made it again): said first, before its next life's news.
        const ended = before.life !== null && (fresh.life !== before.life || fresh.seq < before.seq);
        if (ended) emit({ roomId, seq: 0 });
        if (fresh.seq > (ended ? 0 : before.seq)) emit({ roomId, seq: fresh.seq });
        for (const [kind, v] of fresh.signals) {
          if (v !== before.signals.get(kind)) emit({ roomId, signal: kind as SignalKind });
        }
      }
    } catch {
      // A busy or closed file: the next tick looks again.
    }
  }

  const feed: ChangeFeed = {
    watch(roomId, onChange) {
      // The version is taken before the room's heads: a commit of another process in between moves it, so the
      // next poll looks again rather than missing that commit.
      if (!timer) {
        version = dataVersion.get()?.data_version ?? 0;
        timer = setInterval(poll, POLL_MS);
        timer.unref?.();
      }
      let set = listeners.get(roomId);
      if (!set) {
        set = new Set();
        listeners.set(roomId, set);
        known.set(roomId, read([roomId]).get(roomId) as Known);
      }
      set.add(onChange);
      return () => {
        set.delete(onChange);
        // A second call, or one after the room's set was replaced, must not remove a newer watcher's set.
        if (set.size > 0 || listeners.get(roomId) !== set) return;
        listeners.delete(roomId);
        known.delete(roomId);
        if (listeners.size === 0 && timer) {
          clearInterval(timer);
          timer = undefined;
        }
      };
    },
  };

  return {
    feed,
    appended(roomId, seq) {
      queued.push({ roomId, seq });
    },
    signal(roomId, kind) {
      bump.run(roomId, kind);
      queued.push({ roomId, signal: kind });
    },
    committed() {
      const changes = queued;
      queued = [];
      const ended = new Set<string>();
      for (const change of changes) {
        const room = known.get(change.roomId);
        if (room && "seq" in change) room.seq = change.seq === 0 ? 0 : Math.max(room.seq, change.seq);
        if (room && "seq" in change && change.seq === 0) ended.add(change.roomId);
        if (room && "signal" in change)
          room.signals.set(change.signal, (room.signals.get(change.signal) ?? 0) + 1);
        emit(change);
      }
      // A room this process deleted (and perhaps made again in the same transaction): what the poll compares
      // with is the room as it is now, so the deletion already reported is not reported again.
      if (ended.size > 0)
        for (const [roomId, room] of read([...ended])) if (known.has(roomId)) known.set(roomId, room);
    },
    rolledBack() {
      queued = [];
    },
    mark: () => queued.length,
    discard(mark) {
      queued.length = Math.min(queued.length, mark);
    },
    close() {
      if (timer) clearInterval(timer);
      timer = undefined;
      listeners.clear();
    },
  };
}
