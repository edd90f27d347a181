/**
 * OAuth grants (oauth-types.ts), one body for both SQL dialects: the grant as JSON in `oauth_grants`, every digest
 * it holds or held in `oauth_digests` with its role — "code" (unredeemed), "access", "refresh" (current) or "spent"
 * (a redeemed code or a rotated refresh token, kept while the grant lives so a second use revokes it). Writes hold the
 * team's records (teamLock), so an exchange is exact across processes. No column is named room_id: a grant is the
 * team's, not room state (its room is in the JSON).
 */
import type { NewOAuthGrant, OAuthExchange, OAuthExchangeResult, OAuthGrantRecord } from "../oauth-types.ts";
import type { SqlParts } from "./rooms.ts";
import { toMs } from "./rows.ts";
import type { Op } from "./run.ts";

type Stored = OAuthGrantRecord & { codeChallenge: string };
type GrantRow = { grant_id: string; json: string; key_id: string | null; expires_at: number };
type DigestRow = { grant_id: string; role: string };

/** The grant as listed: the stored JSON without the PKCE challenge. */
const listed = ({ codeChallenge: _c, ...grant }: Stored): OAuthGrantRecord => grant;

export function createOAuth({ sql, now }: SqlParts) {
  const insertGrant = sql.query<unknown, [string, string, string | null, string, number, number]>(
    "INSERT INTO oauth_grants (grant_id, team_id, key_id, json, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?)",
  );
  const insertDigest = sql.query<unknown, [string, string, string, string]>(
    "INSERT INTO oauth_digests (digest, team_id, grant_id, role) VALUES (?, ?, ?, ?)",
  );
  const digestOf = sql.query<DigestRow, [string, string]>(
    "SELECT grant_id, role FROM oauth_digests WHERE team_id = ? AND digest = ?",
  );
  const grantOf = sql.query<GrantRow, [string, string]>(
    "SELECT grant_id, json, key_id, expires_at FROM oauth_grants WHERE team_id = ? AND grant_id = ?",
  );
  const keyExists = sql.query<{ one: number }, [string, string]>(
    "SELECT 1 AS one FROM keys WHERE team_id = ? AND key_id = ?",
  );
  const setRole = sql.query<unknown, [string, string, string]>(
    "UPDATE oauth_digests SET role = ? WHERE team_id = ? AND digest = ?",
  );
  const dropRole = sql.query<unknown, [string, string, string]>(
    "DELETE FROM oauth_digests WHERE team_id = ? AND grant_id = ? AND role = ?",
  );
  const updateGrant = sql.query<unknown, [string, number, string, string]>(
    "UPDATE oauth_grants SET json = ?, expires_at = ? WHERE team_id = ? AND grant_id = ?",
  );
  const deleteDigests = sql.query<unknown, [string, string]>(
    "DELETE FROM oauth_digests WHERE team_id = ? AND grant_id = ?",
  );
  const deleteGrant = sql.query<unknown, [string, string]>(
    "DELETE FROM oauth_grants WHERE team_id = ? AND grant_id = ?",
  );
  const ended = sql.query<{ grant_id: string }, [string, number]>(
    "SELECT grant_id FROM oauth_grants WHERE team_id = ? AND expires_at <= ?",
  );
  const live = sql.query<GrantRow, [string, number]>(
    "SELECT grant_id, json, key_id, expires_at FROM oauth_grants WHERE team_id = ? AND expires_at > ? ORDER BY created_at, grant_id",
  );

  /** The grant, while it has not ended and its key (if it names one) exists. */
  function* liveGrant(teamId: string, grantId: string): Op<Stored | null> {
    const row = yield* grantOf.get(teamId, grantId);
    if (!row || row.expires_at <= now()) return null;
    if (row.key_id !== null && !(yield* keyExists.get(teamId, row.key_id))) return null;
    return JSON.parse(row.json) as Stored;
  }

  function* revoke(teamId: string, grantId: string): Op<boolean> {
    yield* deleteDigests.run(teamId, grantId);
    return (yield* deleteGrant.run(teamId, grantId)).changes > 0;
  }

  return {
    *createOAuthGrant(grant: NewOAuthGrant): Op<OAuthGrantRecord> {
      for (const row of yield* ended.all(grant.teamId, now())) yield* revoke(grant.teamId, row.grant_id);
      const { codeDigest, ...stored } = grant;
      yield* insertGrant.run(
        grant.grantId,
        grant.teamId,
        grant.keyId ?? null,
        JSON.stringify(stored),
        toMs(grant.expiresAt, "expiresAt"),
        toMs(grant.createdAt, "createdAt"),
      );
      yield* insertDigest.run(codeDigest, grant.teamId, grant.grantId, "code");
      return listed(stored);
    },

    *exchangeOAuthGrant(teamId: string, exchange: OAuthExchange): Op<OAuthExchangeResult> {
      const found = yield* digestOf.get(teamId, exchange.presented.digest);
      if (!found) return { status: "invalid" };
      if (found.role === "spent") {
        yield* revoke(teamId, found.grant_id);
        return { status: "reused" };
      }
      if (found.role !== exchange.presented.kind) return { status: "invalid" };
      const grant = yield* liveGrant(teamId, found.grant_id);
      if (!grant) return { status: "invalid" };
      yield* setRole.run("spent", teamId, exchange.presented.digest);
      yield* dropRole.run(teamId, grant.grantId, "access");
      yield* insertDigest.run(exchange.accessDigest, teamId, grant.grantId, "access");
      yield* insertDigest.run(exchange.refreshDigest, teamId, grant.grantId, "refresh");
      const next: Stored = {
        ...grant,
        expiresAt: exchange.refreshExpiresAt,
        accessExpiresAt: exchange.accessExpiresAt,
      };
      yield* updateGrant.run(
        JSON.stringify(next),
        toMs(next.expiresAt, "refreshExpiresAt"),
        teamId,
        grant.grantId,
      );
      return { status: "ok", grant: next };
    },

    *resolveOAuthToken(teamId: string, digest: string): Op<OAuthGrantRecord | null> {
      const found = yield* digestOf.get(teamId, digest);
      if (found?.role !== "access") return null;
      const grant = yield* liveGrant(teamId, found.grant_id);
      if (!grant?.accessExpiresAt || toMs(grant.accessExpiresAt, "accessExpiresAt") <= now()) return null;
      return listed(grant);
    },

    *listOAuthGrants(teamId: string): Op<OAuthGrantRecord[]> {
      const out: OAuthGrantRecord[] = [];
      for (const row of yield* live.all(teamId, now())) {
        if (row.key_id !== null && !(yield* keyExists.get(teamId, row.key_id))) continue;
        out.push(listed(JSON.parse(row.json) as Stored));
      }
      return out;
    },

    *revokeOAuthGrant(teamId: string, by: { grantId: string } | { digest: string }): Op<boolean> {
      const grantId = "grantId" in by ? by.grantId : (yield* digestOf.get(teamId, by.digest))?.grant_id;
      return grantId === undefined ? false : yield* revoke(teamId, grantId);
    },
  };
}

export type OAuth = ReturnType<typeof createOAuth>;
