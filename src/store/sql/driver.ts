/**
 * The room's driver: who holds the wheel and the epoch that fences driver-only actions. Each operation reads the
 * driver row and writes inside the caller's one transaction, which runs alone on the room in every process, so the
 * epoch check and the append of a steer or interrupt are one atomic step.
 */
import { type DriverReason, type DriverState, NO_DRIVER } from "../../protocol/people.ts";
import { checkDriverAction, driverTakeReason } from "../../protocol/people-rules.ts";
import { BROADCAST, type RoomEvent } from "../../protocol/records.ts";
import { iso } from "../../protocol/time.ts";
import type { DriverAction, TakeDriver } from "../people-types.ts";
import type { RoomScope } from "../types.ts";
import type { Events } from "./events.ts";
import type { SqlParts } from "./rooms.ts";
import { type DriverRow, toDriverState } from "./rows.ts";
import type { Op } from "./run.ts";

export function createDriver({ sql, now, rooms, changes }: SqlParts, events: Events) {
  const get = sql.query<DriverRow, [string]>(
    "SELECT holder, holder_kind, epoch, since FROM drivers WHERE room_id = ?",
  );
  const put = sql.query<unknown, [string, string | null, string | null, number, number]>(
    `INSERT INTO drivers (room_id, holder, holder_kind, epoch, since) VALUES (?1, ?2, ?3, ?4, ?5)
     ON CONFLICT (room_id) DO UPDATE SET holder = excluded.holder, holder_kind = excluded.holder_kind,
     epoch = excluded.epoch, since = excluded.since`,
  );

  /** The driver of a live room of the caller's team (NO_DRIVER before anyone drove it). */
  function* state(roomId: string): Op<DriverState> {
    return toDriverState(yield* get.get(roomId));
  }

  /** A change of holder: epoch + 1, the event, the signal. The room is claimed by the caller. */
  function* change(
    roomId: string,
    previous: DriverState,
    next: { holder: string | null; kind: "human" | "agent" | null },
    reason: DriverReason,
    actor: string,
  ): Op<DriverState> {
    const t = now();
    const epoch = previous.epoch + 1;
    yield* put.run(roomId, next.holder, next.kind, epoch, t);
    yield* events.append(roomId, {
      type: "driver_changed",
      from: actor,
      to: BROADCAST,
      payload: { holder: next.holder, previous: previous.holder, epoch, reason },
    });
    changes.signal(roomId, "driver");
    return { holder: next.holder, holderKind: next.kind, epoch, since: iso(t) };
  }

  /** The room's driver, as the write about to change it sees it (NO_DRIVER for a room that is not live yet). */
  function* current(scope: RoomScope): Op<DriverState> {
    const room = yield* rooms.check(scope);
    return room ? yield* state(room.room_id) : NO_DRIVER;
  }

  return {
    state,
    /** Sets the driver of a room being built (a fork), without an event: the fork's own event says who forked it. */
    *seed(roomId: string, holder: string): Op<void> {
      yield* put.run(roomId, holder, "human", 1, now());
    },
    /** leave_room: an agent holding the wheel lets it go (driver_changed, reason released). True when it held it. */
    *releaseHeld(roomId: string, agentId: string): Op<boolean> {
      const held = yield* state(roomId);
      if (held.holder !== agentId) return false;
      yield* change(roomId, held, { holder: null, kind: null }, "released", agentId);
      return true;
    },
    /** Sets a room's driver state as it was (an import), without an event. */
    *seedState(roomId: string, d: DriverState): Op<void> {
      yield* put.run(roomId, d.holder, d.holderKind, d.epoch, d.since === null ? now() : Date.parse(d.since));
    },
    *getDriver(scope: RoomScope): Op<DriverState> {
      const room = yield* rooms.read(scope);
      return room ? yield* state(room.room_id) : NO_DRIVER;
    },
    *takeDriver(scope: RoomScope, input: TakeDriver): Op<DriverState> {
      const held = yield* current(scope);
      if (held.holder === input.holder) return held;
      const reason = driverTakeReason(held, input);
      yield* rooms.claim(scope);
      return yield* change(
        scope.roomId,
        held,
        { holder: input.holder, kind: input.kind },
        reason,
        input.holder,
      );
    },
    *releaseDriver(scope: RoomScope, input: { holder: string; epoch: number }): Op<DriverState> {
      const held = yield* current(scope);
      checkDriverAction(held, input.holder, input.epoch, "release the wheel");
      yield* rooms.claim(scope);
      return yield* change(scope.roomId, held, { holder: null, kind: null }, "released", input.holder);
    },
    *driverAct(scope: RoomScope, input: DriverAction): Op<RoomEvent> {
      const held = yield* current(scope);
      checkDriverAction(held, input.by, input.epoch, input.type);
      yield* rooms.claim(scope);
      const payload =
        input.type === "steer"
          ? { text: input.text, epoch: held.epoch }
          : { reason: input.text, epoch: held.epoch };
      return yield* events.append(scope.roomId, { type: input.type, from: input.by, to: input.to, payload });
    },
  };
}

export type DriverOps = ReturnType<typeof createDriver>;
