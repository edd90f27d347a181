/**
 * Dynamic and operator keys of a team, stored by digest only. Writes hold the team's records (the SQLite file's
 * write lock, or the team's advisory lock), so the key count and provisioning's "team exists" check are exact
 * across processes. A key's note is free text, stored as the dialect keeps text (Dialect.text). Charging a rate
 * window with the lookup is each driver's own (its rate limiter).
 */
import { errors } from "../../protocol/errors.ts";
import { KEY_USE_STEP_MS, keyLifeErrors, useDue } from "../../protocol/key-life.ts";
import type { KeyRecord, NewKey } from "../access-types.ts";
import type { SqlBase } from "./parts.ts";
import { KEY_COLUMNS, type KeyRow, perDialect, scopeColumn, toMs, toKey as toRecord } from "./rows.ts";
import type { Op } from "./run.ts";

/** A key's columns as its insert binds them (?1 … ?13). */
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
  number | null,
  number | null,
  string | null,
  string | null,
];

const optionalMs = (value: string | undefined, field: string): number | null =>
  value === undefined ? null : toMs(value, field);

export function createKeys({ sql, dialect, now }: SqlBase) {
  /** The record of a stored key (its note decoded as the dialect stored it). */
  const toKey = (row: KeyRow): KeyRecord =>
    toRecord(row.note === null ? row : { ...row, note: dialect.text.load(row.note) });
  // An expired key is found by nothing that authenticates: it reads exactly like an unknown one.
  const byDigest = sql.query<KeyRow, [string, string, number]>(
    `SELECT ${KEY_COLUMNS} FROM keys WHERE team_id = ?1 AND digest = ?2 AND (expires_at IS NULL OR expires_at > ?3)`,
  );
  const byId = sql.query<KeyRow, [string, string, number]>(
    `SELECT ${KEY_COLUMNS} FROM keys
     WHERE team_id = ?1 AND key_id = ?2 AND kind = 'dynamic' AND (expires_at IS NULL OR expires_at > ?3)`,
  );
  // The use, only when due (protocol/key-life.ts useDue), so a lookup writes at most once a minute per key.
  const touch = sql.query<unknown, [number, string, number]>(
    "UPDATE keys SET last_used_at = ?1 WHERE key_id = ?2 AND (last_used_at IS NULL OR last_used_at <= ?3)",
  );
  // Live dynamic keys: operator-kind and expired keys do not count towards KEYS_PER_TEAM.
  const countLive = sql.query<{ c: number }, [string, number]>(
    "SELECT count(*) AS c FROM keys WHERE team_id = ?1 AND kind = 'dynamic' AND (expires_at IS NULL OR expires_at > ?2)",
  );
  const endOld = sql.query<unknown, [number, string, string]>(
    `UPDATE keys SET expires_at = CASE WHEN expires_at IS NULL OR expires_at > ?1 THEN ?1 ELSE expires_at END,
       rotated_to = ?2
     WHERE key_id = ?3`,
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
      ) => `${d === "postgres" ? "WITH team AS (INSERT INTO teams (team_id, first_key_at) VALUES (?2, ?5) ON CONFLICT (team_id) DO NOTHING) " : ""}INSERT INTO keys (key_id, team_id, kind, digest, created_at, note, bound_agent_id, hint, human_id,
       expires_at, last_used_at, scope, rotated_to)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) RETURNING ${KEY_COLUMNS}`,
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
      optionalMs(key.expiresAt, "expiresAt"),
      optionalMs(key.lastUsedAt, "lastUsedAt"),
      scopeColumn(key),
      key.rotatedTo ?? null,
    );
    if (!row) throw new Error("keys: insert returned no row");
    return toKey(row);
  }

  function* underLimit(teamId: string, maxKeys: number): Op<void> {
    if (((yield* countLive.get(teamId, now()))?.c ?? 0) >= maxKeys) throw errors.keyLimit(maxKeys);
  }

  return {
    toKey,
    /** Any unexpired key of the team with this digest (operator keys authenticate too): a pure read. */
    *resolveKey(teamId: string, digest: string): Op<{ key: KeyRecord | null }> {
      const row = yield* byDigest.get(teamId, digest, now());
      return { key: row ? toKey(row) : null };
    },
    /**
     * resolveKey inside a write: the use is recorded when due, in the same transaction; the record answered is the
     * one found (lastUsedAt as it was before this lookup).
     */
    *useKey(teamId: string, digest: string): Op<{ key: KeyRecord | null }> {
      const at = now();
      const row = yield* byDigest.get(teamId, digest, at);
      if (!row) return { key: null };
      const last = row.last_used_at === null ? undefined : Number(row.last_used_at);
      if (useDue(last, at)) yield* touch.run(at, row.key_id, at - KEY_USE_STEP_MS);
      return { key: toKey(row) };
    },
    *createKey(key: NewKey, maxKeys: number): Op<KeyRecord> {
      yield* underLimit(key.teamId, maxKeys);
      return yield* store(key);
    },
    *rotateKey(
      teamId: string,
      keyId: string,
      successor: NewKey,
      graceEndsAt: string,
      maxKeys: number,
    ): Op<{ rotated: KeyRecord; successor: KeyRecord } | null> {
      const old = yield* byId.get(teamId, keyId, now());
      if (!old) return null;
      if (old.rotated_to !== null) throw keyLifeErrors.rotated(keyId, old.rotated_to);
      yield* underLimit(teamId, maxKeys);
      const stored = yield* store(successor);
      yield* endOld.run(toMs(graceEndsAt, "graceEndsAt"), successor.keyId, keyId);
      // Read back whatever its end now is (a grace of 0 ends it at once): any end after the epoch matches.
      const rotated = yield* byId.get(teamId, keyId, 0);
      if (!rotated) throw new Error("keys: the rotated key vanished inside its own transaction");
      return { rotated: toKey(rotated), successor: stored };
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
