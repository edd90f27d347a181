/** OAuth grants of the Redis store (store/oauth-types.ts): team-slot scripts (lua-oauth.ts), one round trip each. */
import type { OAuthGrantRecord, OAuthStore } from "../oauth-types.ts";
import type { Bridge } from "./call.ts";
import type { StoredGrant } from "./lua-oauth.ts";

/** The listed record: Lua's bookkeeping fields and the PKCE challenge stay in the driver. */
function toGrant({ _end, _access, _digests, codeChallenge: _c, ...grant }: StoredGrant): OAuthGrantRecord {
  return grant;
}

function toMs(value: string, field: string): number {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new Error(`oauth: ${field} is not an ISO timestamp: ${value}`);
  return ms;
}

export function oauthOps({ team }: Bridge): OAuthStore {
  return {
    async createOAuthGrant(grant) {
      const { codeDigest, ...kept } = grant;
      const stored: StoredGrant = {
        ...kept,
        _end: toMs(grant.expiresAt, "expiresAt"),
        _digests: [codeDigest],
      };
      await team(grant.teamId, "CREATE_OAUTH_GRANT", {
        id: grant.grantId,
        digest: codeDigest,
        grant: JSON.stringify(stored),
      });
      return toGrant(stored);
    },

    async exchangeOAuthGrant(teamId, exchange) {
      const { value } = await team(teamId, "EXCHANGE_OAUTH_GRANT", {
        kind: exchange.presented.kind,
        digest: exchange.presented.digest,
        access: exchange.accessDigest,
        accessEnd: toMs(exchange.accessExpiresAt, "accessExpiresAt"),
        accessAt: exchange.accessExpiresAt,
        refresh: exchange.refreshDigest,
        refreshEnd: toMs(exchange.refreshExpiresAt, "refreshExpiresAt"),
        refreshAt: exchange.refreshExpiresAt,
      });
      if (value === "reused" || value === "invalid") return { status: value };
      return { status: "ok", grant: { ...toGrant(value), codeChallenge: value.codeChallenge } };
    },

    async resolveOAuthToken(teamId, digest) {
      const { value } = await team(teamId, "RESOLVE_OAUTH_TOKEN", { digest });
      return value ? toGrant(value) : null;
    },

    async listOAuthGrants(teamId) {
      const { value } = await team(teamId, "LIST_OAUTH_GRANTS", {});
      return value
        .map(toGrant)
        .sort((a, b) =>
          a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.grantId < b.grantId ? -1 : 1,
        );
    },

    async revokeOAuthGrant(teamId, by) {
      const { value } = await team(teamId, "REVOKE_OAUTH_GRANT", {
        id: "grantId" in by ? by.grantId : "",
        digest: "digest" in by ? by.digest : "",
      });
      return value;
    },
  };
}
