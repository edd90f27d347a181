/**
 * Dynamic and operator keys of a team, stored by digest only. Writes hold the team's records (the SQLite file's
 * write lock, or the team's advisory lock), so the key count and provisioning's "team exists" check are exact
 * across processes. A key's note is free text, stored as the dialect keeps text (Dialect.text). Charging a rate
 * window with the lookup is each driver's own (its rate limiter).
 */
import { errors } from "../../protocol/errors.ts";
import type { KeyRecord, NewKey } from "../access-types.ts";
import type { SqlBase } from "./parts.ts";
import { KEY_COLUMNS, type KeyRow, perDialect, toMs, toKey as toRecord } from "./rows.ts";
import type { Op } from "./run.ts";

/** A key's columns as its insert binds them (?1 … ?9). */
type KeyParams = [
  string,
  string,
  string,
  string,
  number,
  string | null,
  string | null,
  string,
  string | null,
];

export function createKeys({ sql, dialect }: SqlBase) {
  /** The record of a stored key (its note decoded as the dialect stored it). */
  const toKey = (row: KeyRow): KeyRecord =>
    toRecord(row.note === null ? row : { ...row, note: dialect.text.load(row.note) });
  const byDigest = sql.query<KeyRow, [string, string]>(
    `SELECT ${KEY_COLUMNS} FROM keys WHERE team_id = ? AND digest = ?`,
  );
  const countKind = sql.query<{ c: number }, [string, string]>(
    "SELECT count(*) AS c FROM keys WHERE team_id = ? AND kind = ?",
  );
  // A team with keys or with rooms exists: provisioning never reaches into it.
  const anyKey = sql.query<{ one: number }, [string]>(
    `SELECT 1 AS one FROM keys WHERE team_id = ?1 UNION ALL SELECT 1 FROM rooms WHERE owner = ?1 LIMIT 1`,
  );
  // The teams ever stored (the operators' list): a key's team joins it with its first key — on PostgreSQL in the
  // key's own statement (one round trip), on SQLite, which cannot insert inside a WITH, in a statement before it.
  const teamFirst =
    sql.dialect === "sqlite"
      ? sql.query<unknown, [string, number]>(
          "INSERT INTO teams (team_id, first_key_at) VALUES (?, ?) ON CONFLICT (team_id) DO NOTHING",
        )
      : null;
  const insert = sql.query<KeyRow, KeyParams>(
    perDialect(
      (
        d,
      ) => `${d === "postgres" ? "WITH team AS (INSERT INTO teams (team_id, first_key_at) VALUES (?2, ?5) ON CONFLICT (team_id) DO NOTHING) " : ""}INSERT INTO keys (key_id, team_id, kind, digest, created_at, note, bound_agent_id, hint, human_id)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) RETURNING ${KEY_COLUMNS}`,
    ),
  );
  const list = sql.query<KeyRow, [string]>(
    `SELECT ${KEY_COLUMNS} FROM keys WHERE team_id = ? ORDER BY created_at, rowid`,
  );
  const remove = sql.query<unknown, [string, string]>("DELETE FROM keys WHERE key_id = ? AND team_id = ?");
  const teams = sql.query<{ team_id: string }, []>("SELECT team_id FROM teams ORDER BY team_id");

  function* store(key: NewKey): Op<KeyRecord> {
    const createdAt = toMs(key.createdAt, "createdAt");
    if (teamFirst) yield* teamFirst.run(key.teamId, createdAt);
    const row = yield* insert.get(
      key.keyId,
      key.teamId,
      key.kind,
      key.digest,
      createdAt,
      key.note === undefined ? null : dialect.text.store(key.note),
      key.boundAgentId ?? null,
      key.hint,
      key.humanId ?? null,
    );
    if (!row) throw new Error("keys: insert returned no row");
    return toKey(row);
  }

  return {
    toKey,
    /** Any key of the team with this digest (operator keys authenticate too), without a charge. */
    *resolveKey(teamId: string, digest: string): Op<{ key: KeyRecord | null }> {
      const row = yield* byDigest.get(teamId, digest);
      return { key: row ? toKey(row) : null };
    },
    *createKey(key: NewKey, maxKeys: number): Op<KeyRecord> {
      if (((yield* countKind.get(key.teamId, "dynamic"))?.c ?? 0) >= maxKeys) throw errors.keyLimit(maxKeys);
      return yield* store(key);
    },
    *provisionTeam(key: NewKey): Op<KeyRecord> {
      if (yield* anyKey.get(key.teamId)) throw errors.teamExists(key.teamId);
      return yield* store(key);
    },
    *listKeys(teamId: string): Op<KeyRecord[]> {
      return (yield* list.all(teamId)).map(toKey);
    },
    *deleteKey(teamId: string, keyId: string): Op<boolean> {
      return (yield* remove.run(keyId, teamId)).changes > 0;
    },
    *listTeams(): Op<string[]> {
      return (yield* teams.all()).map((row) => row.team_id);
    },
  };
}

export type Keys = ReturnType<typeof createKeys>;
