/**
 * OAuth grants (store/oauth-types.ts) on every store: a code is exchanged once, a refresh token rotates and a spent
 * one revokes the family, access tokens end, the person's key takes its grants with it, revocation by id and by any
 * digest, listings hold no digest and no challenge, every instance sees the same, and teams stay apart.
 */
import { expect, test } from "bun:test";
import { iso } from "../../../src/protocol/time.ts";
import type { NewOAuthGrant, OAuthExchange } from "../../../src/store/oauth-types.ts";
import { newDigest, newKey, newTeam, randomId8, type Suite } from "./harness.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

function newGrant(suite: Suite, teamId: string, extra: Partial<NewOAuthGrant> = {}): NewOAuthGrant {
  const t = suite.clock.now();
  return {
    grantId: `g_${teamId}_${randomId8()}`,
    teamId,
    humanId: "ada",
    clientId: "https://client.example/meta.json",
    clientName: 'Client / "quoted" ünïcode',
    redirectUri: "http://127.0.0.1:4000/callback",
    resource: "https://roomd.example/mcp",
    roomId: `r-${randomId8()}`,
    agentId: "claude-1",
    createdAt: iso(t),
    expiresAt: iso(t + MINUTE),
    codeDigest: newDigest(),
    codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    ...extra,
  };
}

function next(suite: Suite, presented: OAuthExchange["presented"]): OAuthExchange {
  const t = suite.clock.now();
  return {
    presented,
    accessDigest: newDigest(),
    accessExpiresAt: iso(t + HOUR),
    refreshDigest: newDigest(),
    refreshExpiresAt: iso(t + 30 * 24 * HOUR),
  };
}

/** What the store lists of a new grant: no code digest, no challenge. */
function listed(grant: NewOAuthGrant) {
  const { codeDigest: _d, codeChallenge: _c, ...rest } = grant;
  return rest;
}

export function oauthTests(suite: Suite): void {
  test("a code is exchanged once for a pair; the access token resolves on every instance", async () => {
    const teamId = newTeam();
    const grant = newGrant(suite, teamId);
    expect(await suite.store.createOAuthGrant(grant)).toEqual(listed(grant));
    expect(await suite.second.resolveOAuthToken(teamId, grant.codeDigest)).toBeNull();
    const ex = next(suite, { kind: "code", digest: grant.codeDigest });
    const result = await suite.second.exchangeOAuthGrant(teamId, ex);
    expect(result).toEqual({
      status: "ok",
      grant: {
        ...listed(grant),
        codeChallenge: grant.codeChallenge,
        expiresAt: ex.refreshExpiresAt,
        accessExpiresAt: ex.accessExpiresAt,
      },
    });
    const resolved = await suite.store.resolveOAuthToken(teamId, ex.accessDigest);
    expect(resolved).toEqual({
      ...listed(grant),
      expiresAt: ex.refreshExpiresAt,
      accessExpiresAt: ex.accessExpiresAt,
    });
    // The refresh token is not an access token, and another team finds nothing.
    expect(await suite.store.resolveOAuthToken(teamId, ex.refreshDigest)).toBeNull();
    expect(await suite.store.resolveOAuthToken(newTeam(), ex.accessDigest)).toBeNull();
    expect(await suite.store.listOAuthGrants(teamId)).toEqual([resolved as NonNullable<typeof resolved>]);
  });

  test("a narrowed grant (several rooms, read-only) keeps its scope through every exchange, lookup and listing", async () => {
    const teamId = newTeam();
    const rooms = [`r-${randomId8()}`, `r-${randomId8()}`, `r-${randomId8()}`];
    const grant = newGrant(suite, teamId, { roomId: rooms[0] as string, rooms, readOnly: true });
    expect(await suite.store.createOAuthGrant(grant)).toEqual(listed(grant));
    const first = next(suite, { kind: "code", digest: grant.codeDigest });
    const exchanged = await suite.second.exchangeOAuthGrant(teamId, first);
    expect(exchanged.status === "ok" && exchanged.grant).toMatchObject({
      roomId: rooms[0],
      rooms,
      readOnly: true,
    });
    const refreshed = next(suite, { kind: "refresh", digest: first.refreshDigest });
    expect((await suite.store.exchangeOAuthGrant(teamId, refreshed)).status).toBe("ok");
    const resolved = await suite.second.resolveOAuthToken(teamId, refreshed.accessDigest);
    expect(resolved).toEqual({
      ...listed(grant),
      expiresAt: refreshed.refreshExpiresAt,
      accessExpiresAt: refreshed.accessExpiresAt,
    });
    expect(await suite.store.listOAuthGrants(teamId)).toEqual([resolved as NonNullable<typeof resolved>]);
    // A grant of one room, not read-only, carries neither field.
    const plain = newGrant(suite, teamId);
    const made = await suite.store.createOAuthGrant(plain);
    expect(made).not.toHaveProperty("rooms");
    expect(made).not.toHaveProperty("readOnly");
  });

  test("a reused code revokes the grant and every token it gave", async () => {
    const teamId = newTeam();
    const grant = newGrant(suite, teamId);
    await suite.store.createOAuthGrant(grant);
    const first = next(suite, { kind: "code", digest: grant.codeDigest });
    expect((await suite.store.exchangeOAuthGrant(teamId, first)).status).toBe("ok");
    const again = next(suite, { kind: "code", digest: grant.codeDigest });
    expect(await suite.second.exchangeOAuthGrant(teamId, again)).toEqual({ status: "reused" });
    expect(await suite.store.resolveOAuthToken(teamId, first.accessDigest)).toBeNull();
    expect(await suite.store.resolveOAuthToken(teamId, again.accessDigest)).toBeNull();
    expect(
      await suite.store.exchangeOAuthGrant(
        teamId,
        next(suite, { kind: "refresh", digest: first.refreshDigest }),
      ),
    ).toEqual({ status: "invalid" });
    expect(await suite.store.listOAuthGrants(teamId)).toEqual([]);
  });

  test("refresh rotates: the new pair works, the old access token ends, a spent refresh token revokes all", async () => {
    const teamId = newTeam();
    const grant = newGrant(suite, teamId);
    await suite.store.createOAuthGrant(grant);
    const first = next(suite, { kind: "code", digest: grant.codeDigest });
    await suite.store.exchangeOAuthGrant(teamId, first);
    const second = next(suite, { kind: "refresh", digest: first.refreshDigest });
    expect((await suite.second.exchangeOAuthGrant(teamId, second)).status).toBe("ok");
    expect(await suite.store.resolveOAuthToken(teamId, first.accessDigest)).toBeNull();
    expect((await suite.store.resolveOAuthToken(teamId, second.accessDigest))?.grantId).toBe(grant.grantId);
    // The first refresh token again: a replay, so the family goes.
    const replay = next(suite, { kind: "refresh", digest: first.refreshDigest });
    expect(await suite.store.exchangeOAuthGrant(teamId, replay)).toEqual({ status: "reused" });
    expect(await suite.second.resolveOAuthToken(teamId, second.accessDigest)).toBeNull();
    expect(
      await suite.store.exchangeOAuthGrant(
        teamId,
        next(suite, { kind: "refresh", digest: second.refreshDigest }),
      ),
    ).toEqual({ status: "invalid" });
  });

  test("a code of the wrong kind, unknown, or past its end changes nothing", async () => {
    const teamId = newTeam();
    const grant = newGrant(suite, teamId);
    await suite.store.createOAuthGrant(grant);
    expect(
      await suite.store.exchangeOAuthGrant(
        teamId,
        next(suite, { kind: "refresh", digest: grant.codeDigest }),
      ),
    ).toEqual({ status: "invalid" });
    expect(
      await suite.store.exchangeOAuthGrant(teamId, next(suite, { kind: "code", digest: newDigest() })),
    ).toEqual({ status: "invalid" });
    expect(
      await suite.store.exchangeOAuthGrant(
        newTeam(),
        next(suite, { kind: "code", digest: grant.codeDigest }),
      ),
    ).toEqual({ status: "invalid" });
    suite.clock.advance(MINUTE);
    expect(
      await suite.store.exchangeOAuthGrant(teamId, next(suite, { kind: "code", digest: grant.codeDigest })),
    ).toEqual({ status: "invalid" });
    expect(await suite.store.listOAuthGrants(teamId)).toEqual([]);
  });

  test("an access token ends at its expiry; the grant lives on until the refresh token's", async () => {
    const teamId = newTeam();
    const grant = newGrant(suite, teamId);
    await suite.store.createOAuthGrant(grant);
    const first = next(suite, { kind: "code", digest: grant.codeDigest });
    await suite.store.exchangeOAuthGrant(teamId, first);
    suite.clock.advance(HOUR - 1);
    expect(await suite.store.resolveOAuthToken(teamId, first.accessDigest)).not.toBeNull();
    suite.clock.advance(1);
    expect(await suite.second.resolveOAuthToken(teamId, first.accessDigest)).toBeNull();
    expect((await suite.store.listOAuthGrants(teamId)).map((g) => g.grantId)).toEqual([grant.grantId]);
    const second = next(suite, { kind: "refresh", digest: first.refreshDigest });
    expect((await suite.store.exchangeOAuthGrant(teamId, second)).status).toBe("ok");
    expect((await suite.store.resolveOAuthToken(teamId, second.accessDigest))?.grantId).toBe(grant.grantId);
  });

  test("a grant dies with its person's key: no token resolves, no exchange, not listed", async () => {
    const teamId = newTeam();
    const key = await suite.store.createKey(newKey(suite, teamId, { humanId: "ada" }), 10);
    const grant = newGrant(suite, teamId, { keyId: key.keyId });
    await suite.store.createOAuthGrant(grant);
    const first = next(suite, { kind: "code", digest: grant.codeDigest });
    expect((await suite.store.exchangeOAuthGrant(teamId, first)).status).toBe("ok");
    expect(await suite.store.resolveOAuthToken(teamId, first.accessDigest)).not.toBeNull();
    expect(await suite.store.deleteKey(teamId, key.keyId)).toBe(true);
    expect(await suite.second.resolveOAuthToken(teamId, first.accessDigest)).toBeNull();
    expect(
      await suite.store.exchangeOAuthGrant(
        teamId,
        next(suite, { kind: "refresh", digest: first.refreshDigest }),
      ),
    ).toEqual({ status: "invalid" });
    expect(await suite.store.listOAuthGrants(teamId)).toEqual([]);
  });

  test("revocation by id or by any digest the grant held; only the team's own", async () => {
    const teamId = newTeam();
    const a = newGrant(suite, teamId);
    const b = newGrant(suite, teamId);
    await suite.store.createOAuthGrant(a);
    await suite.store.createOAuthGrant(b);
    const ea = next(suite, { kind: "code", digest: a.codeDigest });
    const eb = next(suite, { kind: "code", digest: b.codeDigest });
    await suite.store.exchangeOAuthGrant(teamId, ea);
    await suite.store.exchangeOAuthGrant(teamId, eb);
    expect(await suite.store.revokeOAuthGrant(newTeam(), { grantId: a.grantId })).toBe(false);
    expect(await suite.store.revokeOAuthGrant(newTeam(), { digest: ea.refreshDigest })).toBe(false);
    expect(await suite.store.revokeOAuthGrant(teamId, { digest: ea.refreshDigest })).toBe(true);
    expect(await suite.second.resolveOAuthToken(teamId, ea.accessDigest)).toBeNull();
    expect(await suite.second.resolveOAuthToken(teamId, eb.accessDigest)).not.toBeNull();
    expect(await suite.second.revokeOAuthGrant(teamId, { grantId: b.grantId })).toBe(true);
    expect(await suite.store.resolveOAuthToken(teamId, eb.accessDigest)).toBeNull();
    expect(await suite.store.revokeOAuthGrant(teamId, { grantId: b.grantId })).toBe(false);
    expect(await suite.store.listOAuthGrants(teamId)).toEqual([]);
  });

  test("listing: live grants oldest first, ended ones dropped", async () => {
    const teamId = newTeam();
    const a = newGrant(suite, teamId);
    await suite.store.createOAuthGrant(a);
    suite.clock.advance(1);
    const b = newGrant(suite, teamId, { expiresAt: iso(suite.clock.now() + 2 * MINUTE) });
    await suite.store.createOAuthGrant(b);
    expect((await suite.second.listOAuthGrants(teamId)).map((g) => g.grantId)).toEqual([
      a.grantId,
      b.grantId,
    ]);
    suite.clock.advance(MINUTE);
    expect(await suite.store.listOAuthGrants(teamId)).toEqual([listed(b)]);
  });
}
