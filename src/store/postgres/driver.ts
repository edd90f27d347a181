/**
 * The room's driver (humans.md §2), as the SQLite driver's (src/store/sqlite/driver.ts): who holds the wheel and
 * the epoch that fences driver-only actions. Each operation reads the driver row and writes inside the caller's
 * transaction, which holds the room's lock, so the epoch check and the append of a steer or interrupt are one
 * atomic step across every process.
 */

import { type DriverReason, type DriverState, NO_DRIVER, peopleErrors } from "../../protocol/people.ts";
import { BROADCAST, type RoomEvent } from "../../protocol/records.ts";
import { iso } from "../../protocol/time.ts";
import type { DriverAction, TakeDriver } from "../people-types.ts";
import { driverTakeReason } from "../sql-records.ts";
import type { RoomScope } from "../types.ts";
import type { Events } from "./events.ts";
import type { StoreParts } from "./rooms.ts";
import { type DriverRow, toDriverState } from "./rows.ts";

export function createDriver({ pg, now, rooms, changes }: StoreParts, events: Events) {
  const get = pg.query<DriverRow, [string]>(
    "SELECT holder, holder_kind, epoch, since FROM drivers WHERE room_id = ?",
  );
  const put = pg.query<unknown, [string, string | null, string | null, number, number]>(
    `INSERT INTO drivers (room_id, holder, holder_kind, epoch, since) VALUES (?1, ?2, ?3, ?4, ?5)
     ON CONFLICT (room_id) DO UPDATE SET holder = excluded.holder, holder_kind = excluded.holder_kind,
     epoch = excluded.epoch, since = excluded.since`,
  );

  /** The driver of a live room of the caller's team (NO_DRIVER before anyone drove it). */
  async function state(roomId: string): Promise<DriverState> {
    return toDriverState(await get.get(roomId));
  }

  /** A change of holder: epoch + 1, the event, the signal. The room is claimed by the caller. */
  async function change(
    roomId: string,
    previous: DriverState,
    next: { holder: string | null; kind: "human" | "agent" | null },
    reason: DriverReason,
    actor: string,
  ): Promise<DriverState> {
    const t = now();
    const epoch = previous.epoch + 1;
    await put.run(roomId, next.holder, next.kind, epoch, t);
    await events.append(roomId, {
      type: "driver_changed",
      from: actor,
      to: BROADCAST,
      payload: { holder: next.holder, previous: previous.holder, epoch, reason },
    });
    changes.signal(roomId, "driver");
    return { holder: next.holder, holderKind: next.kind, epoch, since: iso(t) };
  }

  /** Sets the driver of a room being built (a fork), without an event: the fork's own event says who forked it. */
  async function seed(roomId: string, holder: string): Promise<void> {
    await put.run(roomId, holder, "human", 1, now());
  }

  /** leave_room: an agent holding the wheel lets it go (driver_changed, reason released). True when it held it. */
  async function releaseHeld(roomId: string, agentId: string): Promise<boolean> {
    const current = await state(roomId);
    if (current.holder !== agentId) return false;
    await change(roomId, current, { holder: null, kind: null }, "released", agentId);
    return true;
  }

  /** Sets a room's driver state as it was (an import), without an event. */
  async function seedState(roomId: string, d: DriverState): Promise<void> {
    await put.run(roomId, d.holder, d.holderKind, d.epoch, d.since === null ? now() : Date.parse(d.since));
  }

  return {
    state,
    seed,
    releaseHeld,
    seedState,
    async getDriver(scope: RoomScope): Promise<DriverState> {
      const room = await rooms.read(scope);
      return room ? state(room.room_id) : NO_DRIVER;
    },
    async takeDriver(scope: RoomScope, input: TakeDriver): Promise<DriverState> {
      const room = await rooms.check(scope);
      const current = room ? await state(room.room_id) : NO_DRIVER;
      if (current.holder === input.holder) return current;
      const reason = driverTakeReason(current, input);
      await rooms.claim(scope);
      return change(scope.roomId, current, { holder: input.holder, kind: input.kind }, reason, input.holder);
    },
    async releaseDriver(scope: RoomScope, input: { holder: string; epoch: number }): Promise<DriverState> {
      const room = await rooms.check(scope);
      const current = room ? await state(room.room_id) : NO_DRIVER;
      if (input.epoch !== current.epoch) throw peopleErrors.staleEpoch(input.epoch, current);
      if (current.holder !== input.holder) throw peopleErrors.notDriver("release the wheel", current);
      await rooms.claim(scope);
      return change(scope.roomId, current, { holder: null, kind: null }, "released", input.holder);
    },
    async driverAct(scope: RoomScope, input: DriverAction): Promise<RoomEvent> {
      const room = await rooms.check(scope);
      const current = room ? await state(room.room_id) : NO_DRIVER;
      // Stale first: whoever sent it, an action carrying an epoch that is no longer current never lands.
      if (input.epoch !== current.epoch) throw peopleErrors.staleEpoch(input.epoch, current);
      if (current.holder !== input.by) throw peopleErrors.notDriver(input.type, current);
      await rooms.claim(scope);
      const payload =
        input.type === "steer"
          ? { text: input.text, epoch: current.epoch }
          : { reason: input.text, epoch: current.epoch };
      return events.append(scope.roomId, { type: input.type, from: input.by, to: input.to, payload });
    },
  };
}

export type DriverOps = ReturnType<typeof createDriver>;
