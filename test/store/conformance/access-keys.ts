/**
 * Dynamic keys and provisioning (access-types.ts AccessStore keys): exact records, team-scoped lookup and
 * deletion, oldest-first listing, and limits that hold under concurrency.
 */
import { expect, test } from "bun:test";
import type { KeyRecord } from "../../../src/store/access-types.ts";
import { type Ctx, fieldsOf, instanceFor, keyRecord, newDigest, newKey, newTeam, settle } from "./harness.ts";

const times = (n: number) => Array.from({ length: n }, (_, i) => i);

const KEY_FIELDS = ["createdAt", "hint", "keyId", "kind", "teamId"];

export function keyTests(ctx: Ctx): void {
  test("createKey returns the exact record and resolveKey finds it by team and digest", async () => {
    const teamId = newTeam();
    const plain = newKey(ctx, teamId);
    const created = await ctx.store.createKey(plain, 50);
    expect(created).toEqual(keyRecord(plain));
    expect(fieldsOf(created as KeyRecord)).toEqual(KEY_FIELDS);

    ctx.clock.advance(5);
    const bound = newKey(ctx, teamId, { note: "ci runner", boundAgentId: "agent-7" });
    expect(await ctx.second.createKey(bound, 50)).toEqual(keyRecord(bound));

    const found = await ctx.second.resolveKey(teamId, plain.digest);
    expect(found).toEqual({ key: keyRecord(plain) });
    expect(fieldsOf(found.key)).toEqual(KEY_FIELDS);
    expect(found.rate).toBeUndefined();
    const foundBound = await ctx.store.resolveKey(teamId, bound.digest);
    expect(foundBound).toEqual({ key: keyRecord(bound) });
    expect(fieldsOf(foundBound.key)).toEqual([...KEY_FIELDS, "boundAgentId", "note"].sort());
    expect(foundBound.key?.createdAt).toBe(new Date(ctx.clock.now()).toISOString());
  });

  test("resolveKey with a wrong digest or for another team finds nothing", async () => {
    const teamId = newTeam();
    const key = newKey(ctx, teamId);
    await ctx.store.createKey(key, 50);
    expect(await ctx.store.resolveKey(teamId, newDigest())).toEqual({ key: null });
    expect(await ctx.store.resolveKey(newTeam(), key.digest)).toEqual({ key: null });
    // The other team has a key of its own: still only its own digest resolves for it.
    const other = newTeam();
    await ctx.store.createKey(newKey(ctx, other), 50);
    expect(await ctx.second.resolveKey(other, key.digest)).toEqual({ key: null });
    expect(await ctx.second.resolveKey(teamId, key.digest)).toEqual({ key: keyRecord(key) });
  });

  test("listKeys: the team's keys oldest first, operator kind included, no other team's", async () => {
    const teamId = newTeam();
    // Ids sort the other way round from creation, so an id-ordered listing fails.
    const operator = newKey(ctx, teamId, {
      kind: "operator",
      keyId: `k_${teamId}_zzzzzzzz`,
      note: "first run",
    });
    expect(await ctx.store.provisionTeam(operator)).toEqual(keyRecord(operator));
    ctx.clock.advance(1);
    const first = newKey(ctx, teamId, { keyId: `k_${teamId}_mmmmmmmm` });
    await ctx.store.createKey(first, 50);
    ctx.clock.advance(1);
    const second = newKey(ctx, teamId, { keyId: `k_${teamId}_00000000`, boundAgentId: "a" });
    await ctx.second.createKey(second, 50);
    await ctx.store.createKey(newKey(ctx, newTeam()), 50);

    const listed = await ctx.second.listKeys(teamId);
    expect(listed).toEqual([keyRecord(operator), keyRecord(first), keyRecord(second)]);
    for (const key of listed) expect(fieldsOf(key)).not.toContain("digest");
    expect(await ctx.store.listKeys(newTeam())).toEqual([]);
  });

  test("createKey over maxKeys → 'limit'; operator-kind keys do not count; a deleted key frees its slot", async () => {
    const teamId = newTeam();
    await ctx.store.provisionTeam(newKey(ctx, teamId, { kind: "operator" }));
    const keys = times(3).map(() => newKey(ctx, teamId));
    for (const key of keys) expect(await ctx.store.createKey(key, 3)).toEqual(keyRecord(key));
    const refused = newKey(ctx, teamId);
    expect(await settle(ctx.second.createKey(refused, 3))).toBe("limit");
    expect(await ctx.store.resolveKey(teamId, refused.digest)).toEqual({ key: null });
    expect(await ctx.store.listKeys(teamId)).toHaveLength(4);

    expect(await ctx.store.deleteKey(teamId, keys[1]!.keyId)).toBe(true);
    expect(await ctx.second.createKey(refused, 3)).toEqual(keyRecord(refused));
    expect(await settle(ctx.store.createKey(newKey(ctx, teamId), 3))).toBe("limit");
  });

  test("20 concurrent createKey with maxKeys 5: exactly 5 stored", async () => {
    const teamId = newTeam();
    const keys = times(20).map(() => newKey(ctx, teamId));
    const results = await Promise.all(keys.map((key, i) => settle(instanceFor(ctx, i).createKey(key, 5))));
    const stored = results.filter((r): r is KeyRecord => typeof r !== "string");
    expect(stored).toHaveLength(5);
    expect(results.filter((r) => r === "limit")).toHaveLength(15);
    const listed = await ctx.store.listKeys(teamId);
    expect(new Set(listed.map((k) => k.keyId))).toEqual(new Set(stored.map((k) => k.keyId)));
    let resolvable = 0;
    for (const key of keys) if ((await ctx.second.resolveKey(teamId, key.digest)).key) resolvable++;
    expect(resolvable).toBe(5);
  });

  test("deleteKey by the owning team → true and the key stops resolving; again → false", async () => {
    const teamId = newTeam();
    const key = newKey(ctx, teamId);
    const kept = newKey(ctx, teamId);
    await ctx.store.createKey(key, 50);
    await ctx.store.createKey(kept, 50);
    expect(await ctx.second.deleteKey(teamId, key.keyId)).toBe(true);
    expect(await ctx.store.resolveKey(teamId, key.digest)).toEqual({ key: null });
    expect(await ctx.store.listKeys(teamId)).toEqual([keyRecord(kept)]);
    expect(await ctx.store.deleteKey(teamId, key.keyId)).toBe(false);
    expect(await ctx.store.deleteKey(teamId, `k_${teamId}_${"x".repeat(8)}`)).toBe(false);
    expect(await ctx.store.resolveKey(teamId, kept.digest)).toEqual({ key: keyRecord(kept) });
  });

  test("deleteKey naming another team → false, and the key keeps working", async () => {
    const teamId = newTeam();
    const key = newKey(ctx, teamId);
    await ctx.store.createKey(key, 50);
    const intruder = newTeam();
    await ctx.store.createKey(newKey(ctx, intruder), 50);
    expect(await ctx.second.deleteKey(intruder, key.keyId)).toBe(false);
    expect(await ctx.store.resolveKey(teamId, key.digest)).toEqual({ key: keyRecord(key) });
    expect(await ctx.store.listKeys(teamId)).toEqual([keyRecord(key)]);
  });
}

export function provisionTests(ctx: Ctx): void {
  test("provisionTeam on a new team stores its first key; again → 'exists'", async () => {
    const teamId = newTeam();
    const key = newKey(ctx, teamId, { note: "provisioned" });
    const created = await ctx.store.provisionTeam(key);
    expect(created).toEqual(keyRecord(key));
    expect(fieldsOf(created as KeyRecord)).toEqual([...KEY_FIELDS, "note"].sort());
    expect(await ctx.store.resolveKey(teamId, key.digest)).toEqual({ key: keyRecord(key) });

    const again = newKey(ctx, teamId);
    expect(await settle(ctx.second.provisionTeam(again))).toBe("conflict");
    expect(await ctx.store.resolveKey(teamId, again.digest)).toEqual({ key: null });
    expect(await ctx.store.listKeys(teamId)).toEqual([keyRecord(key)]);
  });

  test("provisionTeam → 'exists' when the team already has a dynamic key or an operator key", async () => {
    const dynamicTeam = newTeam();
    await ctx.store.createKey(newKey(ctx, dynamicTeam), 50);
    expect(await settle(ctx.store.provisionTeam(newKey(ctx, dynamicTeam)))).toBe("conflict");
    expect(await ctx.store.listKeys(dynamicTeam)).toHaveLength(1);

    const operatorTeam = newTeam();
    await ctx.store.provisionTeam(newKey(ctx, operatorTeam, { kind: "operator" }));
    expect(await settle(ctx.second.provisionTeam(newKey(ctx, operatorTeam)))).toBe("conflict");
    expect(await ctx.store.listKeys(operatorTeam)).toHaveLength(1);
  });

  test("10 concurrent provisions of one fresh team: exactly one record", async () => {
    const teamId = newTeam();
    const keys = times(10).map(() => newKey(ctx, teamId));
    const results = await Promise.all(keys.map((key, i) => settle(instanceFor(ctx, i).provisionTeam(key))));
    const won = results.filter((r): r is KeyRecord => typeof r !== "string");
    expect(won).toHaveLength(1);
    expect(await ctx.store.listKeys(teamId)).toEqual(won);
  });
}
