/**
 * Key layout. Every key of a room carries the room id as a Redis Cluster hash tag (`room:{<roomId>}:<part>`), and
 * every team-level key the team id (`team:{<teamId>}:<part>`), so each operation's keys live in one slot and the
 * operation can be a single Lua script.
 */

/**
 * The parts of a room. A room script receives the keys of the parts it names, in this order (scripts.ts), and the
 * others after them when it is passed the whole room (call.ts); the list is fixed, so refreshing a room's TTL is one
 * PEXPIRE per part whatever the room's size. Append only: imports address keys by their place here.
 */
export const ROOM_KEY_PARTS = [
  "meta", // hash: owner, created_at, last_used (ms), task_n, ctx_seq, event_seq, plan_created_at, plan_updated_at
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
  "invites", // hash: token id → invite JSON (with digest and expiresMs, which TS strips)
  "invite_digests", // hash: sha256(token) → token id
  "idem", // hash: idempotency key → "<at ms> <fingerprint> <result JSON>", kept 24 h
  "idem_at", // zset: idempotency key scored by its time, so old keys are dropped a few at a time
  "event_addr", // zset (score 0): "<to> <seq, 12 digits>" per event, so an addressee's events are a lex range
  "search_post", // zset (score 0): "<token> <doc id> <count>" per token of each searchable document (lex ranges)
  "search_len", // hash: doc id → its length in tokens (HLEN = documents of the room)
  "search_fields", // hash: doc id → JSON {field: {token: count}}, what a write replaces field by field
  "posted", // hash: seq → "1" for events posted by agents (post_event, reply_to_event): the deletable ones
  "reviews", // hash: review id → Review JSON
  "ctx_reads", // hash: "<seq> <agent>" → ms of the first delivery of a context event to that agent
  "claims", // hash: claimed path or glob → {agentId, expiresAt, ttl, claimedAt, reason?} (ms)
  "claim_exp", // zset: claimed path scored by its expiry (ms), so claims that ran out are a range
  "leases", // zset: leased task id scored by its lease's expiry (ms)
  "holdings", // hash: "l:<agent>" → its leases ("<task id> <lease ms>" per line), "c:<agent>" → its claimed paths
  "webhooks", // hash: webhook id → webhook JSON as registered (no secret: it is derived from the id)
  "wh_state", // hash: webhook id → "<a|d> <dropped in a row> <last delivery ms> <attempts logged> <type match>"
  "wh_outbox", // zset: "<seq> <webhook id> <attempt>" → due ms, or while claimed the lease's end (its token)
  "wh_log", // hash: "<webhook id> <n mod 100>" → JSON of the webhook's attempt n (a ring of the newest 100)
  "approvals", // hash: approval id → approval JSON (with expiresMs, which TS strips; details last, verbatim)
  "handoffs", // hash: handoff id → handoff JSON
  "verdicts", // hash: verdict id → verdict JSON
  "ctx_seqs", // hash: context id → JSON array of the log heads its latest versions became current at (aligned to the end)
  "mailbox", // zset (score 0): "<type> <to> <seq, 12 digits>" per human_message, steer and interrupt event
  "marks", // hash: "<type> <agent>" → seq of the last such event the bridge or get_my_summary delivered
  "ctx_by", // zset (score 0): "t<type as JSON> <id>" and "a<author as JSON> <id>" per context entry (lua-context.ts CTX_BY)
  "values", // hash: "<kind> <key>" → the value's JSON text, every kind of protocol/room-values.ts (lua-values.ts)
  "suspended", // hash: agent id → Suspension JSON {agentId, by, at (ISO), reason} (protocol/suspensions.ts)
] as const;

export type RoomKeyPart = (typeof ROOM_KEY_PARTS)[number];

/** The full KEYS list of a room, in ROOM_KEY_PARTS order. */
export function roomKeys(roomId: string): string[] {
  return ROOM_KEY_PARTS.map((part) => `room:{${roomId}}:${part}`);
}

/**
 * An invite's sliding-window log (zset, own PEXPIRE = windowMs), in the room's slot. Named by a fingerprint of
 * the invite's digest, not by its token id: resolveInvite must declare the key before the script has looked the
 * token id up, and the fingerprint (sha256 of the digest, truncated) reveals nothing about the digest.
 */
export function inviteRateKey(roomId: string, digest: string, bucket: string): string {
  const fingerprint = new Bun.CryptoHasher("sha256")
    .update(`invite-rate:${digest}`)
    .digest("hex")
    .slice(0, 16);
  return `room:{${roomId}}:rl:${fingerprint}:${bucket}`;
}

/**
 * The rooms that have (or recently had) webhooks, for the delivery workers: a zset room id → time of its latest
 * registration (ms), in one slot of its own (hash tag `{index}`) whatever the cluster's size. Registration adds
 * to it before writing the webhook; a worker whose claim finds a listed room without webhooks removes it, only if
 * its score is older than a grace period (so a registration in flight is never undone).
 */
export const WEBHOOK_INDEX_KEY = "webhooks:{index}:rooms";

/** The parts of a team's keys, in the order every team script receives them as KEYS[1..n]. Append only. */
export const TEAM_KEY_PARTS = [
  "keys", // hash: key id → key JSON (with digest, which TS strips)
  "key_digests", // hash: sha256(secret) → key id
  "rooms", // zset: room id → claim time (ms); the room-limit index
  "rl:tools", // zset: sliding-window log of the "tools" bucket (member unique, score ms)
  "rl:meta", // zset: sliding-window log of the "meta" bucket
  "meta", // hash: key_n (creation counter, so keys created in one millisecond still list in order)
  "key_used", // hash: key id → its last admitted use (ms), written by RESOLVE_KEY at most once a minute
  "oauth", // hash: grant id → grant JSON (lua-oauth.ts)
  "oauth_digests", // hash: sha256(code or token) → "<role>|<grant id>"
] as const;

/** The full KEYS list of a team, in TEAM_KEY_PARTS order. */
export function teamKeys(teamId: string): string[] {
  return TEAM_KEY_PARTS.map((part) => `team:{${teamId}}:${part}`);
}

/**
 * A person's web session (session-types.ts): one hash per session, in a slot of its own (the hash tag is the digest
 * of the session id), so a session operation is one script on one node whatever the cluster's size.
 */
export function sessionKey(digest: string): string {
  return `session:{${digest}}`;
}

/**
 * Every team a key was stored for (the operators' team list): a zset team id → first key's time (ms), in a slot of
 * its own (hash tag `{index}`), written after the key itself (a team is listed once it has a key).
 */
export const TEAM_INDEX_KEY = "teams:{index}:all";
