/**
 * Dynamic and operator keys of a team, stored by digest only, as the SQLite driver's (src/store/sqlite/keys.ts);
 * resolveKey also charges the team's rate window. Writes run under the team's lock (index.ts), so the key count
 * and provisioning's "team exists" check are exact across processes. A note is free text kept as its JSON string
 * (PostgreSQL text cannot hold U+0000; JSON escapes it).
 */

import { errors } from "../../protocol/errors.ts";
import type { Clock } from "../../protocol/time.ts";
import type { KeyRecord, NewKey, RateDecision, RateRequest } from "../access-types.ts";
import type { Pg } from "./db.ts";
import { type Rate, teamBucket } from "./rate.ts";
import { KEY_COLUMNS, type KeyRow, toKey as toKeyRecord, toMs } from "./rows.ts";

/** The note is stored as its JSON string (see the header). */
const toKey = (row: KeyRow): KeyRecord =>
  toKeyRecord(row.note === null ? row : { ...row, note: JSON.parse(row.note) as string });

export function createKeys(pg: Pg, rate: Rate, now: Clock) {
  const byDigest = pg.query<KeyRow, [string, string]>(
    `SELECT ${KEY_COLUMNS} FROM keys WHERE team_id = ? AND digest = ?`,
  );
  const countKind = pg.query<{ c: number }, [string, string]>(
    "SELECT count(*) AS c FROM keys WHERE team_id = ? AND kind = ?",
  );
  // A team with keys or with rooms exists: provisioning never reaches into it (revisions §3.12).
  const anyKey = pg.query<{ one: number }, [string]>(
    `SELECT 1 AS one FROM keys WHERE team_id = ?1 UNION ALL SELECT 1 FROM rooms WHERE owner = ?1 LIMIT 1`,
  );
  // The key, and its team among the teams ever stored (the operators' list), in one statement.
  const insert = pg.query<
    KeyRow,
    [string, string, string, string, number, string | null, string | null, string, string | null]
  >(
    `WITH team AS (INSERT INTO teams (team_id, first_key_at) VALUES (?2, ?5) ON CONFLICT (team_id) DO NOTHING)
     INSERT INTO keys (key_id, team_id, kind, digest, created_at, note, bound_agent_id, hint, human_id)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) RETURNING ${KEY_COLUMNS}`,
  );
  const teams = pg.query<{ team_id: string }, []>("SELECT team_id FROM teams ORDER BY team_id");
  const list = pg.query<KeyRow, [string]>(
    `SELECT ${KEY_COLUMNS} FROM keys WHERE team_id = ? ORDER BY created_at, rowid`,
  );
  const remove = pg.query<unknown, [string, string]>("DELETE FROM keys WHERE key_id = ? AND team_id = ?");
  // The lookup and the charge in one statement: the charge (rate.ts) runs once per key found, never without one
  // (a LEFT JOIN LATERAL runs its right side for each row of its left side only).
  const byDigestCharged = pg.query<
    KeyRow & { allowed: boolean; remaining: number; reset_ms: number },
    [string, string, string, number, number, number]
  >(
    `WITH k AS (SELECT ${KEY_COLUMNS} FROM keys WHERE team_id = ?1 AND digest = ?2)
     SELECT k.*, c.allowed, c.remaining, c.reset_ms FROM k
     LEFT JOIN LATERAL roomd_rate_charge(?3, ?4, ?5, ?6) c ON true`,
  );

  async function store(key: NewKey): Promise<KeyRecord> {
    const createdAt = toMs(key.createdAt, "createdAt");
    const row = await insert.get(
      key.keyId,
      key.teamId,
      key.kind,
      key.digest,
      createdAt,
      key.note === undefined ? null : JSON.stringify(key.note),
      key.boundAgentId ?? null,
      key.hint,
      key.humanId ?? null,
    );
    if (!row) throw new Error("keys: insert returned no row");
    return toKey(row);
  }

  return {
    /** Any key of the team with this digest (operator keys authenticate too), without a charge. */
    async resolveKey(teamId: string, digest: string): Promise<{ key: KeyRecord | null }> {
      const row = await byDigest.get(teamId, digest);
      return { key: row ? toKey(row) : null };
    },
    /** resolveKey with a charge, as one statement (a transaction of its own: call it outside one). */
    async resolveKeyCharged(
      teamId: string,
      digest: string,
      request: RateRequest,
    ): Promise<{ key: KeyRecord | null; rate?: RateDecision }> {
      const bucket = teamBucket(teamId, request.bucket);
      const row = await byDigestCharged.get(teamId, digest, bucket, now(), request.windowMs, request.limit);
      if (!row) return { key: null };
      return { key: toKey(row), rate: rate.decision(row, request) };
    },
    async createKey(key: NewKey, maxKeys: number): Promise<KeyRecord> {
      if (((await countKind.get(key.teamId, "dynamic"))?.c ?? 0) >= maxKeys) throw errors.keyLimit(maxKeys);
      return store(key);
    },
    async provisionTeam(key: NewKey): Promise<KeyRecord> {
      if (await anyKey.get(key.teamId)) throw errors.teamExists(key.teamId);
      return store(key);
    },
    async listKeys(teamId: string): Promise<KeyRecord[]> {
      return (await list.all(teamId)).map(toKey);
    },
    async deleteKey(teamId: string, keyId: string): Promise<boolean> {
      return (await remove.run(keyId, teamId)).changes > 0;
    },
    async listTeams(): Promise<string[]> {
      return (await teams.all()).map((row) => row.team_id);
    },
    async consumeRate(teamId: string, request: RateRequest): Promise<RateDecision> {
      return rate.charge(teamBucket(teamId, request.bucket), request);
    },
  };
}
