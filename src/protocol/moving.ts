/**
 * Moving rooms (export, import, migration) and event retention: the refusals every driver and route answers with
 * the same words.
 */
import { RoomError } from "./errors.ts";

export const movingErrors = {
  /** importRoom into an id the team already uses. */
  importTargetExists: (roomId: string) =>
    new RoomError("conflict", `Room ${roomId} already exists; import into a new room id`),
  /** An import written in parts (Redis) whose room was deleted or made again by someone else between parts. */
  importInterrupted: (roomId: string) =>
    new RoomError(
      "conflict",
      `Room ${roomId} changed while it was being imported (deleted, or made again by someone else); nothing of the import is left: import it again`,
    ),
  /** A fork before the head of a room whose log retention trimmed: its plan at that seq cannot be rebuilt. */
  forkTrimmed: (atSeq: number, head: number, trimmedBefore: number) =>
    new RoomError(
      "invalid",
      `Invalid arguments: atSeq: the room's events before seq ${trimmedBefore} were trimmed by retention, so it can only be forked at its head (seq ${head}), not at ${atSeq}`,
    ),
};
