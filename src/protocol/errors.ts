/**
 * Expected failures of the protocol. Each carries a message written for a model (what went wrong,
 * what to do); the MCP layer turns it into `isError: true` with `Error: <message>`.
 */
export type RoomErrorKind =
  | "invalid"
  | "not_found"
  | "conflict"
  | "locked"
  | "denied"
  | "limit"
  | "store_unavailable";

export class RoomError extends Error {
  override readonly name = "RoomError";
  constructor(
    readonly kind: RoomErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export const ACCESS_DENIED = "Room not found or access denied";
export const STORE_UNAVAILABLE = "Store unavailable, retry shortly";

export const errors = {
  taskNotFound: (id: string) => new RoomError("not_found", `Task not found: ${id}`),
  contextNotFound: (id: string) => new RoomError("not_found", `ContextEntry not found: ${id}`),
  eventNotFound: (id: string) => new RoomError("not_found", `Event not found: ${id}`),
  taskVersionConflict: (id: string, version: number) =>
    new RoomError("conflict", `Version conflict: task ${id} is at version ${version}`),
  contextVersionConflict: (id: string, version: string) =>
    new RoomError("conflict", `Version conflict: context ${id} is at version ${version}`),
  planLocked: (holder: string, until: string) =>
    new RoomError("locked", `Plan is locked by ${holder} until ${until}; retry after it`),
  denied: () => new RoomError("denied", ACCESS_DENIED),
  // The limits are configurable, so each message names its variable.
  roomLimit: (max: number) =>
    new RoomError(
      "limit",
      `Room limit reached: a team may own at most ${max} rooms (ROOMS_PER_TEAM); delete one first`,
    ),
  keyLimit: (max: number) =>
    new RoomError(
      "limit",
      `Key limit reached: a team may hold at most ${max} keys (KEYS_PER_TEAM); delete one first`,
    ),
  inviteLimit: (max: number) =>
    new RoomError(
      "limit",
      `Invite limit reached: a room may have at most ${max} live invites (INVITES_PER_ROOM); revoke one first`,
    ),
  storeUnavailable: (cause?: unknown) => new RoomError("store_unavailable", STORE_UNAVAILABLE, { cause }),
};
