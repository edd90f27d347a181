/**
 * The OAuth half of the store contract (docs/security.md#oauth): grants made on roomd's consent page, each the
 * family of one authorization code, the access token it was exchanged for and the refresh tokens that follow. A
 * grant is a team-level record like a key: on Redis it lives in the team's slot (`team:{<teamId>}:oauth…`), in SQL
 * in tables of its own. Codes and tokens never reach the store: callers pass SHA-256 digests (lowercase hex), and
 * each names its team (`roc_`, `rat_`, `rrt_<teamId>_…`, src/access/oauth-secrets.ts) so one slot is enough.
 *
 * Every operation is atomic. A grant lives while its person's key does (`keyId`): once that key is deleted, no
 * operation below finds the grant's tokens any more.
 */

/** A grant as listed: who consented, for which client, as which agent in which room. Never holds a digest. */
export interface OAuthGrantRecord {
  /** `g_<teamId>_<8 chars [0-9a-z]>`. */
  grantId: string;
  teamId: string;
  /** The person who consented (a person's key, an env key's person or the trusted proxy's). */
  humanId: string;
  /** The dynamic key (`k_…`) the person signed in with: the grant dies with it. Absent: an env key or the proxy. */
  keyId?: string;
  /** The client: its Client ID Metadata Document's URL or the id registration gave it. */
  clientId: string;
  /** The client's own name for itself (unverified), as the consent page showed it. */
  clientName: string;
  redirectUri: string;
  /** The protected resource the tokens are for (RFC 8707): this roomd's `/mcp`. */
  resource: string;
  /**
   * The room the tokens act in (the first of `rooms` when the person picked several), and the agent they act as
   * (like a bound key).
   */
  roomId: string;
  agentId: string;
  /**
   * Set when the person picked several rooms (2..MAX_SCOPE_ROOMS, roomId among them): the tokens reach these rooms
   * only, as a key scoped to them does (protocol/key-life.ts). Absent: roomId alone.
   */
  rooms?: string[];
  /** Reads only, as a read-only key: every write tool is refused. */
  readOnly?: true;
  createdAt: string;
  /** The grant's end: the code's expiry before it is redeemed, then the newest refresh token's. */
  expiresAt: string;
  /** The current access token's expiry; absent until the code is redeemed. */
  accessExpiresAt?: string;
}

export interface NewOAuthGrant extends OAuthGrantRecord {
  /** sha256(authorization code). */
  codeDigest: string;
  /** The PKCE S256 challenge the client sent (not a secret). */
  codeChallenge: string;
}

/** What the token endpoint asks of the store for a code or a refresh token: the next pair of tokens. */
export interface OAuthExchange {
  /** What the client presented: an authorization code or a refresh token, by digest. */
  presented: { kind: "code" | "refresh"; digest: string };
  accessDigest: string;
  accessExpiresAt: string;
  refreshDigest: string;
  refreshExpiresAt: string;
}

export type OAuthExchangeResult =
  /** Exchanged: the presented code or refresh token is spent, the new pair is live. */
  | { status: "ok"; grant: OAuthGrantRecord & { codeChallenge: string } }
  /** The code or refresh token had been used before: the whole grant is revoked (OAuth 2.1 section 4.3.1, 4.1.3). */
  | { status: "reused" }
  /** Unknown, expired, of the other kind, or its person's key is gone: nothing changed. */
  | { status: "invalid" };

export interface OAuthStore {
  /**
   * Stores a grant holding an unredeemed code (live until `expiresAt`), dropping the team's grants that have ended.
   * A grant id or digest already stored is a programming error (ids and codes are random).
   */
  createOAuthGrant(grant: NewOAuthGrant): Promise<OAuthGrantRecord>;
  /**
   * The token endpoint's step, atomic: finds the grant of `teamId` whose code (kind "code", unredeemed and before
   * the grant's expiresAt) or current refresh token (kind "refresh", before expiresAt) has this digest, while its
   * key (keyId) exists; spends it, drops the previous access token, and stores the new access and refresh digests
   * (expiresAt becomes refreshExpiresAt). A spent code or refresh token revokes the grant ("reused").
   */
  exchangeOAuthGrant(teamId: string, exchange: OAuthExchange): Promise<OAuthExchangeResult>;
  /** The grant whose current, unexpired access token has this digest while its key exists; null otherwise. */
  resolveOAuthToken(teamId: string, digest: string): Promise<OAuthGrantRecord | null>;
  /** The team's live grants (not ended, key present), oldest first. */
  listOAuthGrants(teamId: string): Promise<OAuthGrantRecord[]>;
  /**
   * Revokes a grant and every token of it, by id or by the digest of any code or token it ever held (RFC 7009);
   * false when the team has no such grant.
   */
  revokeOAuthGrant(teamId: string, by: { grantId: string } | { digest: string }): Promise<boolean>;
}
