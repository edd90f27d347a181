/**
 * Dynamic keys and provisioning (access-types.ts AccessStore keys): exact records, team-scoped lookup and
 * deletion, oldest-first listing, and limits that hold under concurrency.
 */
import { expect, test } from "bun:test";
import type { KeyRecord } from "../../../src/store/access-types.ts";
import {
  fieldsOf,
  instanceFor,
  keyRecord,
  newDigest,
  newKey,
  newTeam,
  type Suite,
  settle,
} from "./harness.ts";

const times = (n: number) => Array.from({ length: n }, (_, i) => i);

const KEY_FIELDS = ["createdAt", "hint", "keyId", "kind", "teamId"];

export function keyTests(suite: Suite): void {
  test("createKey returns the exact record and resolveKey finds it by team and digest", async () => {
    const teamId = newTeam();
    const plain = newKey(suite, teamId);
    const created = await suite.store.createKey(plain, 50);
    expect(created).toEqual(keyRecord(plain));
    expect(fieldsOf(created as KeyRecord)).toEqual(KEY_FIELDS);

    suite.clock.advance(5);
    const bound = newKey(suite, teamId, { note: "ci runner", boundAgentId: "agent-7" });
    expect(await suite.second.createKey(bound, 50)).toEqual(keyRecord(bound));

    const found = await suite.second.resolveKey(teamId, plain.digest);
    expect(found).toEqual({ key: keyRecord(plain) });
    expect(fieldsOf(found.key)).toEqual(KEY_FIELDS);
    expect(found.rate).toBeUndefined();
    const foundBound = await suite.store.resolveKey(teamId, bound.digest);
    expect(foundBound).toEqual({ key: keyRecord(bound) });
    expect(fieldsOf(foundBound.key)).toEqual([...KEY_FIELDS, "boundAgentId", "note"].sort());
    expect(foundBound.key?.createdAt).toBe(new Date(suite.clock.now()).toISOString());
  });

  test("resolveKey with a wrong digest or for another team finds nothing", async () => {
    const teamId = newTeam();
    const key = newKey(suite, teamId);
    await suite.store.createKey(key, 50);
    expect(await suite.store.resolveKey(teamId, newDigest())).toEqual({ key: null });
    expect(await suite.store.resolveKey(newTeam(), key.digest)).toEqual({ key: null });
    // The other team has a key of its own: still only its own digest resolves for it.
    const other = newTeam();
    await suite.store.createKey(newKey(suite, other), 50);
    expect(await suite.second.resolveKey(other, key.digest)).toEqual({ key: null });
    expect(await suite.second.resolveKey(teamId, key.digest)).toEqual({ key: keyRecord(key) });
  });

  test("listKeys: the team's keys oldest first, operator kind included, no other team's", async () => {
    const teamId = newTeam();
    // Ids sort the other way round from creation, so an id-ordered listing fails.
    const operator = newKey(suite, teamId, {
      kind: "operator",
      keyId: `k_${teamId}_zzzzzzzz`,
      note: "first run",
    });
    expect(await suite.store.provisionTeam(operator)).toEqual(keyRecord(operator));
    suite.clock.advance(1);
    const first = newKey(suite, teamId, { keyId: `k_${teamId}_mmmmmmmm` });
    await suite.store.createKey(first, 50);
    suite.clock.advance(1);
    const second = newKey(suite, teamId, { keyId: `k_${teamId}_00000000`, boundAgentId: "a" });
    await suite.second.createKey(second, 50);
    await suite.store.createKey(newKey(suite, newTeam()), 50);

    const listed = await suite.second.listKeys(teamId);
    expect(listed).toEqual([keyRecord(operator), keyRecord(first), keyRecord(second)]);
    for (const key of listed) expect(fieldsOf(key)).not.toContain("digest");
    expect(await suite.store.listKeys(newTeam())).toEqual([]);
  });

  test("createKey over maxKeys → 'limit'; operator-kind keys do not count; a deleted key frees its slot", async () => {
    const teamId = newTeam();
    await suite.store.provisionTeam(newKey(suite, teamId, { kind: "operator" }));
    const keys = times(3).map(() => newKey(suite, teamId));
    for (const key of keys) expect(await suite.store.createKey(key, 3)).toEqual(keyRecord(key));
    const refused = newKey(suite, teamId);
    expect(await settle(suite.second.createKey(refused, 3))).toBe("limit");
    expect(await suite.store.resolveKey(teamId, refused.digest)).toEqual({ key: null });
    expect(await suite.store.listKeys(teamId)).toHaveLength(4);

    expect(await suite.store.deleteKey(teamId, keys[1]!.keyId)).toBe(true);
    expect(await suite.second.createKey(refused, 3)).toEqual(keyRecord(refused));
    expect(await settle(suite.store.createKey(newKey(suite, teamId), 3))).toBe("limit");
  });

  test("20 concurrent createKey with maxKeys 5: exactly 5 stored", async () => {
    const teamId = newTeam();
    const keys = times(20).map(() => newKey(suite, teamId));
    const results = await Promise.all(keys.map((key, i) => settle(instanceFor(suite, i).createKey(key, 5))));
    const stored = results.filter((r): r is KeyRecord => typeof r !== "string");
    expect(stored).toHaveLength(5);
    expect(results.filter((r) => r === "limit")).toHaveLength(15);
    const listed = await suite.store.listKeys(teamId);
    expect(new Set(listed.map((k) => k.keyId))).toEqual(new Set(stored.map((k) => k.keyId)));
    let resolvable = 0;
    for (const key of keys) if ((await suite.second.resolveKey(teamId, key.digest)).key) resolvable++;
    expect(resolvable).toBe(5);
  });

  test("deleteKey by the owning team → true and the key stops resolving; again → false", async () => {
    const teamId = newTeam();
    const key = newKey(suite, teamId);
    const kept = newKey(suite, teamId);
    await suite.store.createKey(key, 50);
    await suite.store.createKey(kept, 50);
    expect(await suite.second.deleteKey(teamId, key.keyId)).toBe(true);
    expect(await suite.store.resolveKey(teamId, key.digest)).toEqual({ key: null });
    expect(await suite.store.listKeys(teamId)).toEqual([keyRecord(kept)]);
    expect(await suite.store.deleteKey(teamId, key.keyId)).toBe(false);
    expect(await suite.store.deleteKey(teamId, `k_${teamId}_${"x".repeat(8)}`)).toBe(false);
    expect(await suite.store.resolveKey(teamId, kept.digest)).toEqual({ key: keyRecord(kept) });
  });

  test("deleteKey naming another team → false, and the key keeps working", async () => {
    const teamId = newTeam();
    const key = newKey(suite, teamId);
    await suite.store.createKey(key, 50);
    const intruder = newTeam();
    await suite.store.createKey(newKey(suite, intruder), 50);
    expect(await suite.second.deleteKey(intruder, key.keyId)).toBe(false);
    expect(await suite.store.resolveKey(teamId, key.digest)).toEqual({ key: keyRecord(key) });
    expect(await suite.store.listKeys(teamId)).toEqual([keyRecord(key)]);
  });
}

export function provisionTests(suite: Suite): void {
  test("provisionTeam on a new team stores its first key; again → 'exists'", async () => {
    const teamId = newTeam();
    const key = newKey(suite, teamId, { note: "provisioned" });
    const created = await suite.store.provisionTeam(key);
    expect(created).toEqual(keyRecord(key));
    expect(fieldsOf(created as KeyRecord)).toEqual([...KEY_FIELDS, "note"].sort());
    expect(await suite.store.resolveKey(teamId, key.digest)).toEqual({ key: keyRecord(key) });

    const again = newKey(suite, teamId);
    expect(await settle(suite.second.provisionTeam(again))).toBe("conflict");
    expect(await suite.store.resolveKey(teamId, again.digest)).toEqual({ key: null });
    expect(await suite.store.listKeys(teamId)).toEqual([keyRecord(key)]);
  });

  test("provisionTeam → 'exists' when the team already has a dynamic key or an operator key", async () => {
    const dynamicTeam = newTeam();
    await suite.store.createKey(newKey(suite, dynamicTeam), 50);
    expect(await settle(suite.store.provisionTeam(newKey(suite, dynamicTeam)))).toBe("conflict");
    expect(await suite.store.listKeys(dynamicTeam)).toHaveLength(1);

    const operatorTeam = newTeam();
    await suite.store.provisionTeam(newKey(suite, operatorTeam, { kind: "operator" }));
    expect(await settle(suite.second.provisionTeam(newKey(suite, operatorTeam)))).toBe("conflict");
    expect(await suite.store.listKeys(operatorTeam)).toHaveLength(1);
  });

  test("a team that owns a room, even without keys, cannot be provisioned", async () => {
    const teamId = newTeam();
    await suite.store.createRoom({ roomId: `r-${teamId}`, teamId });
    expect(await settle(suite.store.provisionTeam(newKey(suite, teamId)))).toBe("conflict");
    expect(await suite.store.listKeys(teamId)).toEqual([]);
  });

  test("10 concurrent provisions of one fresh team: exactly one record", async () => {
    const teamId = newTeam();
    const keys = times(10).map(() => newKey(suite, teamId));
    const results = await Promise.all(keys.map((key, i) => settle(instanceFor(suite, i).provisionTeam(key))));
    const won = results.filter((r): r is KeyRecord => typeof r !== "string");
    expect(won).toHaveLength(1);
    expect(await suite.store.listKeys(teamId)).toEqual(won);
  });
}
