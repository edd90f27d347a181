/** The shared room gate (store/sql/rooms.ts) as this driver's modules call it, and the advisory locks' keys. */
import type { Clock } from "../../protocol/time.ts";
import type { Awaited } from "../sql/adapt.ts";
import type { Changes } from "../sql/parts.ts";
import type { RoomRow, Rooms as SharedRooms } from "../sql/rooms.ts";
import type { Pg } from "./db.ts";

export type { RoomRow };
export type Rooms = Awaited<SharedRooms>;

/** The advisory lock of a room's writes and of a team's records. */
export const roomLock = (roomId: string) => `room:${roomId}`;
export const teamLock = (teamId: string) => `team:${teamId}`;

/** What every operation module needs: the connection, the clock, the room gate and the change feed. */
export interface StoreParts {
  pg: Pg;
  now: Clock;
  rooms: Rooms;
  /** Inside a write: the room's changes (log head, signals), published when it commits. */
  changes: Changes;
}
