/**
 * The small rules every store applies and protocol/ holds once: locks, rooms (expiry, claims, idempotency,
 * coming online), events (deletion, the cursor's standing after retention), people (handoffs, the wheel,
 * mailboxes), forks and templates.
 */
import { describe, expect, test } from "bun:test";
import { RoomError } from "./errors.ts";
import { checkEventDeletion, cursorStanding, eventSeq } from "./event-rules.ts";
import { checkForkPoint } from "./fork-rebuild.ts";
import { LIMITS } from "./limits.ts";
import { checkPlanLock, lockAcquisition, lockRefusedRelease } from "./locks.ts";
import { type DriverState, type Handoff, NO_DRIVER } from "./people.ts";
import { checkDriverAction, checkHandoffAccept, driverTakeReason, mailAfter } from "./people-rules.ts";
import { checkRoomClaim, comesOnline, liveAfter, replaysKept, roomExpired } from "./room-rules.ts";
import { checkSeedable } from "./templates.ts";

const kind = (fn: () => unknown): string => {
  try {
    fn();
    return "ok";
  } catch (error) {
    return error instanceof RoomError ? error.kind : String(error);
  }
};

describe("locks", () => {
  const held = { holder: "a", expiresAt: 2_000, fence: 4 };
  test("another's live lock refuses; the holder keeps its fence; a change of hands raises it", () => {
    expect(lockAcquisition("db", held, "b", 1_000)).toEqual({
      refused: {
        acquired: false,
        resource: "db",
        holder: "a",
        expiresAt: "1970-01-01T00:00:02.000Z",
        fence: 4,
      },
    });
    expect(lockAcquisition("db", held, "a", 1_000)).toEqual({ fence: 4 });
    expect(lockAcquisition("db", held, "b", 2_000)).toEqual({ fence: 5 });
    expect(lockAcquisition("db", { ...held, holder: null }, "b", 1_000)).toEqual({ fence: 5 });
    expect(lockAcquisition("db", null, "b", 1_000)).toEqual({ fence: 1 });
  });
  test("release: nothing live, another's (named), or the caller's (released)", () => {
    expect(lockRefusedRelease(null, "a", 1_000)).toEqual({ released: false });
    expect(lockRefusedRelease(held, "b", 1_000)).toEqual({
      released: false,
      holder: "a",
      expiresAt: "1970-01-01T00:00:02.000Z",
    });
    expect(lockRefusedRelease(held, "a", 1_000)).toBeNull();
  });
  test("the plan lock refuses only another agent's live hold, naming it", () => {
    expect(kind(() => checkPlanLock(held, "b", 1_000))).toBe("locked");
    expect(() => checkPlanLock(held, undefined, 1_000)).toThrow(
      "Plan is locked by a until 1970-01-01T00:00:02.000Z; retry after it",
    );
    expect(
      [
        () => checkPlanLock(held, "a", 1_000),
        () => checkPlanLock(held, "b", 2_000),
        () => checkPlanLock({ ...held, holder: null }, "b", 1_000),
        () => checkPlanLock(null, "b", 1_000),
      ].map(kind),
    ).toEqual(["ok", "ok", "ok", "ok"]);
  });
});

describe("rooms", () => {
  test("expiry after ttl; 0 keeps a room for ever; liveAfter is the same rule as a bound", () => {
    expect([roomExpired(0, 99, 100), roomExpired(0, 100, 100), roomExpired(0, 1e12, 0)]).toEqual([
      false,
      true,
      false,
    ]);
    expect(liveAfter(1_000, 100)).toBe(900);
    expect(liveAfter(1_000, 0)).toBe(Number.MIN_SAFE_INTEGER);
  });
  test("claims: an invite never claims; a team at its limit claims no other", () => {
    expect(kind(() => checkRoomClaim(false, 0, 5))).toBe("denied");
    expect(kind(() => checkRoomClaim(undefined, 5, 5))).toBe("limit");
    expect(kind(() => checkRoomClaim(true, 4, 5))).toBe("ok");
  });
  test("a kept result replays within a day with the same fingerprint, is refused with another", () => {
    const idem = { key: "k", fingerprint: "f" };
    expect(replaysKept({ fingerprint: "f", at: 0 }, idem, LIMITS.idempotencyKeepMs - 1)).toBe(true);
    expect(replaysKept({ fingerprint: "f", at: 0 }, idem, LIMITS.idempotencyKeepMs)).toBe(false);
    expect(replaysKept(null, idem, 0)).toBe(false);
    expect(kind(() => replaysKept({ fingerprint: "g", at: 0 }, idem, 1))).toBe("conflict");
  });
  test("an agent comes online when new, back from leaving, or offline until now", () => {
    expect(comesOnline(null, 0)).toBe(true);
    expect(comesOnline({ lastSeen: 0, leftAt: 5 }, 10)).toBe(true);
    expect(comesOnline({ lastSeen: 0, leftAt: null }, LIMITS.presenceOnlineMs)).toBe(true);
    expect(comesOnline({ lastSeen: 0, leftAt: null }, LIMITS.presenceOnlineMs - 1)).toBe(false);
  });
});

describe("events", () => {
  const event = { id: "evt-3", type: "note", from: "a", posted: true };
  test("only posted events go; a person's only by that person; a bound caller only its own", () => {
    expect(kind(() => checkEventDeletion({ ...event, posted: false }, { by: "a" }))).toBe("forbidden");
    expect(kind(() => checkEventDeletion({ ...event, from: "human:p" }, { by: "a" }))).toBe("forbidden");
    expect(kind(() => checkEventDeletion({ ...event, from: "human:p" }, { by: "human:p" }))).toBe("ok");
    expect(kind(() => checkEventDeletion(event, { by: "b", onlyAuthor: "b" }))).toBe("forbidden");
    expect(kind(() => checkEventDeletion(event, { by: "b" }))).toBe("ok");
    expect([eventSeq("evt-17"), eventSeq("evt-0"), eventSeq("evt-x")]).toEqual([17, null, null]);
  });
  test("a cursor behind the trimmed range resumes after it, counting the trimmed as consumed", () => {
    expect(cursorStanding(0, { seq: 4, delivered: 3 }, { n: 9, trimmed: 0 })).toEqual({
      seq: 4,
      after: 4,
      consumed: 3,
      total: 9,
      trimmedBefore: undefined,
    });
    expect(cursorStanding(10, { seq: 4, delivered: 3 }, { n: 20, trimmed: 7 })).toEqual({
      seq: 4,
      after: 10,
      consumed: 7,
      total: 20,
      trimmedBefore: 11,
    });
  });
});

describe("people", () => {
  const human: DriverState = { holder: "human:p", holderKind: "human", epoch: 3, since: "x" };
  test("the wheel: agents only claim a free one; people take an agent's, another person's only with force", () => {
    expect(driverTakeReason(NO_DRIVER, { holder: "a", kind: "agent" })).toBe("claimed");
    expect(driverTakeReason(NO_DRIVER, { holder: "human:q", kind: "human" })).toBe("taken");
    expect(kind(() => driverTakeReason(human, { holder: "a", kind: "agent" }))).toBe("conflict");
    expect(kind(() => driverTakeReason(human, { holder: "human:q", kind: "human" }))).toBe("conflict");
    expect(driverTakeReason(human, { holder: "human:q", kind: "human", force: true })).toBe("forced");
    expect(driverTakeReason({ ...human, holderKind: "agent" }, { holder: "human:q", kind: "human" })).toBe(
      "taken_from_agent",
    );
  });
  test("a driver's action: a stale epoch first, then anyone but the holder", () => {
    expect(kind(() => checkDriverAction(human, "a", 2, "steer"))).toBe("conflict");
    expect(kind(() => checkDriverAction(human, "a", 3, "steer"))).toBe("forbidden");
    expect(kind(() => checkDriverAction(human, "human:p", 3, "steer"))).toBe("ok");
  });
  test("handoffs are accepted by whom they are for, never by who offered them", () => {
    const offer = { id: "hof-1", from: "a", offeredBy: "a", to: "b" } as Handoff;
    expect(kind(() => checkHandoffAccept(offer, "c"))).toBe("forbidden");
    expect(kind(() => checkHandoffAccept({ ...offer, to: "any" }, "a"))).toBe("conflict");
    expect(kind(() => checkHandoffAccept(offer, "b"))).toBe("ok");
  });
  test("a mailbox resumes after its mark and a fork's prefix; messages also after the cursor", () => {
    expect(mailAfter("steer", 3, 5, 9)).toBe(5);
    expect(mailAfter("human_message", 3, 5, 9)).toBe(9);
  });
});

describe("forks and templates", () => {
  test("a fork point is at most the head, and exactly the head once the log was trimmed", () => {
    expect(kind(() => checkForkPoint(11, 10, 0))).toBe("invalid");
    expect(kind(() => checkForkPoint(5, 10, 0))).toBe("ok");
    expect(kind(() => checkForkPoint(5, 10, 3))).toBe("invalid");
    expect(kind(() => checkForkPoint(10, 10, 3))).toBe("ok");
  });
  test("a template fills only an empty room", () => {
    expect(kind(() => checkSeedable("r", { tasks: 0, contexts: 0, events: 0 }))).toBe("ok");
    expect(kind(() => checkSeedable("r", { tasks: 0, contexts: 0, events: 1 }))).toBe("conflict");
  });
});
