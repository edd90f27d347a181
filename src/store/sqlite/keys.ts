/** Dynamic and operator keys of a team, stored by digest only; resolveKey also charges the team's rate window. */

import type { Database } from "bun:sqlite";
import { errors } from "../../protocol/errors.ts";
import type { KeyRecord, NewKey, RateDecision, RateRequest } from "../access-types.ts";
import { type Rate, teamBucket } from "./rate.ts";
import { KEY_COLUMNS, type KeyRow, toKey, toMs } from "./rows.ts";

export function createKeys(db: Database, rate: Rate) {
  const byDigest = db.query<KeyRow, [string, string]>(
    `SELECT ${KEY_COLUMNS} FROM keys WHERE team_id = ? AND digest = ?`,
  );
  const countKind = db.query<{ c: number }, [string, string]>(
    "SELECT count(*) AS c FROM keys WHERE team_id = ? AND kind = ?",
  );
  // A team with keys or with rooms exists: provisioning never reaches into it (revisions §3.12).
  const anyKey = db.query<{ one: number }, [string]>(
    `SELECT 1 AS one FROM keys WHERE team_id = ?1 UNION ALL SELECT 1 FROM rooms WHERE owner = ?1 LIMIT 1`,
  );
  const insert = db.query<
    KeyRow,
    [string, string, string, string, number, string | null, string | null, string, string | null]
  >(
    `INSERT INTO keys (key_id, team_id, kind, digest, created_at, note, bound_agent_id, hint, human_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${KEY_COLUMNS}`,
  );
  const list = db.query<KeyRow, [string]>(
    `SELECT ${KEY_COLUMNS} FROM keys WHERE team_id = ? ORDER BY created_at, rowid`,
  );
  const remove = db.query<unknown, [string, string]>("DELETE FROM keys WHERE key_id = ? AND team_id = ?");
  const noteTeam = db.query<unknown, [string, number]>(
    "INSERT OR IGNORE INTO teams (team_id, first_key_at) VALUES (?, ?)",
  );
  const teams = db.query<{ team_id: string }, []>("SELECT team_id FROM teams ORDER BY team_id");

  function store(key: NewKey): KeyRecord {
    const createdAt = toMs(key.createdAt, "createdAt");
    noteTeam.run(key.teamId, createdAt);
    const row = insert.get(
      key.keyId,
      key.teamId,
      key.kind,
      key.digest,
      createdAt,
      key.note ?? null,
      key.boundAgentId ?? null,
      key.hint,
      key.humanId ?? null,
    );
    if (!row) throw new Error("keys: insert returned no row");
    return toKey(row);
  }

  return {
    /** Any key of the team with this digest (operator keys authenticate too); charges only a found key. */
    resolveKey(
      teamId: string,
      digest: string,
      request?: RateRequest,
    ): { key: KeyRecord | null; rate?: RateDecision } {
      const row = byDigest.get(teamId, digest);
      if (!row) return { key: null };
      const key = toKey(row);
      return request ? { key, rate: rate.charge(teamBucket(teamId, request.bucket), request) } : { key };
    },
    createKey(key: NewKey, maxKeys: number): KeyRecord {
      if ((countKind.get(key.teamId, "dynamic")?.c ?? 0) >= maxKeys) throw errors.keyLimit(maxKeys);
      return store(key);
    },
    provisionTeam(key: NewKey): KeyRecord {
      if (anyKey.get(key.teamId)) throw errors.teamExists(key.teamId);
      return store(key);
    },
    listKeys(teamId: string): KeyRecord[] {
      return list.all(teamId).map(toKey);
    },
    deleteKey(teamId: string, keyId: string): boolean {
      return remove.run(keyId, teamId).changes > 0;
    },
    listTeams(): string[] {
      return teams.all().map((row) => row.team_id);
    },
    consumeRate(teamId: string, request: RateRequest): RateDecision {
      return rate.charge(teamBucket(teamId, request.bucket), request);
    },
  };
}
