/**
 * Rate limiting (AccessStore.consumeRate and the rate half of resolveKey): a sliding window, exact under
 * concurrency, refusals not recorded, buckets and teams independent, and auth + charge in one step.
 */
import { expect, test } from "bun:test";
import { iso } from "../../../src/protocol/time.ts";
import type { RateDecision } from "../../../src/store/access-types.ts";
import {
  instanceFor,
  keyRecord,
  metaRate,
  newDigest,
  newKey,
  newTeam,
  type Suite,
  toolsRate,
} from "./harness.ts";

const times = (n: number) => Array.from({ length: n }, (_, i) => i);

const allowed = (limit: number, remaining: number): RateDecision => ({
  allowed: true,
  limit,
  remaining,
  resetMs: 0,
});

export function rateTests(suite: Suite): void {
  test("remaining counts down; a refused request has remaining 0 and resetMs until the window has room", async () => {
    const teamId = newTeam();
    const rate = toolsRate(20);
    for (let i = 19; i > 0; i--)
      expect(await instanceFor(suite, i).consumeRate(teamId, rate)).toEqual(allowed(20, i));
    const last = await suite.store.consumeRate(teamId, rate);
    expect(last).toMatchObject({ allowed: true, limit: 20, remaining: 0 });
    suite.clock.advance(10_000);
    const refused = await suite.second.consumeRate(teamId, rate);
    expect(refused).toMatchObject({ allowed: false, limit: 20, remaining: 0 });
    // Every hit was at one instant 10 s ago: the window has room again after the remaining 50 s.
    expect(refused.resetMs).toBeGreaterThanOrEqual(50_000);
    expect(refused.resetMs).toBeLessThanOrEqual(50_001);
  });

  test("50 concurrent requests with limit 20: exactly 20 allowed, each with a distinct remaining", async () => {
    const teamId = newTeam();
    const rate = toolsRate(20);
    const decisions = await Promise.all(
      times(50).map((i) => instanceFor(suite, i).consumeRate(teamId, rate)),
    );
    const ok = decisions.filter((d) => d.allowed);
    expect(ok).toHaveLength(20);
    expect(ok.map((d) => d.remaining).sort((a, b) => a - b)).toEqual(times(20));
    for (const d of decisions.filter((d) => !d.allowed)) {
      expect(d).toMatchObject({ allowed: false, limit: 20, remaining: 0 });
      expect(d.resetMs).toBeGreaterThan(0);
    }
    expect((await suite.store.consumeRate(teamId, rate)).allowed).toBe(false);
  });

  test("capacity returns windowMs after the hits: a window later, 20 more are allowed", async () => {
    const teamId = newTeam();
    const rate = toolsRate(20);
    await Promise.all(times(20).map((i) => instanceFor(suite, i).consumeRate(teamId, rate)));
    suite.clock.advance(30_000);
    expect((await suite.store.consumeRate(teamId, rate)).allowed).toBe(false);
    suite.clock.advance(30_001);
    const again = await Promise.all(times(25).map((i) => instanceFor(suite, i).consumeRate(teamId, rate)));
    expect(again.filter((d) => d.allowed)).toHaveLength(20);
  });

  test("sliding window: each request counts for exactly windowMs after it was admitted; refusals are not recorded", async () => {
    const teamId = newTeam();
    const rate = toolsRate(3, 1000);
    const t0 = suite.clock.now();
    expect(await suite.store.consumeRate(teamId, rate)).toEqual(allowed(3, 2)); // A at t0
    suite.clock.advance(400);
    expect(await suite.store.consumeRate(teamId, rate)).toEqual(allowed(3, 1)); // B at t0+400
    suite.clock.advance(300);
    expect((await suite.second.consumeRate(teamId, rate)).remaining).toBe(0); // C at t0+700
    // A window of three: refused until A leaves it; a fixed window would free all three slots at once.
    for (let i = 0; i < 3; i++) {
      const refused = await suite.store.consumeRate(teamId, rate);
      expect(refused).toMatchObject({ allowed: false, remaining: 0 });
      expect(refused.resetMs).toBeGreaterThanOrEqual(300);
      expect(refused.resetMs).toBeLessThanOrEqual(301);
    }
    suite.clock.advance(299); // t0+999
    expect((await suite.second.consumeRate(teamId, rate)).allowed).toBe(false);
    suite.clock.advance(2); // t0+1001: A has left the window, the refusals never entered it
    expect(await suite.store.consumeRate(teamId, rate)).toMatchObject({ allowed: true, remaining: 0 }); // D
    expect((await suite.store.consumeRate(teamId, rate)).allowed).toBe(false);
    suite.clock.advance(398); // t0+1399: B still counts
    expect((await suite.second.consumeRate(teamId, rate)).allowed).toBe(false);
    suite.clock.advance(2); // t0+1401: B has left
    expect(await suite.store.consumeRate(teamId, rate)).toMatchObject({ allowed: true, remaining: 0 });
    suite.clock.advance(300); // t0+1701: C has left
    expect(await suite.store.consumeRate(teamId, rate)).toMatchObject({ allowed: true, remaining: 0 });
    expect((await suite.store.consumeRate(teamId, rate)).allowed).toBe(false);
    suite.clock.advance(1_000); // t0+2701: D, E and F all left
    expect(await suite.store.consumeRate(teamId, rate)).toEqual(allowed(3, 2));
    expect(suite.clock.now() - t0).toBe(2701);
  });

  test("resetMs is exact: refused one ms before it, allowed at it", async () => {
    const teamId = newTeam();
    const rate = toolsRate(1, 1000);
    expect((await suite.store.consumeRate(teamId, rate)).allowed).toBe(true);
    suite.clock.advance(600);
    const refused = await suite.store.consumeRate(teamId, rate);
    expect(refused.allowed).toBe(false);
    expect(refused.resetMs).toBeGreaterThanOrEqual(400);
    expect(refused.resetMs).toBeLessThanOrEqual(401);
    suite.clock.advance(refused.resetMs - 1);
    expect((await suite.second.consumeRate(teamId, rate)).allowed).toBe(false);
    suite.clock.advance(1);
    expect((await suite.second.consumeRate(teamId, rate)).allowed).toBe(true);
  });

  test("buckets 'tools' and 'meta' are independent, and so are teams", async () => {
    const teamId = newTeam();
    for (let i = 0; i < 2; i++) await suite.store.consumeRate(teamId, toolsRate(2));
    expect((await suite.store.consumeRate(teamId, toolsRate(2))).allowed).toBe(false);
    expect(await suite.store.consumeRate(teamId, metaRate(2))).toEqual(allowed(2, 1));
    expect(await suite.second.consumeRate(teamId, metaRate(2))).toMatchObject({
      allowed: true,
      remaining: 0,
    });
    expect((await suite.second.consumeRate(teamId, metaRate(2))).allowed).toBe(false);
    const other = newTeam();
    expect(await suite.store.consumeRate(other, toolsRate(2))).toEqual(allowed(2, 1));
    expect(await suite.store.consumeRate(other, metaRate(2))).toEqual(allowed(2, 1));
  });

  test("resolveKey with rate charges the same bucket as consumeRate(teamId)", async () => {
    const teamId = newTeam();
    const key = newKey(suite, teamId);
    await suite.store.createKey(key, 50);
    const rate = toolsRate(4);
    // Without rate: no charge, no decision.
    for (let i = 0; i < 3; i++)
      expect(await suite.store.resolveKey(teamId, key.digest)).toEqual({ key: keyRecord(key) });

    expect(await suite.store.resolveKey(teamId, key.digest, rate)).toEqual({
      key: keyRecord(key),
      rate: allowed(4, 3),
    });
    expect(await suite.second.consumeRate(teamId, rate)).toEqual(allowed(4, 2));
    // The first charged lookup recorded the key's use (conformance/access-key-lifetime.ts).
    const used = { ...keyRecord(key), lastUsedAt: iso(suite.clock.now()) };
    expect(await suite.second.resolveKey(teamId, key.digest, rate)).toEqual({
      key: used,
      rate: allowed(4, 1),
    });
    expect(await suite.store.consumeRate(teamId, rate)).toMatchObject({ allowed: true, remaining: 0 });
    const refused = await suite.store.resolveKey(teamId, key.digest, rate);
    expect(refused.key).toEqual(used);
    expect(refused.rate).toMatchObject({ allowed: false, limit: 4, remaining: 0 });
    expect((await suite.second.consumeRate(teamId, rate)).allowed).toBe(false);
    // The meta bucket was never charged.
    expect(await suite.store.resolveKey(teamId, key.digest, metaRate(4))).toEqual({
      key: used,
      rate: allowed(4, 3),
    });
  });

  test("resolveKey with an unknown digest or for the wrong team charges nothing", async () => {
    const teamId = newTeam();
    const key = newKey(suite, teamId);
    await suite.store.createKey(key, 50);
    const rate = toolsRate(2);
    for (let i = 0; i < 5; i++) {
      const unknown = await instanceFor(suite, i).resolveKey(teamId, newDigest(), rate);
      expect(unknown).toEqual({ key: null });
      expect(unknown.rate).toBeUndefined();
    }
    const otherTeam = newTeam();
    for (let i = 0; i < 5; i++)
      expect(await suite.store.resolveKey(otherTeam, key.digest, rate)).toEqual({ key: null });
    expect(await suite.store.consumeRate(teamId, rate)).toEqual(allowed(2, 1));
    expect(await suite.store.consumeRate(otherTeam, rate)).toEqual(allowed(2, 1));
  });
}
