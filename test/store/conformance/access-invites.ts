/**
 * Invites (AccessStore invites): issued only by the room's owner, never claiming; valid only while unexpired,
 * unrevoked and while the issuing team owns the room; a live-invite limit; a rate bucket of their own.
 */
import { expect, test } from "bun:test";
import { ACCESS_DENIED } from "../../../src/protocol/errors.ts";
import type { RateDecision } from "../../../src/store/access-types.ts";
import {
  expectRoomError,
  fieldsOf,
  inviteRecord,
  newDigest,
  newInvite,
  newScope,
  newTask,
  newTeam,
  ownedRoom,
  randomId8,
  type Suite,
  settle,
  toolsRate,
} from "./harness.ts";

const allowed = (limit: number, remaining: number): RateDecision => ({
  allowed: true,
  limit,
  remaining,
  resetMs: 0,
});

export function inviteTests(suite: Suite): void {
  test("createInvite on an unowned room → denied, and the room stays unowned", async () => {
    const scope = newScope();
    await expectRoomError(suite.store.createInvite(newInvite(suite, scope), 50), "denied", ACCESS_DENIED);
    expect(await suite.store.roomStats(scope.roomId)).toBeNull();
    const claimer = { roomId: scope.roomId, teamId: newTeam() };
    await suite.second.addTask(claimer, newTask("mine"));
    expect((await suite.store.roomStats(scope.roomId))?.owner).toBe(claimer.teamId);
  });

  test("createInvite on another team's room → denied, nothing stored", async () => {
    const owner = await ownedRoom(suite.store);
    const intruder = { roomId: owner.roomId, teamId: newTeam() };
    const invite = newInvite(suite, intruder);
    await expectRoomError(suite.second.createInvite(invite, 50), "denied", ACCESS_DENIED);
    expect(await suite.store.listInvites(owner)).toEqual([]);
    expect(await suite.store.resolveInvite(owner.roomId, invite.digest)).toEqual({ invite: null });
  });

  test("createInvite on the team's own room returns the exact record; resolveInvite finds it", async () => {
    const scope = await ownedRoom(suite.store);
    const invite = newInvite(suite, scope);
    const created = await suite.store.createInvite(invite, 50);
    expect(created).toEqual(inviteRecord(invite));
    expect(fieldsOf(created as object)).toEqual([
      "createdAt",
      "expiresAt",
      "hint",
      "roomId",
      "teamId",
      "tokenId",
    ]);
    const bound = newInvite(suite, scope, 60_000, { agentId: "reviewer" });
    expect(await suite.second.createInvite(bound, 50)).toEqual(inviteRecord(bound));

    const found = await suite.second.resolveInvite(scope.roomId, invite.digest);
    expect(found).toEqual({ invite: inviteRecord(invite) });
    expect(fieldsOf(found.invite)).not.toContain("digest");
    expect(found.rate).toBeUndefined();
    expect(await suite.store.resolveInvite(scope.roomId, bound.digest)).toEqual({
      invite: inviteRecord(bound),
    });
    expect(await suite.store.resolveInvite(scope.roomId, bound.digest, toolsRate(10))).toEqual({
      invite: inviteRecord(bound),
      rate: allowed(10, 9),
    });
  });

  test("resolveInvite with a wrong digest, or for another room, finds nothing and charges nothing", async () => {
    const scope = await ownedRoom(suite.store);
    const invite = newInvite(suite, scope);
    await suite.store.createInvite(invite, 50);
    const rate = toolsRate(3);
    for (let i = 0; i < 5; i++) {
      expect(await suite.store.resolveInvite(scope.roomId, newDigest(), rate)).toEqual({ invite: null });
    }
    const otherRoom = await ownedRoom(suite.store);
    expect(await suite.second.resolveInvite(otherRoom.roomId, invite.digest, rate)).toEqual({ invite: null });
    expect(await suite.second.resolveInvite(newScope().roomId, invite.digest, rate)).toEqual({
      invite: null,
    });
    expect(await suite.store.resolveInvite(scope.roomId, invite.digest, rate)).toEqual({
      invite: inviteRecord(invite),
      rate: allowed(3, 2),
    });
  });

  test("an invite stops resolving once the clock passes expiresAt, and leaves listInvites", async () => {
    const scope = await ownedRoom(suite.store);
    const invite = newInvite(suite, scope, 60_000);
    await suite.store.createInvite(invite, 50);
    suite.clock.advance(59_999);
    expect(await suite.store.resolveInvite(scope.roomId, invite.digest)).toEqual({
      invite: inviteRecord(invite),
    });
    expect(await suite.store.listInvites(scope)).toEqual([inviteRecord(invite)]);
    suite.clock.advance(2);
    expect(await suite.store.resolveInvite(scope.roomId, invite.digest)).toEqual({ invite: null });
    expect(await suite.second.resolveInvite(scope.roomId, invite.digest, toolsRate(5))).toEqual({
      invite: null,
    });
    expect(await suite.store.listInvites(scope)).toEqual([]);
  });

  test("deleteInvite revokes: true, then the invite no longer resolves; again → false", async () => {
    const scope = await ownedRoom(suite.store);
    const invite = newInvite(suite, scope);
    const kept = newInvite(suite, scope);
    await suite.store.createInvite(invite, 50);
    await suite.store.createInvite(kept, 50);
    expect(await suite.second.deleteInvite(scope, invite.tokenId)).toBe(true);
    expect(await suite.store.resolveInvite(scope.roomId, invite.digest)).toEqual({ invite: null });
    expect(await suite.store.listInvites(scope)).toEqual([inviteRecord(kept)]);
    expect(await suite.store.deleteInvite(scope, invite.tokenId)).toBe(false);
    expect(await suite.store.deleteInvite(scope, `i_${randomId8()}`)).toBe(false);
    expect(await suite.store.resolveInvite(scope.roomId, kept.digest)).toEqual({
      invite: inviteRecord(kept),
    });
  });

  test("deleteRoom ends the room's invites, even when the same team claims the id again", async () => {
    const scope = await ownedRoom(suite.store);
    const invite = newInvite(suite, scope);
    await suite.store.createInvite(invite, 50);
    await suite.store.deleteRoom(scope);
    expect(await suite.store.resolveInvite(scope.roomId, invite.digest)).toEqual({ invite: null });
    await suite.second.addTask(scope, newTask("again"));
    expect(await suite.store.resolveInvite(scope.roomId, invite.digest)).toEqual({ invite: null });
    expect(await suite.store.listInvites(scope)).toEqual([]);
  });

  test("after deleteRoom and a claim by another team, the old team's invite stays dead", async () => {
    const scope = await ownedRoom(suite.store);
    const invite = newInvite(suite, scope);
    await suite.store.createInvite(invite, 50);
    await suite.store.deleteRoom(scope);
    const next = { roomId: scope.roomId, teamId: newTeam() };
    await suite.second.addTask(next, newTask("new owner"));
    expect(await suite.store.resolveInvite(scope.roomId, invite.digest)).toEqual({ invite: null });
    expect(await suite.store.resolveInvite(scope.roomId, invite.digest, toolsRate(5))).toEqual({
      invite: null,
    });
    expect(await suite.store.listInvites(next)).toEqual([]);
    await expectRoomError(suite.store.listInvites(scope), "denied", ACCESS_DENIED);
  });

  test("maxInvites: 'limit' at the limit; expired invites do not count", async () => {
    const scope = await ownedRoom(suite.store);
    const shortLived = newInvite(suite, scope, 1_000);
    const longLived = newInvite(suite, scope);
    expect(await suite.store.createInvite(shortLived, 2)).toEqual(inviteRecord(shortLived));
    expect(await suite.second.createInvite(longLived, 2)).toEqual(inviteRecord(longLived));
    const third = newInvite(suite, scope);
    expect(await settle(suite.store.createInvite(third, 2))).toBe("limit");
    expect(await suite.store.resolveInvite(scope.roomId, third.digest)).toEqual({ invite: null });
    suite.clock.advance(1_001);
    const fourth = newInvite(suite, scope);
    expect(await suite.second.createInvite(fourth, 2)).toEqual(inviteRecord(fourth));
    expect(await settle(suite.store.createInvite(newInvite(suite, scope), 2))).toBe("limit");
    expect(await suite.store.listInvites(scope)).toEqual([inviteRecord(longLived), inviteRecord(fourth)]);
  });

  test("concurrent createInvite never exceeds maxInvites", async () => {
    const scope = await ownedRoom(suite.store);
    const invites = Array.from({ length: 12 }, () => newInvite(suite, scope));
    const results = await Promise.all(
      invites.map((invite, i) => settle((i % 2 === 0 ? suite.store : suite.second).createInvite(invite, 4))),
    );
    expect(results.filter((r) => r !== "limit")).toHaveLength(4);
    expect(await suite.store.listInvites(scope)).toHaveLength(4);
  });

  test("listInvites: live invites only, oldest first", async () => {
    const scope = await ownedRoom(suite.store);
    // Token ids sort the other way round from creation, so an id-ordered listing fails.
    const first = newInvite(suite, scope, 3_600_000, { tokenId: "i_zzzzzzzz" });
    await suite.store.createInvite(first, 50);
    suite.clock.advance(1);
    const expiring = newInvite(suite, scope, 5_000, { tokenId: "i_mmmmmmmm", agentId: "bot" });
    await suite.second.createInvite(expiring, 50);
    suite.clock.advance(1);
    const last = newInvite(suite, scope, 3_600_000, { tokenId: "i_00000000" });
    await suite.store.createInvite(last, 50);
    expect(await suite.second.listInvites(scope)).toEqual([
      inviteRecord(first),
      inviteRecord(expiring),
      inviteRecord(last),
    ]);
    suite.clock.advance(5_000);
    expect(await suite.store.listInvites(scope)).toEqual([inviteRecord(first), inviteRecord(last)]);
  });

  test("listInvites and deleteInvite by a non-owner → denied, and the invite keeps working", async () => {
    const scope = await ownedRoom(suite.store);
    const invite = newInvite(suite, scope);
    await suite.store.createInvite(invite, 50);
    const intruder = { roomId: scope.roomId, teamId: newTeam() };
    await expectRoomError(suite.second.listInvites(intruder), "denied", ACCESS_DENIED);
    await expectRoomError(suite.second.deleteInvite(intruder, invite.tokenId), "denied", ACCESS_DENIED);
    expect(await suite.store.resolveInvite(scope.roomId, invite.digest)).toEqual({
      invite: inviteRecord(invite),
    });
    expect(await suite.store.listInvites(scope)).toEqual([inviteRecord(invite)]);

    const unowned = newScope();
    await expectRoomError(suite.store.listInvites(unowned), "denied", ACCESS_DENIED);
    await expectRoomError(suite.store.deleteInvite(unowned, invite.tokenId), "denied", ACCESS_DENIED);
    expect(await suite.store.roomStats(unowned.roomId)).toBeNull();
  });

  test("an invite's rate bucket is its own: separate from its team's and from other invites'", async () => {
    const scope = await ownedRoom(suite.store);
    const a = newInvite(suite, scope);
    const b = newInvite(suite, scope);
    await suite.store.createInvite(a, 50);
    await suite.store.createInvite(b, 50);
    const rate = toolsRate(2);
    // The team's bucket is full; the invites are not affected.
    await suite.store.consumeRate(scope.teamId, rate);
    await suite.store.consumeRate(scope.teamId, rate);
    expect((await suite.store.consumeRate(scope.teamId, rate)).allowed).toBe(false);

    expect(await suite.store.resolveInvite(scope.roomId, a.digest, rate)).toEqual({
      invite: inviteRecord(a),
      rate: allowed(2, 1),
    });
    expect((await suite.second.resolveInvite(scope.roomId, a.digest, rate)).rate).toMatchObject({
      allowed: true,
      remaining: 0,
    });
    const refused = await suite.store.resolveInvite(scope.roomId, a.digest, rate);
    expect(refused.invite).toEqual(inviteRecord(a));
    expect(refused.rate).toMatchObject({ allowed: false, limit: 2, remaining: 0 });
    expect(await suite.second.resolveInvite(scope.roomId, b.digest, rate)).toEqual({
      invite: inviteRecord(b),
      rate: allowed(2, 1),
    });

    // And the invites charged nothing to a fresh team bucket: a team whose bucket is empty stays so.
    const fresh = await ownedRoom(suite.store);
    const c = newInvite(suite, fresh);
    await suite.store.createInvite(c, 50);
    for (let i = 0; i < 3; i++) await suite.store.resolveInvite(fresh.roomId, c.digest, rate);
    expect(await suite.store.consumeRate(fresh.teamId, rate)).toEqual(allowed(2, 1));
  });
}
