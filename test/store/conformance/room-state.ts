/**
 * The declaration of room state (src/store/room-state.ts) held against what each store really holds, read from the
 * backing itself (test/support/store-scan.ts roomHoldings): a room holding every piece holds rows or keys in every
 * declared place and in no other; deleted, nothing; expired, nothing (SQL: purged by the next write; Redis: every
 * key expires); exported and imported under a new id, or forked, exactly the pieces declared to travel.
 */
import { expect, test } from "bun:test";
import { readExport } from "../../../src/moving/import-file.ts";
import { LIMITS } from "../../../src/protocol/limits.ts";
import { iso } from "../../../src/protocol/time.ts";
import { type RoomStatePiece, roomStatePieces, tablesOf } from "../../../src/store/room-state.ts";
import type { RoomScope, RoomStore, StoreDriver } from "../../../src/store/types.ts";
import { fillRoom } from "../../support/rich-room.ts";
import type { RoomHoldings } from "../../support/store-scan.ts";
import {
  createTestClock,
  newInvite,
  newScope,
  newTeam,
  type Suite,
  type TestClock,
  toolsRate,
} from "./harness.ts";
import { exportText } from "./moving.ts";
import { fillValues, TEST_VALUES } from "./values.ts";

/** The places of a piece on a driver: its tables on SQL, its Redis parts on Redis. */
function placesOf(piece: RoomStatePiece, driver: StoreDriver): readonly string[] {
  if (driver === "sqlite" || driver === "postgres") return tablesOf(piece, driver);
  return piece.parts;
}

/** Every declared place of the driver. */
const declared = (driver: StoreDriver) =>
  new Set(roomStatePieces().flatMap(([, piece]) => placesOf(piece, driver)));

/** The room's places holding something, as a sorted list. */
const heldPlaces = (h: RoomHoldings) => Object.keys(h.held).sort();

/**
 * A room holding every piece of room state: the rich room (test/support/rich-room.ts) and what it leaves out — a
 * kept idempotent result, an invite with a rate window, a webhook with a queued delivery and a logged attempt, the
 * context index a filtered list builds (Redis), context deliveries, and a value of every kind.
 */
export async function fillEveryPiece(store: RoomStore, clock: TestClock, scope: RoomScope): Promise<void> {
  await fillRoom(store, scope);
  await store.setVar(
    { ...scope, idempotency: { key: "fill-1", fingerprint: "f".repeat(64) } },
    "k",
    "v",
    "ann",
  );
  const invite = newInvite({ clock } as Suite, scope);
  await store.createInvite(invite, 10);
  await store.resolveInvite(scope.roomId, invite.digest, toolsRate(100));
  const webhookId = `wh_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const at = iso(clock.now());
  await store.createWebhook(
    scope,
    { webhookId, url: "https://hooks.example.com/x", types: [], createdAt: at },
    10,
  );
  await store.logTestDelivery(scope, webhookId, {
    eventSeq: 0,
    attempt: 1,
    outcome: "delivered",
    durationMs: 1,
    at,
  });
  await store.postEvent(scope, { type: "note", from: "ann", to: "all", payload: { text: "queued" } });
  await store.listContext(scope, { type: "note" });
  for (const agent of ["bob", "carol"]) while ((await store.consumeEvents(scope, agent, 100)).count > 0);
  await fillValues(store, scope);
  await store.suspendAgent(scope, { agentId: "zed", by: "human:pat", reason: "looping" });
}

/** The pieces that travel `how`, and the places of those that stay (not shared with one that travels). */
function travelling(how: "moved" | "forked", driver: StoreDriver) {
  const travels = (piece: RoomStatePiece) =>
    typeof piece[how] === "string" || !("not" in (piece[how] as object));
  const going = roomStatePieces().filter(([, piece]) => travels(piece));
  const goingPlaces = new Set(going.flatMap(([, piece]) => placesOf(piece, driver)));
  const staying = roomStatePieces()
    .filter(([, piece]) => !travels(piece))
    .flatMap(([name, piece]) =>
      placesOf(piece, driver).flatMap((place) => (goingPlaces.has(place) ? [] : [`${name}: ${place}`])),
    );
  return { going, staying };
}

/** Problems of a room built from another (a copy, a fork): a travelling piece it lacks, a staying one it holds. */
function travelProblems(h: RoomHoldings, how: "moved" | "forked", driver: StoreDriver): string[] {
  const { going, staying } = travelling(how, driver);
  const problems: string[] = [];
  for (const [name, piece] of going) {
    for (const place of placesOf(piece, driver))
      if (!h.held[place]) problems.push(`${name}: ${place} is empty`);
  }
  for (const entry of staying) {
    const place = entry.slice(entry.indexOf(": ") + 2);
    if (h.held[place]) problems.push(`${entry} holds ${h.held[place]}`);
  }
  return problems;
}

export function roomStateTests(suite: Suite): void {
  const holdings = (roomId: string) => suite.factory.holdings(roomId);
  const driver = () => suite.factory.driver;

  test("a room holding every piece holds something in every declared place, and nothing elsewhere", async () => {
    const scope = newScope();
    await fillEveryPiece(suite.store, suite.clock, scope);
    const h = await holdings(scope.roomId);
    const places = declared(driver());
    expect([...places].filter((place) => !h.held[place]).sort()).toEqual([]);
    expect(heldPlaces(h).filter((place) => !places.has(place))).toEqual([]);
    expect(h.elsewhere).toBeGreaterThan(0);
    // On SQL, the live schema's tables with a room_id column are exactly the declared ones.
    if (driver() === "sqlite" || driver() === "postgres") expect(h.tables.sort()).toEqual([...places].sort());
  });

  test("a deleted room leaves no row and no key (an invite's rate window expires on its own)", async () => {
    const scope = newScope();
    await fillEveryPiece(suite.store, suite.clock, scope);
    await suite.second.deleteRoom(scope);
    const h = await holdings(scope.roomId);
    expect(h.held).toEqual({});
    if (driver() === "sqlite" || driver() === "postgres") expect(h.elsewhere).toBe(0);
    for (const [part, ms] of Object.entries(h.ttls)) {
      expect({ part, expires: ms > 0 && ms <= 60_000 }).toEqual({ part, expires: true });
    }
  });

  test("an expired room goes whole: SQL purges it at the next write, Redis gives every key the room's TTL", async () => {
    const scope = newScope();
    if (driver() === "sqlite" || driver() === "postgres") {
      // A clock of its own: the suite's other rooms must not expire.
      const clock = createTestClock();
      const store = await suite.factory.open(clock.now, { values: TEST_VALUES });
      try {
        await fillEveryPiece(store, clock, scope);
        clock.advance(LIMITS.roomTtlMs + 1000);
        expect((await store.createRoom({ roomId: scope.roomId, teamId: newTeam() })).created).toBe(true);
      } finally {
        await store.close();
      }
      const h = await holdings(scope.roomId);
      expect(heldPlaces(h)).toEqual(["rooms"]);
      expect(h.elsewhere).toBe(0);
      return;
    }
    await fillEveryPiece(suite.store, suite.clock, scope);
    const h = await holdings(scope.roomId);
    const parts = Object.entries(h.ttls).filter(([part]) => !part.startsWith("rl:"));
    expect(parts.length).toBeGreaterThan(0);
    for (const [part, ms] of parts) {
      expect({ part, expires: ms > 0 && ms <= LIMITS.roomTtlMs }).toEqual({ part, expires: true });
    }
  });

  test("exported and imported under a new id: the copy holds what is declared to move, and nothing declared to stay", async () => {
    const scope = newScope();
    await fillEveryPiece(suite.store, suite.clock, scope);
    const text = await exportText(suite.store, scope, suite.clock.now());
    const file = await readExport(
      (async function* () {
        yield new TextEncoder().encode(text);
      })(),
      1 << 30,
      TEST_VALUES,
    );
    const copy = { roomId: `${scope.roomId}-copy`, teamId: scope.teamId };
    try {
      await suite.second.importRoom(copy, file);
    } finally {
      file.close();
    }
    expect(travelProblems(await holdings(copy.roomId), "moved", driver())).toEqual([]);
  });

  test("forked: the fork holds what is declared to fork, and nothing declared to stay", async () => {
    const scope = newScope();
    await fillEveryPiece(suite.store, suite.clock, scope);
    const fork = { roomId: `${scope.roomId}-fork`, teamId: scope.teamId };
    await suite.second.forkRoom(scope, { newRoomId: fork.roomId, by: "human:ann" });
    expect(travelProblems(await holdings(fork.roomId), "forked", driver())).toEqual([]);
  });
}
