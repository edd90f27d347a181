/**
 * Key layout of one room. Every key carries the room id as a Redis Cluster hash tag (`room:{<roomId>}:<part>`),
 * so all of a room lives in one slot and every operation can be a single Lua script.
 */

/**
 * The parts, in the order every script receives them as KEYS[1..n]. The list is fixed, so refreshing a room's
 * TTL is one PEXPIRE per part whatever the room's size. Append only: scripts address keys by position.
 */
export const ROOM_KEY_PARTS = [
  "meta", // hash: owner, created_at, task_n, ctx_seq, event_seq, plan_created_at, plan_updated_at
  "tasks", // hash: task id → Task JSON
  "ctx", // hash: context id → entry JSON without payload
  "ctx_payload", // hash: context id → payload JSON, kept verbatim (never re-encoded by Lua)
  "ctx_hist", // hash: context id → JSON array of earlier versions, oldest first
  "ctx_changes", // zset: context id scored by ctx_seq at its last write
  "events", // hash: seq → event JSON without read_by
  "event_idx", // hash: seq → "<timestamp ms> <to>", so walks never decode payloads
  "event_reads", // hash: seq → JSON array of agent ids (read_by)
  "cursors", // hash: agent id → seq of the last event it consumed
  "ctx_marks", // hash: agent id → ctx_seq at its previous summary
  "presence", // hash: agent id → {lastSeen, statusText?}
  "locks", // hash: resource → {holder, expiresAt} (expiry inside the value, never a key TTL)
  "fences", // hash: resource → fencing token; only grows, outlives releases and expiries
  "vars", // hash: shared variable key → value string
] as const;

export type RoomKeyPart = (typeof ROOM_KEY_PARTS)[number];

/** The full KEYS list of a room, in ROOM_KEY_PARTS order. */
export function roomKeys(roomId: string): string[] {
  return ROOM_KEY_PARTS.map((part) => `room:{${roomId}}:${part}`);
}
