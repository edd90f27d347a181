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
  | "forbidden"
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

/**
 * Kinds: invalid (bad input), not_found, denied (another team's or an unknown room: reads as missing), forbidden
 * (this principal may not do this: wrong key type, a bound identity), conflict, locked, limit,
 * store_unavailable. Each maps to one HTTP status (http/errors.ts) and to a tool error.
 */
/**
 * A store that answered, but wrongly: a Lua or SQL error, an undecodable reply, a broken record. It is a bug, not
 * an outage (docs/protocol.md#4-results-and-errors): the client gets "Internal error (request <id>)", the log gets
 * the driver, the operation and the message (never secrets), and /health is unaffected.
 */
export class StoreFault extends Error {
  override readonly name = "StoreFault";
  constructor(
    readonly driver: string,
    readonly operation: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${driver} ${operation}: ${message}`, options);
  }
}

export const ACCESS_DENIED = "Room not found or access denied";
export const STORE_UNAVAILABLE = "Store unavailable, retry shortly";

/** "Rate limit exceeded", saying whose budget is spent when an agent window was charged too. */
export function rateLimitText(spent?: { whose: "agent" | "team"; agentId?: string }): string {
  if (!spent) return "Rate limit exceeded";
  if (spent.whose === "team")
    return "Rate limit exceeded: the team's budget is spent (every agent of the team shares it)";
  const who = spent.agentId !== undefined ? `agent ${spent.agentId}` : "this agent";
  return `Rate limit exceeded: ${who}'s own budget is spent (the team's is not)`;
}

export const errors = {
  taskNotFound: (id: string) => new RoomError("not_found", `Task not found: ${id}`),
  contextNotFound: (id: string) => new RoomError("not_found", `Context entry not found: ${id}`),
  eventNotFound: (id: string) => new RoomError("not_found", `Event not found: ${id}`),
  taskVersionConflict: (task: { id: string; version: number; status: string; owner: string | null }) =>
    new RoomError(
      "conflict",
      `Version conflict: task ${task.id} is at version ${task.version} (${task.status}, ${task.owner === null ? "no owner" : `owned by ${task.owner}`}); read it again before changing it`,
    ),
  contextVersionConflict: (entry: { id: string; version: string; author: string }) =>
    new RoomError(
      "conflict",
      `Version conflict: context ${entry.id} is at version ${entry.version} (last written by ${entry.author}); read it again before changing it`,
    ),
  planLocked: (holder: string, until: string) =>
    new RoomError("locked", `Plan is locked by ${holder} until ${until}; retry after it`),
  denied: () => new RoomError("denied", ACCESS_DENIED),
  idempotencyMismatch: (key: string) =>
    new RoomError("conflict", `Idempotency key ${key} was used with different arguments`),
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
  webhookLimit: (max: number) =>
    new RoomError(
      "limit",
      `Webhook limit reached: a room may have at most ${max} webhooks (WEBHOOKS_PER_ROOM); delete one first`,
    ),
  /** Over the rate limit: the message says how long to wait (whole seconds, at least 1). */
  /**
   * A spent window. `spent` names whose when an agent's window was charged too (AGENT_RATE_LIMIT_PER_MINUTE): the
   * agent's own budget, or the team's.
   */
  rateLimited: (resetMs: number, spent?: { whose: "agent" | "team"; agentId?: string }) =>
    new RoomError("limit", `${rateLimitText(spent)}; retry in ${Math.max(1, Math.ceil(resetMs / 1000))} s`),
  teamExists: (teamId: string) =>
    new RoomError("conflict", `Team ${teamId} already exists: provisioning never touches an existing team`),
  storeUnavailable: (cause?: unknown) => new RoomError("store_unavailable", STORE_UNAVAILABLE, { cause }),
};
