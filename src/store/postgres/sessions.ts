/**
 * People's web sessions (session-types.ts), by the SHA-256 digest of their id, as the SQLite driver's
 * (src/store/sqlite/sessions.ts). Every operation is one statement (atomic on its own, no transaction around it):
 * touching a session reads it, and writes only when its end is due to move (at most once a minute) or it has ended,
 * so a page in use costs reads, not row locks.
 */
import type { Clock } from "../../protocol/time.ts";
import { SESSION_RENEW_EVERY_MS, type SessionRecord, type StoredSession } from "../session-types.ts";
import { type SessionRow, storedSession } from "../sql/rows.ts";
import type { Pg } from "./db.ts";

/** How many ended sessions one prune statement deletes (the sweep runs batches until none is left). */
const PRUNE_BATCH = 500;

export function createSessions(pg: Pg, now: Clock) {
  const put = pg.query<unknown, [string, string, number, number]>(
    `INSERT INTO sessions (digest, json, expires_at, renewed_at) VALUES (?1, ?2, ?3, ?4)
     ON CONFLICT (digest) DO UPDATE SET json = excluded.json, expires_at = excluded.expires_at,
       renewed_at = excluded.renewed_at`,
  );
  const get = pg.query<SessionRow, [string]>(
    "SELECT json, expires_at, renewed_at FROM sessions WHERE digest = ?",
  );
  // Slides a live session's end when it is due (?4: the renewal interval), else answers it as it is; an ended one
  // is deleted (and answers no row). One statement: the branches read one snapshot and their predicates exclude
  // each other; a concurrent renewal of the same row re-checks `due` once it has the row, so it moves once.
  const renew = pg.query<{ json: string; expires_at: number }, [string, number, number, number]>(
    `WITH gone AS (DELETE FROM sessions WHERE digest = ?1 AND expires_at <= ?2),
       moved AS (UPDATE sessions SET expires_at = ?2::bigint + ?3::bigint, renewed_at = ?2
                 WHERE digest = ?1 AND expires_at > ?2 AND ?2 - renewed_at >= ?4 RETURNING json, expires_at)
     SELECT json, expires_at FROM moved
     UNION ALL
     SELECT json, expires_at FROM sessions WHERE digest = ?1 AND expires_at > ?2 AND ?2 - renewed_at < ?4`,
  );
  const remove = pg.query<{ expires_at: number }, [string]>(
    "DELETE FROM sessions WHERE digest = ? RETURNING expires_at",
  );
  const prune = pg.query<unknown, [number, number]>(
    "DELETE FROM sessions WHERE digest IN (SELECT digest FROM sessions WHERE expires_at <= ? LIMIT ?)",
  );

  return {
    async createSession(digest: string, record: SessionRecord, ttlMs: number): Promise<StoredSession> {
      const at = now();
      const json = JSON.stringify({
        teamId: record.teamId,
        humanId: record.humanId,
        credential: record.credential,
        createdAt: record.createdAt,
      });
      await put.run(digest, json, at + ttlMs, at);
      return storedSession({ json }, at + ttlMs);
    },

    async touchSession(digest: string, ttlMs: number): Promise<StoredSession | null> {
      const at = now();
      const row = await get.get(digest);
      if (!row) return null;
      if (row.expires_at > at && at - row.renewed_at < SESSION_RENEW_EVERY_MS) {
        return storedSession(row, row.expires_at);
      }
      // Due to move, or ended (then deleted): the write.
      const after = await renew.get(digest, at, ttlMs, SESSION_RENEW_EVERY_MS);
      return after ? storedSession(after, after.expires_at) : null;
    },

    async deleteSession(digest: string): Promise<boolean> {
      const row = await remove.get(digest);
      return row !== null && row.expires_at > now();
    },

    /** Deletes a batch of ended sessions; returns how many went. */
    async pruneBatch(): Promise<number> {
      return (await prune.run(now(), PRUNE_BATCH)).changes;
    },
  };
}
