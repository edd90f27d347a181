/** The shared room gate (store/sql/rooms.ts) as this driver's modules call it: synchronously. */
import type { Database } from "bun:sqlite";
import type { Clock } from "../../protocol/time.ts";
import type { Synced } from "../sql/adapt.ts";
import type { Changes } from "../sql/parts.ts";
import type { RoomRow, Rooms as SharedRooms } from "../sql/rooms.ts";

export type { RoomRow };
export type Rooms = Synced<SharedRooms>;

/** What every operation module needs: the connection, the clock, the room gate and the change feed. */
export interface StoreParts {
  db: Database;
  now: Clock;
  rooms: Rooms;
  /** Queue the room's changes (log head, signals) inside the write; reported once it commits. */
  changes: Changes;
}
