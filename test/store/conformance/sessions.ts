/**
 * What the web surfaces store outside rooms: people's sessions (session-types.ts) — stored by digest, seen by every
 * instance, ended by time, slid by use (at most once a minute) and deleted everywhere at once — and the operators'
 * list of teams (AccessStore.listTeams).
 */
import { expect, test } from "bun:test";
import { iso } from "../../../src/protocol/time.ts";
import { SESSION_RENEW_EVERY_MS, type SessionRecord } from "../../../src/store/session-types.ts";
import { newDigest, newKey, newTeam, type Suite } from "./harness.ts";

const HOUR = 60 * 60 * 1000;
const TTL = 12 * HOUR;

function record(suite: Suite, extra: Partial<SessionRecord> = {}): SessionRecord {
  return {
    teamId: newTeam(),
    humanId: "alice@example.com",
    credential: { kind: "key", digest: newDigest() },
    createdAt: iso(suite.clock.now()),
    ...extra,
  };
}

export function sessionTests(suite: Suite): void {
  test("createSession answers the exact record with its end; every instance finds it by digest", async () => {
    const digest = newDigest();
    const rec = record(suite);
    const made = await suite.store.createSession(digest, rec, TTL);
    expect(made).toEqual({ ...rec, expiresAt: iso(suite.clock.now() + TTL) });
    expect(await suite.second.touchSession(digest, TTL)).toEqual(made);
    expect(await suite.store.touchSession(newDigest(), TTL)).toBeNull();
  });

  test("every credential kind round-trips exactly", async () => {
    const kinds: SessionRecord["credential"][] = [
      { kind: "env", digest: newDigest() },
      { kind: "key", digest: newDigest() },
      { kind: "invite", digest: newDigest(), roomId: "r-room" },
      { kind: "proxy" },
    ];
    for (const credential of kinds) {
      const digest = newDigest();
      const rec = record(suite, { credential, humanId: "bob" });
      await suite.store.createSession(digest, rec, TTL);
      expect(await suite.second.touchSession(digest, TTL)).toEqual({
        ...rec,
        expiresAt: iso(suite.clock.now() + TTL),
      });
    }
  });

  test("a session unused for its lifetime ends, and reads as gone", async () => {
    const digest = newDigest();
    await suite.store.createSession(digest, record(suite), TTL);
    suite.clock.advance(TTL - 1);
    expect(await suite.second.touchSession(digest, TTL)).not.toBeNull();
    // The touch above slid it: from now it lives another TTL.
    suite.clock.advance(TTL);
    expect(await suite.store.touchSession(digest, TTL)).toBeNull();
    expect(await suite.second.touchSession(digest, TTL)).toBeNull();
    expect(await suite.store.deleteSession(digest)).toBe(false);
  });

  test("use slides the end, at most once per renewal interval", async () => {
    const digest = newDigest();
    const start = suite.clock.now();
    await suite.store.createSession(digest, record(suite), TTL);
    suite.clock.advance(SESSION_RENEW_EVERY_MS - 1);
    // Too soon to move: the end stays where it was.
    expect((await suite.store.touchSession(digest, TTL))?.expiresAt).toBe(iso(start + TTL));
    suite.clock.advance(1);
    const moved = await suite.second.touchSession(digest, TTL);
    expect(moved?.expiresAt).toBe(iso(suite.clock.now() + TTL));
    // Kept alive by use every 11 hours, it outlives its first 12 hours by far.
    for (let i = 0; i < 3; i++) {
      suite.clock.advance(11 * HOUR);
      expect(await suite.store.touchSession(digest, TTL)).not.toBeNull();
    }
    expect(suite.clock.now() - start).toBeGreaterThan(TTL * 2);
  });

  test("deleteSession ends it for every instance; only a live one counts as deleted", async () => {
    const digest = newDigest();
    await suite.store.createSession(digest, record(suite), TTL);
    expect(await suite.second.deleteSession(digest)).toBe(true);
    expect(await suite.store.touchSession(digest, TTL)).toBeNull();
    expect(await suite.store.deleteSession(digest)).toBe(false);
    expect(await suite.store.deleteSession(newDigest())).toBe(false);
  });

  test("createSession on a digest in use replaces that session", async () => {
    const digest = newDigest();
    await suite.store.createSession(digest, record(suite, { humanId: "first" }), TTL);
    const second = record(suite, { humanId: "second" });
    await suite.second.createSession(digest, second, HOUR);
    expect(await suite.store.touchSession(digest, TTL)).toEqual({
      ...second,
      expiresAt: iso(suite.clock.now() + HOUR),
    });
  });

  test("sessions are independent: deleting one leaves the others", async () => {
    const digests = [newDigest(), newDigest(), newDigest()];
    await Promise.all(
      digests.map((d, i) => suite.store.createSession(d, record(suite, { humanId: `p${i}` }), TTL)),
    );
    expect(await suite.store.deleteSession(digests[1] as string)).toBe(true);
    expect((await suite.second.touchSession(digests[0] as string, TTL))?.humanId).toBe("p0");
    expect(await suite.second.touchSession(digests[1] as string, TTL)).toBeNull();
    expect((await suite.second.touchSession(digests[2] as string, TTL))?.humanId).toBe("p2");
  });
}

export function teamListTests(suite: Suite): void {
  test("listTeams: every team a key was stored for, sorted, on every instance, keys revoked or not", async () => {
    const [a, b] = [newTeam(), newTeam()].sort();
    const first = newKey(suite, b as string);
    await suite.store.createKey(first, 50);
    await suite.second.provisionTeam(newKey(suite, a as string));
    for (const store of [suite.store, suite.second]) {
      const teams = await store.listTeams();
      expect(teams).toContain(a as string);
      expect(teams).toContain(b as string);
      expect(teams).toEqual([...teams].sort());
      expect(new Set(teams).size).toBe(teams.length);
    }
    // A second key of a listed team lists it once; revoking every key keeps the team listed.
    await suite.store.createKey(newKey(suite, b as string), 50);
    expect(await suite.store.deleteKey(b as string, first.keyId)).toBe(true);
    const teams = await suite.second.listTeams();
    expect(teams.filter((t) => t === b)).toEqual([b as string]);
  });

  test("listTeams does not list a team whose key was refused", async () => {
    const team = newTeam();
    await suite.store.createKey(newKey(suite, team), 1);
    const other = newTeam();
    await suite.store.createKey(newKey(suite, other), 50);
    await expect(suite.store.provisionTeam(newKey(suite, other))).rejects.toThrow();
    const refused = newTeam();
    await expect(suite.store.createKey(newKey(suite, refused), 0)).rejects.toThrow();
    const teams = await suite.second.listTeams();
    expect(teams).toContain(team);
    expect(teams).not.toContain(refused);
  });
}
