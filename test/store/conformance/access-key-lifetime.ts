/**
 * Keys with a lifetime and a scope (access-types.ts resolveKey, createKey, rotateKey; protocol/key-life.ts): an
 * expired key reads as unknown and is charged nothing; lastUsedAt is written by the charged lookup at most once a
 * minute; rotation is one atomic step of which, when two race, one wins. Every check runs on two store instances.
 */
import { expect, test } from "bun:test";
import { KEY_USE_STEP_MS } from "../../../src/protocol/key-life.ts";
import { iso } from "../../../src/protocol/time.ts";
import type { KeyRecord } from "../../../src/store/access-types.ts";
import {
  expectRoomError,
  instanceFor,
  keyRecord,
  newKey,
  newTeam,
  type Suite,
  settle,
  toolsRate,
} from "./harness.ts";

const HOUR = 3_600_000;
const ROTATED =
  /^Key k_[a-z0-9-]+_[0-9a-z]{8} was already rotated \(its successor is k_[a-z0-9-]+_[0-9a-z]{8}\)/;

export function keyLifetimeTests(suite: Suite): void {
  const at = (offsetMs: number) => iso(suite.clock.now() + offsetMs);

  test("a key's expiresAt and scope are stored exactly; at its end it reads as unknown and is charged nothing", async () => {
    const teamId = newTeam();
    const key = newKey(suite, teamId, {
      expiresAt: at(HOUR),
      rooms: ["room-a", "room-b"],
      readOnly: true,
      note: "ci",
    });
    expect(await suite.store.createKey(key, 50)).toEqual(keyRecord(key));
    expect(await suite.second.resolveKey(teamId, key.digest)).toEqual({ key: keyRecord(key) });
    expect(await suite.second.listKeys(teamId)).toEqual([keyRecord(key)]);

    suite.clock.advance(HOUR - 1);
    expect((await suite.store.resolveKey(teamId, key.digest)).key?.keyId).toBe(key.keyId);
    suite.clock.advance(1);
    // Exactly at expiresAt the key is over, on both instances, charged or not.
    expect(await suite.store.resolveKey(teamId, key.digest)).toEqual({ key: null });
    for (let i = 0; i < 4; i++) {
      const refused = await instanceFor(suite, i).resolveKey(teamId, key.digest, toolsRate(2));
      expect(refused).toEqual({ key: null });
    }
    // Nothing was charged (the window is untouched) and no use was written.
    expect(await suite.store.consumeRate(teamId, toolsRate(2))).toMatchObject({
      allowed: true,
      remaining: 1,
    });
    expect(await suite.second.listKeys(teamId)).toEqual([keyRecord(key)]);
  });

  test("expired keys stay listed but do not count towards the key limit", async () => {
    const teamId = newTeam();
    const short = newKey(suite, teamId, { expiresAt: at(1000) });
    const long = newKey(suite, teamId);
    await suite.store.createKey(short, 2);
    await suite.second.createKey(long, 2);
    expect(await settle(suite.store.createKey(newKey(suite, teamId), 2))).toBe("limit");
    suite.clock.advance(1000);
    const third = newKey(suite, teamId);
    expect(await suite.second.createKey(third, 2)).toEqual(keyRecord(third));
    expect((await suite.store.listKeys(teamId)).map((k) => k.keyId)).toEqual([
      short.keyId,
      long.keyId,
      third.keyId,
    ]);
  });

  test("lastUsedAt: written by the charged lookup only, at most once a minute, shown by listKeys", async () => {
    const teamId = newTeam();
    const key = newKey(suite, teamId);
    await suite.store.createKey(key, 50);
    // The uncharged lookup is a read: it records nothing.
    await suite.store.resolveKey(teamId, key.digest);
    await suite.second.resolveKey(teamId, key.digest);
    expect(await suite.store.listKeys(teamId)).toEqual([keyRecord(key)]);

    const first = suite.clock.now();
    const found = await suite.second.resolveKey(teamId, key.digest, toolsRate(100));
    // The record answered is the key as it was before this lookup.
    expect(found.key).toEqual(keyRecord(key));
    const used = (ms: number): KeyRecord => ({ ...keyRecord(key), lastUsedAt: iso(ms) });
    expect(await suite.store.listKeys(teamId)).toEqual([used(first)]);

    // Within the minute: no write, whichever instance looks it up.
    suite.clock.advance(KEY_USE_STEP_MS - 1);
    for (let i = 0; i < 4; i++) {
      const again = await instanceFor(suite, i).resolveKey(teamId, key.digest, toolsRate(100));
      expect(again.key).toEqual(used(first));
    }
    expect(await suite.second.listKeys(teamId)).toEqual([used(first)]);

    // A minute later: written again.
    suite.clock.advance(1);
    const later = suite.clock.now();
    expect((await suite.store.resolveKey(teamId, key.digest, toolsRate(100))).key).toEqual(used(first));
    expect(await suite.second.listKeys(teamId)).toEqual([used(later)]);
    expect((await suite.second.resolveKey(teamId, key.digest)).key).toEqual(used(later));
  });

  test("createKey keeps lastUsedAt and rotatedTo as given (a migrated key), and deleteKey forgets the use", async () => {
    const teamId = newTeam();
    const copied = newKey(suite, teamId, {
      lastUsedAt: at(-5000),
      rotatedTo: `k_${teamId}_abcdefgh`,
      expiresAt: at(HOUR),
    });
    expect(await suite.store.createKey(copied, 50)).toEqual(keyRecord(copied));
    expect(await suite.second.listKeys(teamId)).toEqual([keyRecord(copied)]);
    expect(await suite.second.keyDigests(teamId)).toEqual([copied]);
    expect(await suite.store.deleteKey(teamId, copied.keyId)).toBe(true);
    const again = newKey(suite, teamId, { keyId: copied.keyId });
    await suite.second.createKey(again, 50);
    expect(await suite.store.listKeys(teamId)).toEqual([keyRecord(again)]);
  });

  test("rotateKey: a successor is stored and the old key works until its grace ends, then reads as unknown", async () => {
    const teamId = newTeam();
    const old = newKey(suite, teamId, { boundAgentId: "builder", rooms: ["room-a"], note: "ci" });
    await suite.store.createKey(old, 50);
    await suite.store.resolveKey(teamId, old.digest, toolsRate(100));
    const usedAt = iso(suite.clock.now());
    suite.clock.advance(10);
    const successor = newKey(suite, teamId, { boundAgentId: "builder", rooms: ["room-a"], note: "ci" });
    const graceEndsAt = at(60_000);
    const result = await suite.second.rotateKey(teamId, old.keyId, successor, graceEndsAt, 50);
    const rotated = {
      ...keyRecord(old),
      lastUsedAt: usedAt,
      expiresAt: graceEndsAt,
      rotatedTo: successor.keyId,
    };
    expect(result).toEqual({ rotated, successor: keyRecord(successor) });
    expect(await suite.store.listKeys(teamId)).toEqual([rotated, keyRecord(successor)]);
    expect((await suite.store.resolveKey(teamId, old.digest)).key).toEqual(rotated);
    expect((await suite.second.resolveKey(teamId, successor.digest)).key).toEqual(keyRecord(successor));

    suite.clock.advance(60_000);
    expect(await suite.store.resolveKey(teamId, old.digest, toolsRate(100))).toEqual({ key: null });
    expect((await suite.second.resolveKey(teamId, successor.digest, toolsRate(100))).key?.keyId).toBe(
      successor.keyId,
    );
    // Over: it cannot be rotated any more.
    expect(await suite.store.rotateKey(teamId, old.keyId, newKey(suite, teamId), at(1000), 50)).toBeNull();
  });

  test("rotateKey never lengthens the old key's life, and refuses a second rotation clearly", async () => {
    const teamId = newTeam();
    const old = newKey(suite, teamId, { expiresAt: at(5000) });
    await suite.store.createKey(old, 50);
    const successor = newKey(suite, teamId);
    const result = await suite.store.rotateKey(teamId, old.keyId, successor, at(HOUR), 50);
    expect(result?.rotated.expiresAt).toBe(old.expiresAt);
    expect(result?.rotated.rotatedTo).toBe(successor.keyId);
    const error = await expectRoomError(
      suite.second.rotateKey(teamId, old.keyId, newKey(suite, teamId), at(HOUR), 50),
      "conflict",
      ROTATED,
    );
    expect(error.message).toContain(successor.keyId);
    expect(await suite.store.listKeys(teamId)).toHaveLength(2);
  });

  test("rotateKey of an unknown key, another team's, an operator key → null, writing nothing", async () => {
    const teamId = newTeam();
    const operator = newKey(suite, teamId, { kind: "operator" });
    await suite.store.provisionTeam(operator);
    const mine = newKey(suite, teamId);
    await suite.store.createKey(mine, 50);
    const successor = () => newKey(suite, teamId);
    expect(await suite.store.rotateKey(teamId, `k_${teamId}_zzzzzzzz`, successor(), at(1000), 50)).toBeNull();
    expect(await suite.second.rotateKey(teamId, operator.keyId, successor(), at(1000), 50)).toBeNull();
    const other = newTeam();
    expect(await suite.store.rotateKey(other, mine.keyId, newKey(suite, other), at(1000), 50)).toBeNull();
    expect(await suite.second.listKeys(teamId)).toEqual([keyRecord(operator), keyRecord(mine)]);
    expect(await suite.second.listKeys(other)).toEqual([]);
  });

  test("rotateKey at the key limit → 'limit' (the old key still counts), nothing changed", async () => {
    const teamId = newTeam();
    const old = newKey(suite, teamId);
    await suite.store.createKey(old, 2);
    await suite.store.createKey(newKey(suite, teamId), 2);
    const successor = newKey(suite, teamId);
    expect(await settle(suite.second.rotateKey(teamId, old.keyId, successor, at(1000), 2))).toBe("limit");
    expect((await suite.store.listKeys(teamId)).find((k) => k.keyId === old.keyId)).toEqual(keyRecord(old));
    expect(await suite.store.resolveKey(teamId, successor.digest)).toEqual({ key: null });
    expect((await suite.store.rotateKey(teamId, old.keyId, successor, at(1000), 3))?.successor).toEqual(
      keyRecord(successor),
    );
  });

  test("two concurrent rotations of one key on two instances: exactly one wins, the other is told", async () => {
    for (let round = 0; round < 3; round++) {
      const teamId = newTeam();
      const old = newKey(suite, teamId);
      await suite.store.createKey(old, 50);
      const successors = [newKey(suite, teamId), newKey(suite, teamId)];
      const results = await Promise.all(
        successors.map((s, i) => settle(instanceFor(suite, i).rotateKey(teamId, old.keyId, s, at(1000), 50))),
      );
      const won = results.filter((r) => r !== null && typeof r === "object");
      expect(won).toHaveLength(1);
      expect(results.filter((r) => r === "conflict")).toHaveLength(1);
      const winner = (won[0] as { successor: KeyRecord }).successor.keyId;
      const listed = await suite.second.listKeys(teamId);
      expect(listed.map((k) => k.keyId)).toContain(winner);
      expect(listed).toHaveLength(2);
      expect(listed.find((k) => k.keyId === old.keyId)?.rotatedTo).toBe(winner);
      const loser = successors.find((s) => s.keyId !== winner);
      expect(await suite.store.resolveKey(teamId, loser?.digest ?? "")).toEqual({ key: null });
    }
  });
}
