/**
 * The access half of the store contract (docs/security.md, docs/http.md#admin): dynamic keys, invites, room
 * administration, the room summary and rate limiting. RoomStore extends it, so every driver implements it and the
 * conformance suite defines it. Like every store operation, each one is atomic; the combined auth + rate-limit
 * operations cost one store round trip.
 *
 * Secrets never reach the store: callers pass SHA-256 digests as lowercase hex (64 chars).
 * Slot layout (Redis): team-level records live in the team's slot (`team:{<teamId>}:…`), invite records in the
 * room's slot (`room:{<roomId>}:…`), so each operation below touches one slot — except listRooms, which reads
 * several rooms and is not required to be atomic.
 */
import type { ForkedFrom } from "../protocol/people.ts";
import type { Presence, RoomEvent, TaskStatus } from "../protocol/records.ts";

/** A dynamic key as stored and listed. Never holds the secret. */
export interface KeyRecord {
  /** `k_<teamId>_<8 chars [0-9a-z]>`: the team is readable from the id so any key can be found in its slot. */
  keyId: string;
  teamId: string;
  /** "dynamic" for keys made by POST /admin/keys and provision; "operator" for the first-run key. */
  kind: "dynamic" | "operator";
  createdAt: string;
  note?: string;
  boundAgentId?: string;
  /** Set for a person's key (docs/people.md#people-and-agents): who holds it. Never together with boundAgentId. */
  humanId?: string;
  /** "****" + the secret's last 4 chars. */
  hint: string;
  /** When the key stops working (POST /admin/keys expiresIn, or a rotation's grace); absent: never. */
  expiresAt?: string;
  /**
   * The key's last admitted use, coarse: a charged resolveKey records it only when it is missing or at least a
   * minute old (protocol/key-life.ts KEY_USE_STEP_MS). Absent: never used.
   */
  lastUsedAt?: string;
  /** Some rooms only (1..N room ids): every other room reads as missing (protocol/key-life.ts). */
  rooms?: string[];
  /** Reads only: every write tool and non-GET room route is refused. */
  readOnly?: true;
  /**
   * The key's own agent budget (tool calls per agent per minute, 1..1_000_000): a charged resolveKey charges the
   * agent's window with this limit instead of RateRequest.agent.limit, also when that is 0 (protocol/rate-pair.ts
   * keyRate). Stored with the scope; not a scope (it narrows nothing the key may reach).
   */
  agentRateLimitPerMinute?: number;
  /** Set once the key was rotated: its successor's key id (a key is rotated at most once). */
  rotatedTo?: string;
}

export interface NewKey extends KeyRecord {
  /** sha256(secret), lowercase hex. */
  digest: string;
}

export interface InviteRecord {
  /** `i_<8 chars [0-9a-z]>`, unique within its room. */
  tokenId: string;
  roomId: string;
  /** The team that issued it; the invite works only while this team owns the room. */
  teamId: string;
  createdAt: string;
  expiresAt: string;
  /** Agent id the invite is bound to; absent means bound to `invite:<tokenId>`. */
  agentId?: string;
  /**
   * Set for a person's invite (docs/people.md#people-and-agents): to watch the room and take part as
   * `human:<humanId>`.
   */
  humanId?: string;
  hint: string;
}

export interface NewInvite extends InviteRecord {
  digest: string;
}

/** One request's rate-limit charge: a sliding window of `windowMs` allowing `limit` requests. */
export interface RateRequest {
  /** "tools" for tool calls and routes; "meta" for initialize, tools/list and other cheap MCP methods. */
  bucket: "tools" | "meta";
  limit: number;
  windowMs: number;
  /**
   * The agent's own window inside the team's (AGENT_RATE_LIMIT_PER_MINUTE, docs/operations.md): the same bucket
   * and window length, `limit` requests per agent. `id` is the agent the request names; a bound key's agent
   * replaces it (the store knows it only once the key is found, in the same step). With no agent at all (no id,
   * no bound agent) only the team's window is charged. Ignored by invites, which have a window of their own.
   * `limit` 0 charges no window of the agent's own — unless resolveKey finds a key carrying its own
   * agentRateLimitPerMinute, which replaces `limit` whatever it is (protocol/rate-pair.ts keyRate).
   */
  agent?: { id?: string; limit: number };
}

export interface RateDecision {
  allowed: boolean;
  /**
   * Whose window decided a refusal when an agent window was charged too: "agent" (the agent's own budget is
   * spent, the team's is not) or "team". Absent when allowed, and when only the team's window was charged.
   */
  spent?: "agent" | "team";
  limit: number;
  /** Requests left in the window after this one (0 when refused). */
  remaining: number;
  /** Milliseconds until the window has room again (0 when remaining > 0). */
  resetMs: number;
}

export interface RoomListing {
  roomId: string;
  createdAt: string;
  lastActivity: string;
}

export interface RoomStats {
  roomId: string;
  owner: string;
  taskCount: number;
  doneTasks: number;
  contextCount: number;
  agentCount: number;
  eventCount: number;
  lastActivity: string;
}

/** What GET /room/:roomId shows: counts and event headers, never payloads, notes or secrets. */
export interface RoomSummaryView {
  roomId: string;
  agents: Presence[];
  taskCount: number;
  tasksByStatus: Record<TaskStatus, number>;
  contextCount: number;
  /** Newest first, at most 20, without payload and read_by. */
  recentEvents: Pick<RoomEvent, "id" | "seq" | "type" | "from" | "to" | "timestamp">[];
  /** Present for a fork: the room and seq it was made from (docs/people.md#forks). */
  forkedFrom?: ForkedFrom;
}

export interface AccessStore {
  // ── keys (team slot) ──────────────────────────────────────────────────────────────────────────────────
  /**
   * Auth and rate limit in one atomic step: finds the unexpired key of `teamId` with this digest; when found and
   * `rate` is given, charges the team's `rate.bucket` window (the same window consumeRate(teamId, …) charges) and,
   * with `rate.agent`, the agent's window (the key's bound agent, else `rate.agent.id`) exactly as consumeRate; in
   * the same step it records the use (lastUsedAt = now) when lastUsedAt is missing or at least a minute old
   * (protocol/key-life.ts useDue). The agent's window is charged with the key's own agentRateLimitPerMinute when it
   * has one (protocol/rate-pair.ts keyRate), and not at all when the limit so found is 0. The record answered shows
   * lastUsedAt as it was before this lookup. Without
   * `rate` it is a pure read. Unknown digest or expired key (expiresAt <= now) → {key: null}, and nothing is
   * charged or written.
   */
  resolveKey(
    teamId: string,
    digest: string,
    rate?: RateRequest,
  ): Promise<{ key: KeyRecord | null; rate?: RateDecision }>;
  /**
   * Stores a key unless the team already has `maxKeys` unexpired dynamic keys (errors.keyLimit(maxKeys)).
   * Operator-kind and expired keys do not count towards the limit. Concurrent creations never exceed the limit.
   * Every field of the record is stored as given (lastUsedAt and rotatedTo too: `bun run migrate` copies them).
   */
  createKey(key: NewKey, maxKeys: number): Promise<KeyRecord>;
  /**
   * Rotation, in one atomic step: when `teamId` has the unexpired dynamic key `keyId`, stores `successor` (under the
   * same limit as createKey: the old key still counts) and ends the old key at `graceEndsAt` — never later than its
   * own expiresAt — marking it rotatedTo the successor. null (nothing written) when there is no such live dynamic
   * key; keyLifeErrors.rotated when the key was already rotated (of two concurrent rotations one wins, the other
   * gets this); errors.keyLimit(maxKeys) at the limit. The caller copies the old key's binding, note and scope into
   * the successor.
   */
  rotateKey(
    teamId: string,
    keyId: string,
    successor: NewKey,
    graceEndsAt: string,
    maxKeys: number,
  ): Promise<{ rotated: KeyRecord; successor: KeyRecord } | null>;
  /**
   * Provisioning: stores the first key of a team that has no key and no room yet; errors.teamExists when the team
   * already has a key (dynamic or operator) or a room. Atomic: two concurrent provisions of one team → one winner.
   */
  provisionTeam(key: NewKey): Promise<KeyRecord>;
  /** The team's keys (dynamic and operator kind), oldest first. */
  listKeys(teamId: string): Promise<KeyRecord[]>;
  /** Deletes the key when it belongs to `teamId`; false when there is no such key of that team. */
  deleteKey(teamId: string, keyId: string): Promise<boolean>;
  /**
   * Every team a key was stored for (createKey, provisionTeam), sorted by id, whether or not it still has keys:
   * the operators' list of teams (docs/web.md), beside the teams configured in the environment.
   */
  listTeams(): Promise<string[]>;

  // ── rate limiting (team slot) ─────────────────────────────────────────────────────────────────────────
  /**
   * Charges one request to the team's bucket: sliding window (a request counts for exactly windowMs after it
   * was admitted), exact under concurrency (50 parallel requests with limit 20 → exactly 20 allowed).
   * A refused request is not recorded.
   *
   * With `rate.agent` (and an agent id), the agent's window of the same bucket is charged in the same atomic step:
   * the request is admitted only when both windows have room, and then recorded in both; refused by either, it is
   * recorded in neither (a team's full window refuses first: `spent` says which). The decision shown when
   * admitted is the window with fewer requests left (the agent's on a tie).
   */
  consumeRate(teamId: string, rate: RateRequest): Promise<RateDecision>;

  // ── invites (room slot) ───────────────────────────────────────────────────────────────────────────────
  /**
   * Stores an invite for a room owned by invite.teamId: RoomError "denied" (ACCESS_DENIED) when another team
   * owns it or it is unowned; errors.inviteLimit(maxInvites) when the room has `maxInvites` live (unexpired)
   * invites. Never claims.
   */
  createInvite(invite: NewInvite, maxInvites: number): Promise<InviteRecord>;
  /**
   * Auth and rate limit in one atomic step: the invite of `roomId` with this digest, only if it is unexpired and
   * its team still owns the room; when valid and `rate` is given, charges the invite's own bucket. Otherwise
   * {invite: null} and nothing is charged.
   */
  resolveInvite(
    roomId: string,
    digest: string,
    rate?: RateRequest,
  ): Promise<{ invite: InviteRecord | null; rate?: RateDecision }>;
  /**
   * Live invites of a room, oldest first (creation order within one millisecond); RoomError "denied" unless
   * scope.teamId owns the room. With `observe`, records no use of the room (types.ts RoomScope.observe).
   */
  listInvites(scope: { roomId: string; teamId: string; observe?: boolean }): Promise<InviteRecord[]>;
  /** Revokes; false when no such invite. RoomError "denied" unless scope.teamId owns the room. */
  deleteInvite(scope: { roomId: string; teamId: string }, tokenId: string): Promise<boolean>;

  // ── rooms ─────────────────────────────────────────────────────────────────────────────────────────────
  /**
   * POST /admin/rooms: claims an unowned room for scope.teamId ({created: true}), or confirms it is already
   * the team's ({created: false}). RoomError "denied" when another team owns it; errors.roomLimit when claiming
   * would give the team more than the store's roomsPerTeam.
   */
  createRoom(scope: { roomId: string; teamId: string }): Promise<{ created: boolean }>;
  /** The team's live rooms, oldest first. */
  listRooms(teamId: string): Promise<RoomListing[]>;
  /**
   * Deletes all data of the room (plan, context, events, cursors, presence, locks, vars, invites) and frees the
   * id. RoomError "denied" unless scope.teamId owns it.
   */
  deleteRoom(scope: { roomId: string; teamId: string }): Promise<void>;
  /**
   * The archiver's delete (ARCHIVE_DIR): deletes the room as deleteRoom does, in one atomic step, only when
   * scope.teamId owns it and its last use (RoomListing.lastActivity, ms) is at or before `idleSince` — so a room
   * used after it was archived is kept. True when it was deleted; false (changing nothing) otherwise, another
   * team's room included. Never claims.
   */
  deleteIdleRoom(scope: { roomId: string; teamId: string }, idleSince: number): Promise<boolean>;
  /** Operator view of any room; null when the room is not owned by anyone. */
  roomStats(roomId: string): Promise<RoomStats | null>;
  /**
   * Public view; never claims. null when the room is unowned, or when `teamId` is given and another team owns
   * it (so a private summary reveals nothing about other teams' rooms).
   */
  roomSummary(roomId: string, teamId?: string): Promise<RoomSummaryView | null>;
}

/**
 * Limits a store enforces atomically, given at construction (from configuration). A writing room operation
 * that would claim a room beyond roomsPerTeam fails with RoomError "limit" and changes nothing.
 */
export interface StoreLimits {
  roomsPerTeam: number;
  /**
   * ms an idle room lives past its last use before the store drops it (ROOM_TTL_DAYS); 0: the store never drops a
   * room by itself (ROOM_TTL_DAYS=0, or ARCHIVE_DIR set: then the archiver removes it, deleteIdleRoom). Default
   * LIMITS.roomTtlMs (30 days).
   */
  roomTtlMs?: number;
}

export const DEFAULT_STORE_LIMITS: StoreLimits = { roomsPerTeam: 100 };
