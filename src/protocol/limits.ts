/**
 * Size and time limits of the protocol (docs/protocol.md#sizes-and-counts and the tools' reference). One place, so
 * docs, schemas and stores agree.
 */
export const LIMITS = {
  titleMax: 200,
  descriptionMax: 8000,
  noteMax: 8000,
  summaryMax: 4000,
  consumingAgentsMax: 50,
  payloadBytesMax: 64 * 1024,
  /** Levels of nested arrays/objects in a JSON payload (docs/protocol.md#payloads). */
  payloadDepthMax: 32,
  /** Values (scalars and containers) in one JSON payload (docs/protocol.md#payloads). */
  payloadValuesMax: 10_000,
  eventTypeMax: 64,
  readEventsDefault: 20,
  readEventsMax: 100,
  unreadDefault: 50,
  unreadMax: 100,
  /** wait_for_events: longest and default wait, most types. */
  waitSecondsMax: 30,
  waitSecondsDefault: 20,
  waitTypesMax: 20,
  presenceStatusMax: 200,
  resourceMax: 200,
  lockTtlDefaultSeconds: 30,
  lockTtlMaxSeconds: 300,
  varKeyMax: 128,
  varValueMax: 4096,
  /** Shared variables a room may hold, so list_shared_vars answers at most about 4 MB. */
  varsPerRoom: 1000,
  dependsOnMax: 100,
  /** A task's priority lies within ±priorityMax (lower runs first). */
  priorityMax: 1_000_000,
  presenceOnlineMs: 120_000,
  /** Event headers on the room summary page. */
  summaryRecentEvents: 20,
  roomTtlMs: 30 * 24 * 60 * 60 * 1000,
  /** How long the result of a write with an idempotencyKey is kept (docs/protocol.md#idempotency). */
  idempotencyKeepMs: 24 * 60 * 60 * 1000,
  /** claim_task leases (docs/protocol.md#task-leases): renewed by any call of the owner in the room. */
  leaseDefaultSeconds: 900,
  leaseMinSeconds: 30,
  leaseMaxSeconds: 3600,
  /** claim_files (docs/protocol.md#file-claims). */
  claimPathsMax: 100,
  claimTtlDefaultSeconds: 3600,
  claimTtlMinSeconds: 60,
  claimTtlMaxSeconds: 86_400,
  claimReasonMax: 200,
  /** Live file claims a room may hold: bounds the conflict check inside one atomic step. */
  claimsPerRoom: 500,
  /** room_broadcast's message. */
  broadcastMax: 4000,
} as const;

/**
 * How long an idle room lives past its last use, in ms, for ROOM_TTL_DAYS (absent: LIMITS.roomTtlMs, 30 days; 0:
 * for ever, which is 0 here too).
 */
export const roomLifetimeMs = (days: number | undefined): number =>
  days === undefined ? LIMITS.roomTtlMs : days * 24 * 60 * 60 * 1000;

/** Name of the resource that doubles as the advisory plan lock (docs/protocol.md#locks). */
export const PLAN_LOCK = "plan";

/**
 * The largest seq, head, counter, epoch, fence or minted id number (`task-<n>`) roomd accepts from outside (an
 * import, a migration): 2^39 = 549,755,813,888. Far below 2^53, where a double stops counting by one, and below
 * 10^12, where the Redis driver's log indexes (which write seqs as 12 digits to keep them in order) stop sorting:
 * a room imported at the bound keeps counting for another 450 billion writes, more than any room will make (a live
 * room gets here only by half a trillion writes).
 */
export const COUNTER_MAX = 2 ** 39;
