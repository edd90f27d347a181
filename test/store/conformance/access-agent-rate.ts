/**
 * An agent's own window inside its team's (RateRequest.agent, AGENT_RATE_LIMIT_PER_MINUTE): both charged in one
 * atomic step, exact under concurrency, a request refused by either window recorded in neither, the refusal saying
 * whose budget is spent, and a bound key's agent charged whatever the request names.
 */
import { expect, test } from "bun:test";
import type { RateRequest } from "../../../src/store/access-types.ts";
import { instanceFor, keyRecord, newKey, newTeam, type Suite, toolsRate } from "./harness.ts";

const times = (n: number) => Array.from({ length: n }, (_, i) => i);
const withAgent = (team: number, agent: number, id?: string, windowMs = 60_000): RateRequest => ({
  ...toolsRate(team, windowMs),
  agent: { ...(id !== undefined ? { id } : {}), limit: agent },
});

export function agentRateTests(suite: Suite): void {
  test("50 concurrent calls of one agent, agent limit 20 inside a team limit of 100: exactly 20 allowed", async () => {
    const teamId = newTeam();
    const rate = withAgent(100, 20, "looper");
    const decisions = await Promise.all(
      times(50).map((i) => instanceFor(suite, i).consumeRate(teamId, rate)),
    );
    const ok = decisions.filter((d) => d.allowed);
    expect(ok).toHaveLength(20);
    // Admitted: the agent's window has fewer left, so each answer is the agent's (a distinct remaining each).
    expect(ok.map((d) => d.remaining).sort((a, b) => a - b)).toEqual(times(20));
    for (const d of ok) expect(d.limit).toBe(20);
    for (const d of decisions.filter((d) => !d.allowed)) {
      expect(d).toMatchObject({ allowed: false, spent: "agent", limit: 20, remaining: 0 });
      expect(d.resetMs).toBeGreaterThan(0);
    }
    // The 30 refusals were recorded in neither window: the team has spent exactly 20 of its 100.
    expect(await suite.second.consumeRate(teamId, toolsRate(100))).toMatchObject({
      allowed: true,
      remaining: 79,
    });
    // Another agent of the team has its own window, and the team's has room.
    expect(await suite.store.consumeRate(teamId, withAgent(100, 20, "other"))).toMatchObject({
      allowed: true,
      limit: 20,
      remaining: 19,
    });
  });

  test("50 concurrent calls of five agents: the team's window refuses first, and charges no agent", async () => {
    const teamId = newTeam();
    // Ten calls per agent with an agent limit of 10: only the team's window (20) can refuse.
    const decisions = await Promise.all(
      times(50).map((i) => instanceFor(suite, i).consumeRate(teamId, withAgent(20, 10, `a${i % 5}`))),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(20);
    for (const d of decisions.filter((d) => !d.allowed))
      expect(d).toMatchObject({ spent: "team", limit: 20 });
    // Each agent's window holds exactly its admitted calls: nothing a refusal carried was left in it. (Asked with a
    // larger agent limit, so an agent whose ten calls were all admitted still has room to show its count.)
    const admitted = times(5).map((a) => decisions.filter((d, i) => d.allowed && i % 5 === a).length);
    const after = await Promise.all(
      times(5).map((a) => suite.second.consumeRate(teamId, withAgent(1000, 12, `a${a}`))),
    );
    after.forEach((d, a) => {
      expect(d.allowed).toBe(true);
      expect(d).toMatchObject({ limit: 12, remaining: 12 - (admitted[a] as number) - 1 });
    });
  });

  test("a request refused by its agent's window leaves the team's untouched, and the reverse", async () => {
    const teamId = newTeam();
    expect(await suite.store.consumeRate(teamId, withAgent(3, 1, "a"))).toMatchObject({
      allowed: true,
      limit: 1,
      remaining: 0,
    });
    for (let i = 0; i < 5; i++) {
      const refused = await instanceFor(suite, i).consumeRate(teamId, withAgent(3, 1, "a"));
      expect(refused).toMatchObject({ allowed: false, spent: "agent", limit: 1, remaining: 0 });
    }
    // The team holds one request: b may make two, then the team's window is full for everyone.
    expect(await suite.second.consumeRate(teamId, withAgent(3, 5, "b"))).toMatchObject({
      allowed: true,
      limit: 3,
      remaining: 1,
    });
    expect(await suite.store.consumeRate(teamId, withAgent(3, 5, "b"))).toMatchObject({
      allowed: true,
      limit: 3,
      remaining: 0,
    });
    const full = await suite.store.consumeRate(teamId, withAgent(3, 5, "c"));
    expect(full).toMatchObject({ allowed: false, spent: "team", limit: 3, remaining: 0 });
    // c's refusal was not recorded in c's window: with the team's room back, c has all of its own.
    suite.clock.advance(60_001);
    expect(await suite.store.consumeRate(teamId, withAgent(3, 5, "c"))).toMatchObject({
      allowed: true,
      limit: 3,
      remaining: 2,
    });
    expect(await suite.store.consumeRate(teamId, withAgent(100, 5, "c"))).toMatchObject({
      limit: 5,
      remaining: 3,
    });
  });

  test("the agent's window slides like the team's: resetMs is exact", async () => {
    const teamId = newTeam();
    const rate = withAgent(100, 2, "a", 1000);
    await suite.store.consumeRate(teamId, rate);
    suite.clock.advance(300);
    expect(await suite.store.consumeRate(teamId, rate)).toMatchObject({ allowed: true, remaining: 0 });
    suite.clock.advance(100);
    const refused = await suite.second.consumeRate(teamId, rate);
    expect(refused).toMatchObject({ allowed: false, spent: "agent" });
    expect(refused.resetMs).toBeGreaterThanOrEqual(600);
    expect(refused.resetMs).toBeLessThanOrEqual(601);
    suite.clock.advance(refused.resetMs - 1);
    expect((await suite.store.consumeRate(teamId, rate)).allowed).toBe(false);
    suite.clock.advance(1);
    expect((await suite.store.consumeRate(teamId, rate)).allowed).toBe(true);
  });

  test("no agent id: the team's window alone; the meta bucket never charges an agent", async () => {
    const teamId = newTeam();
    expect(await suite.store.consumeRate(teamId, withAgent(5, 1))).toMatchObject({
      allowed: true,
      limit: 5,
      remaining: 4,
    });
    expect(await suite.store.consumeRate(teamId, withAgent(5, 1))).toMatchObject({
      allowed: true,
      remaining: 3,
    });
    const meta: RateRequest = { bucket: "meta", limit: 5, windowMs: 60_000, agent: { id: "a", limit: 1 } };
    expect(await suite.store.consumeRate(teamId, meta)).toMatchObject({
      allowed: true,
      limit: 5,
      remaining: 4,
    });
    expect(await suite.store.consumeRate(teamId, meta)).toMatchObject({
      allowed: true,
      limit: 5,
      remaining: 3,
    });
  });

  test("resolveKey charges a bound key's agent whatever the request names; an unbound key's named agent", async () => {
    const teamId = newTeam();
    const bound = newKey(suite, teamId, { boundAgentId: "bound-agent" });
    const open = newKey(suite, teamId);
    await suite.store.createKey(bound, 50);
    await suite.store.createKey(open, 50);
    // Two calls of the bound key naming two other agents: both charged to bound-agent's window of 2.
    expect((await suite.store.resolveKey(teamId, bound.digest, withAgent(100, 2, "x"))).rate).toMatchObject({
      allowed: true,
      limit: 2,
      remaining: 1,
    });
    expect((await suite.second.resolveKey(teamId, bound.digest, withAgent(100, 2))).rate).toMatchObject({
      allowed: true,
      remaining: 0,
    });
    const refused = await suite.store.resolveKey(teamId, bound.digest, withAgent(100, 2, "y"));
    expect(refused.key?.keyId).toBe(bound.keyId);
    expect(refused.rate).toMatchObject({ allowed: false, spent: "agent", limit: 2 });
    // The same window as consumeRate's for that agent.
    expect(await suite.second.consumeRate(teamId, withAgent(100, 2, "bound-agent"))).toMatchObject({
      allowed: false,
      spent: "agent",
    });
    // An unbound key's call is charged to the agent it names: the bound key's calls naming x went to bound-agent,
    // so x's window is empty.
    expect((await suite.store.resolveKey(teamId, open.digest, withAgent(100, 2, "x"))).rate).toMatchObject({
      allowed: true,
      limit: 2,
      remaining: 1,
    });
    // The team's window saw every admitted call and none of the refused: 2 + 1.
    expect(await suite.store.consumeRate(teamId, toolsRate(100))).toMatchObject({ remaining: 96 });
    // An unbound key's call naming no agent is the team's alone: its refusal names no window.
    const teamOnly = newTeam();
    const plain = newKey(suite, teamOnly);
    await suite.store.createKey(plain, 50);
    expect((await suite.store.resolveKey(teamOnly, plain.digest, withAgent(1, 1))).rate).toEqual({
      allowed: true,
      limit: 1,
      remaining: 0,
      resetMs: expect.any(Number),
    });
    const alone = (await suite.second.resolveKey(teamOnly, plain.digest, withAgent(1, 1))).rate;
    expect(alone).toMatchObject({ allowed: false, limit: 1, remaining: 0 });
    expect(alone?.spent).toBeUndefined();
  });
  test("a key's own agent budget replaces the request's, also when that is 0; exact under 50 concurrent lookups", async () => {
    const teamId = newTeam();
    const own = newKey(suite, teamId, { agentRateLimitPerMinute: 7 });
    expect(await suite.store.createKey(own, 50)).toEqual(keyRecord(own));
    expect((await suite.second.listKeys(teamId)).find((k) => k.keyId === own.keyId)).toEqual(keyRecord(own));
    // The request asks for 20 per agent (or 0: no agent window at all); the key's 7 wins either way.
    const decisions = await Promise.all(
      times(50).map((i) =>
        instanceFor(suite, i).resolveKey(teamId, own.digest, withAgent(100, i % 2 === 0 ? 20 : 0, "looper")),
      ),
    );
    const ok = decisions.filter((d) => d.rate?.allowed);
    expect(ok).toHaveLength(7);
    for (const d of ok) expect(d.rate?.limit).toBe(7);
    for (const d of decisions.filter((d) => !d.rate?.allowed))
      expect(d.rate).toMatchObject({ allowed: false, spent: "agent", limit: 7, remaining: 0 });
    // Its agent's window is the agent's, as consumeRate sees it; the team spent exactly the 7 admitted.
    expect(await suite.second.consumeRate(teamId, withAgent(100, 7, "looper"))).toMatchObject({
      allowed: false,
      spent: "agent",
    });
    expect(await suite.store.consumeRate(teamId, toolsRate(100))).toMatchObject({ remaining: 92 });
    // A bound key's own budget is its agent's; the meta bucket never charges an agent.
    const bound = newKey(suite, teamId, { boundAgentId: "solo", agentRateLimitPerMinute: 1 });
    await suite.store.createKey(bound, 50);
    expect((await suite.store.resolveKey(teamId, bound.digest, withAgent(100, 0, "x"))).rate).toMatchObject({
      allowed: true,
      limit: 1,
    });
    expect((await suite.second.resolveKey(teamId, bound.digest, withAgent(100, 0, "y"))).rate).toMatchObject({
      allowed: false,
      spent: "agent",
    });
    const meta: RateRequest = {
      bucket: "meta",
      limit: 1000,
      windowMs: 60_000,
      agent: { id: "solo", limit: 0 },
    };
    expect((await suite.store.resolveKey(teamId, bound.digest, meta)).rate).toMatchObject({ allowed: true });
    // A key without its own budget and a request of 0: the team's window alone (no agent window, no spent).
    const plainTeam = newTeam();
    const plain = newKey(suite, plainTeam);
    await suite.store.createKey(plain, 50);
    for (let i = 0; i < 3; i++)
      expect(
        (await suite.store.resolveKey(plainTeam, plain.digest, withAgent(3, 0, "z"))).rate,
      ).toMatchObject({
        allowed: true,
        limit: 3,
      });
    const full = (await suite.second.resolveKey(plainTeam, plain.digest, withAgent(3, 0, "z"))).rate;
    expect(full).toMatchObject({ allowed: false, limit: 3 });
    expect(full?.spent).toBeUndefined();
  });
}
