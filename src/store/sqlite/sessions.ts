/**
 * People's web sessions (session-types.ts), by the SHA-256 digest of their id. Touching a session writes only when
 * its end is due to move (at most once a minute), so a page in use costs reads, not write locks.
 */
import type { Database } from "bun:sqlite";
import type { Clock } from "../../protocol/time.ts";
import { SESSION_RENEW_EVERY_MS, type SessionRecord, type StoredSession } from "../session-types.ts";
import { type SessionRow, storedSession } from "../sql/rows.ts";

/** How many ended sessions one prune statement deletes (the sweep runs batches until none is left). */
const PRUNE_BATCH = 500;

export function createSessions(db: Database, now: Clock) {
  const put = db.query<unknown, [string, string, number, number]>(
    `INSERT OR REPLACE INTO sessions (digest, json, expires_at, renewed_at) VALUES (?, ?, ?, ?)`,
  );
  const get = db.query<SessionRow, [string]>(
    "SELECT json, expires_at, renewed_at FROM sessions WHERE digest = ?",
  );
  const renew = db.query<unknown, [number, number, string]>(
    "UPDATE sessions SET expires_at = ?, renewed_at = ? WHERE digest = ?",
  );
  const remove = db.query<unknown, [string]>("DELETE FROM sessions WHERE digest = ?");
  const prune = db.query<unknown, [number, number]>(
    "DELETE FROM sessions WHERE rowid IN (SELECT rowid FROM sessions WHERE expires_at <= ? LIMIT ?)",
  );

  return {
    createSession(digest: string, record: SessionRecord, ttlMs: number): StoredSession {
      const at = now();
      const json = JSON.stringify({
        teamId: record.teamId,
        humanId: record.humanId,
        credential: record.credential,
        createdAt: record.createdAt,
      });
      put.run(digest, json, at + ttlMs, at);
      return storedSession({ json }, at + ttlMs);
    },

    /**
     * The session as it stands and whether its end is due to move (then the caller runs renewSession, a write);
     * "ended" for one past its end (renewSession deletes it), null for none. A read: no write lock.
     */
    peekSession(digest: string): { session: StoredSession; due: boolean } | "ended" | null {
      const row = get.get(digest);
      if (!row) return null;
      if (row.expires_at <= now()) return "ended";
      return {
        session: storedSession(row, row.expires_at),
        due: now() - row.renewed_at >= SESSION_RENEW_EVERY_MS,
      };
    },

    /** Slides the session's end (inside a write transaction); null when it ended meanwhile (deleted then). */
    renewSession(digest: string, ttlMs: number): StoredSession | null {
      const at = now();
      const row = get.get(digest);
      if (!row) return null;
      if (row.expires_at <= at) {
        remove.run(digest);
        return null;
      }
      if (at - row.renewed_at < SESSION_RENEW_EVERY_MS) return storedSession(row, row.expires_at);
      renew.run(at + ttlMs, at, digest);
      return storedSession(row, at + ttlMs);
    },

    deleteSession(digest: string): boolean {
      const row = get.get(digest);
      if (!row) return false;
      remove.run(digest);
      return row.expires_at > now();
    },

    /** Deletes a batch of ended sessions; returns how many went. */
    pruneBatch(): number {
      return prune.run(now(), PRUNE_BATCH).changes;
    },
  };
}
