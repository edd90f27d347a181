/**
 * Lua of webhooks: the outbox hook that append_event calls (lua-log.ts), the owner's admin scripts (prepended with
 * PRELUDE + LOG + GUARD), the delivery worker's claim and record scripts (PRELUDE + LOG, acting for no team) and
 * the scripts of the global index of rooms with webhooks (keys.ts WEBHOOK_INDEX_KEY, a slot of its own).
 *
 * Per webhook, `wh_state` keeps one string "<a|d> <dropped in a row> <last delivery ms> <attempts logged> <match>":
 * active or disabled, the counters, and the type filter — "*" for every type, else the types each wrapped in
 * "\001" (a control character no event type may hold), so matching is one plain string.find. Helpers live in the
 * table WH, which LOG declares: Lua 5.1 allows 200 locals per chunk, and every script shares one.
 */
import type { RoomEvent } from "../../protocol/records.ts";
import { WEBHOOK_DISABLED_EVENT, WEBHOOK_LIMITS, type WebhookAttempt } from "../../protocol/webhooks.ts";
import type { NewWebhook } from "../types.ts";
import { arg, returns, script } from "./script-decl.ts";

/** A webhook as stored: what was registered, plus its creation number. */
export type StoredWebhook = NewWebhook & { n: number };

/** A webhook as LIST_WEBHOOKS answers it. */
export interface ListedWebhook {
  w: StoredWebhook;
  active: boolean;
  drops: number;
  /** ms of the last delivery, 0 for never. */
  last: number;
}

/** What CLAIM_DELIVERIES answers. */
export interface ClaimReply {
  hooks: boolean;
  claimed: {
    attempt: number;
    lease: number;
    hook: StoredWebhook;
    e: Omit<RoomEvent, "read_by">;
    r: string[];
  }[];
  next: number | null;
}

/**
 * Part of LOG, before append_event: queues event `seq` for every active webhook of the room whose filter takes
 * `etype`, due now. A room without webhooks pays one HLEN.
 */
export const WEBHOOK_ENQUEUE = `
local WH = {}
-- Whether a webhook whose type filter is \`match\` takes events of \`etype\` (protocol/webhooks.ts
-- webhookTakes, which lua-webhooks.test.ts runs beside it on generated cases).
function WH.takes(match, etype)
  return match == "*" or string.find(match, "\\001" .. etype .. "\\001", 1, true) ~= nil
end
function WH.enqueue(seq, etype)
  if redis.call("HLEN", K_WEBHOOKS) == 0 then return end
  local all = redis.call("HGETALL", K_WH_STATE)
  for i = 1, #all, 2 do
    local active, match = string.match(all[i + 1], "^(%a) %d+ %d+ %d+ (.*)$")
    if active == "a" and WH.takes(match, etype) then
      W("ZADD", K_WH_OUTBOX, NOW, num(seq) .. " " .. all[i] .. " 1")
    end
  end
end
`;

/**
 * The retry and disabling policy (protocol/webhooks.ts afterDelivery, which lua-webhooks.test.ts runs
 * beside it on the same generated cases). WH.after(s, outcome, retry, at): one attempt's outcome ("delivered",
 * "failed" or "gone", `retry` the ms until the next try or nil for none, `at` when it started) on the webhook's
 * state s ({active: "a"|"d", drops, last}); answers what the log records, whether the event is tried again, and why
 * the webhook is disabled now (nil: it is not). It sets s.drops and s.last; the caller requeues, logs and saves.
 */
export const WEBHOOK_POLICY = `
function WH.after(s, outcome, retry, at)
  if outcome == "delivered" then
    s.drops, s.last = 0, at
    return "delivered", false, nil
  end
  if outcome == "gone" then return "dropped", false, s.active == "a" and "gone" or nil end
  if retry then return "failed", true, nil end
  s.drops = s.drops + 1
  return "dropped", false, (s.active == "a" and s.drops >= ${WEBHOOK_LIMITS.disableAfterDropped}) and "failing" or nil
end
`;

/** A webhook's type filter as Lua matches it (WH.takes): "*" for every type, else each type wrapped in \u0001. */
export const typeMatch = (types: readonly string[]): string =>
  types.length === 0 ? "*" : `\u0001${types.join("\u0001")}\u0001`;

/** Helpers of the scripts below (WH was declared by LOG). */
const HELPERS = `${WEBHOOK_POLICY}
local LOG_SIZE = ${WEBHOOK_LIMITS.logSize}
-- The webhook's state as a table, or nil when there is no such webhook.
function WH.state(id)
  local raw = redis.call("HGET", K_WH_STATE, id)
  if not raw then return nil end
  local active, drops, last, logn, match = string.match(raw, "^(%a) (%d+) (%d+) (%d+) (.*)$")
  return { active = active, drops = tonumber(drops), last = tonumber(last), logn = tonumber(logn), match = match }
end
function WH.save(id, s)
  W("HSET", K_WH_STATE, id, s.active .. " " .. num(s.drops) .. " " .. num(s.last) .. " " .. num(s.logn) .. " " .. s.match)
end
-- Appends an attempt (JSON) to the webhook's ring of the newest LOG_SIZE; the caller saves s.
function WH.log(id, s, entry)
  s.logn = s.logn + 1
  W("HSET", K_WH_LOG, id .. " " .. (s.logn % LOG_SIZE), entry)
end
-- "<seq> <webhook id> <attempt>" → seq, id, attempt.
function WH.member(m)
  local seq, id, attempt = string.match(m, "^(%d+) (%S+) (%d+)$")
  return seq, id, tonumber(attempt)
end
-- Scripts acting for no team never run ok(): a key they create gets the room's remaining lifetime (none when the
-- room's keys have no expiry, or the store keeps rooms for ever: ROOM_TTL "0").
function WH.keep_ttl()
  local ttl = redis.call("PTTL", K_META)
  if ttl == -1 then return end
  if ttl <= 0 then ttl = tonumber(ROOM_TTL) end
  if ttl <= 0 then return end
  for key in pairs(DIRTY) do
    if redis.call("PTTL", key) == -1 then redis.call("PEXPIRE", key, ttl) end
  end
end
`;

/** The owner-only check (GUARD already refused other owners; this refuses unowned rooms). */
const OWNER_ONLY = `
if not OWNED then return '{"err":"denied"}' end
`;

/** Scripts of the admin routes, for the room's owner; none of them claims a room. */
export const WEBHOOK_ADMIN = {
  /** createWebhook: stores unless the room has `max` webhooks. Replies {ok: true} or {ok: "limit"}. */
  CREATE_WEBHOOK: script({
    args: {
      id: arg.text, // webhook id
      hook: arg.text, // webhook JSON as registered
      match: arg.text, // type filter: "*", or each type wrapped in \\001
      max: arg.number, // most webhooks the room may have
    },
    reply: returns<"limit" | true>(),
    body: `${OWNER_ONLY}${HELPERS}
if redis.call("HLEN", K_WEBHOOKS) >= max then return ok('"limit"') end
-- The creation number "n" is spliced in: listings sort by it.
local n = W("HINCRBY", K_META, "webhook_n", 1)
W("HSET", K_WEBHOOKS, id, string.sub(hook, 1, -2) .. ',"n":' .. n .. '}')
W("HSET", K_WH_STATE, id, "a 0 0 0 " .. match)
return ok("true")
`,
  }),

  /** listWebhooks. Replies {ok: [{w: webhook JSON, active, drops, last}…]} (unordered; sorted in TS). */
  LIST_WEBHOOKS: script({
    args: {},
    reply: returns<ListedWebhook[]>(),
    body: `${OWNER_ONLY}${HELPERS}
local all = redis.call("HGETALL", K_WEBHOOKS)
local out = {}
for i = 1, #all, 2 do
  local s = WH.state(all[i])
  if s then
    out[#out + 1] = '{"w":' .. all[i + 1] .. ',"active":' .. tostring(s.active == "a") .. ',"drops":'
      .. num(s.drops) .. ',"last":' .. num(s.last) .. '}'
  end
end
return ok("[" .. table.concat(out, ",") .. "]")
`,
  }),

  /** deleteWebhook: the webhook, its state and its log; queued deliveries are dropped by the next claim. Replies {ok: bool}. */
  DELETE_WEBHOOK: script({
    args: {
      id: arg.text, // webhook id
    },
    reply: returns<boolean>(),
    body: `${OWNER_ONLY}${HELPERS}
if redis.call("HDEL", K_WEBHOOKS, id) == 0 then return ok("false") end
redis.call("HDEL", K_WH_STATE, id)
local fields = {}
for i = 0, LOG_SIZE - 1 do fields[#fields + 1] = id .. " " .. i end
redis.call("HDEL", K_WH_LOG, unpack(fields))
return ok("true")
`,
  }),

  /** webhookDeliveries: the log, newest first. Replies {ok: [attempt JSON…]} or {ok: null} for no such webhook. */
  WEBHOOK_DELIVERIES: script({
    args: {
      id: arg.text, // webhook id
    },
    reply: returns<WebhookAttempt[] | null>(),
    body: `${OWNER_ONLY}${HELPERS}
local s = WH.state(id)
if not s then return ok("null") end
if s.logn == 0 then return ok("[]") end
local fields = {}
for n = s.logn, math.max(1, s.logn - LOG_SIZE + 1), -1 do fields[#fields + 1] = id .. " " .. (n % LOG_SIZE) end
local got = redis.call("HMGET", K_WH_LOG, unpack(fields))
local out = {}
for i = 1, #got do if got[i] then out[#out + 1] = got[i] end end
return ok("[" .. table.concat(out, ",") .. "]")
`,
  }),

  /** logTestDelivery: appends to the log only. Replies {ok: bool} (false: no such webhook). */
  LOG_TEST_DELIVERY: script({
    args: {
      id: arg.text, // webhook id
      entry: arg.text, // the attempt's JSON
    },
    reply: returns<boolean>(),
    body: `${OWNER_ONLY}${HELPERS}
local s = WH.state(id)
if not s then return ok("false") end
WH.log(id, s, entry)
WH.save(id, s)
return ok("true")
`,
  }),
};

/** Scripts of the delivery worker: they act for no team and never claim or touch the room. */
export const WEBHOOK_WORKER = {
  /**
   * claimDeliveries: up to `limit` due members, each leased until NOW + lease (the new score, also its token);
   * members of deleted or disabled webhooks, or of events that are gone, are dropped. Replies
   * {ok: {hooks, claimed: [{attempt, lease, hook: webhook JSON, e: event, r: read_by}…], next: ms|null}}.
   */
  CLAIM_DELIVERIES: script({
    args: {
      limit: arg.number, // most deliveries to claim
      lease: arg.number, // ms a claim lasts
    },
    reply: returns<ClaimReply>(),
    body: `${HELPERS}
if redis.call("HLEN", K_WEBHOOKS) == 0 then return reply('{"hooks":false,"claimed":[],"next":null}') end
local out = {}
for _, m in ipairs(redis.call("ZRANGEBYSCORE", K_WH_OUTBOX, "-inf", NOW, "LIMIT", 0, limit)) do
  local seq, id, attempt = WH.member(m)
  local s = WH.state(id)
  local hook = redis.call("HGET", K_WEBHOOKS, id)
  local event = redis.call("HGET", K_EVENTS, seq)
  if not (s and s.active == "a" and hook and event) then
    redis.call("ZREM", K_WH_OUTBOX, m)
  else
    redis.call("ZADD", K_WH_OUTBOX, "XX", NOW + lease, m)
    out[#out + 1] = '{"attempt":' .. attempt .. ',"lease":' .. num(NOW + lease) .. ',"hook":' .. hook
      .. ',"e":' .. event .. ',"r":' .. (redis.call("HGET", K_EVENT_READS, seq) or "[]") .. '}'
  end
end
local first = redis.call("ZRANGE", K_WH_OUTBOX, 0, 0, "WITHSCORES")
local next_due = first[2] and num(tonumber(first[2])) or "null"
return reply('{"hooks":true,"claimed":[' .. table.concat(out, ",") .. '],"next":' .. next_due .. '}')
`,
  }),

  /**
   * recordDelivery: applies one attempt's outcome while the member still carries the claim's lease. Replies
   * {ok: {recorded, logged?, disabled?}}.
   */
  RECORD_DELIVERY: script({
    args: {
      m: arg.text, // outbox member "<seq> <webhook id> <attempt>"
      token: arg.number, // the claim's lease end, which the member's score still is while the claim holds
      outcome: arg.text, // delivered | failed | gone
      retry: arg.maybeNumber, // ms until the next try of a failure (none: it was the last)
      entry: arg.text, // the attempt's JSON for the log
      at: arg.number, // ms the attempt started
    },
    reply: returns<{ recorded: boolean; logged?: WebhookAttempt["outcome"]; disabled?: boolean }>(),
    body: `${HELPERS}
local score = redis.call("ZSCORE", K_WH_OUTBOX, m)
if not score or tonumber(score) ~= token then return reply('{"recorded":false}') end
redis.call("ZREM", K_WH_OUTBOX, m)
local seq, id, attempt = WH.member(m)
local s = WH.state(id)
if not s then return reply('{"recorded":false}') end
local logged, again, reason = WH.after(s, outcome, retry, at)
if again then W("ZADD", K_WH_OUTBOX, NOW + retry, seq .. " " .. id .. " " .. (attempt + 1)) end
WH.log(id, s, entry)
local disabled = reason ~= nil
if disabled then s.active = "d" end
-- Saved before the event is appended, so the event is not queued for the webhook it disables.
WH.save(id, s)
if disabled then
  append_event("${WEBHOOK_DISABLED_EVENT}", "system", "all", '{"webhookId":' .. str(id) .. ',"reason":"' .. reason
    .. '","consecutiveFailures":' .. num(s.drops) .. '}')
end
WH.keep_ttl()
return reply('{"recorded":true,"logged":"' .. logged .. '","disabled":' .. tostring(disabled) .. '}')
`,
  }),
};

/**
 * Scripts of the global index (KEYS[1] = keys.ts WEBHOOK_INDEX_KEY; ARGV[1] = the injected clock, ms, bound as NOW
 * by scripts.ts). They are
 * the only scripts outside a room's or team's slot.
 */
export const WEBHOOK_INDEX = {
  /** Lists the room (score: now). Replies {ok: true}. */
  WEBHOOK_INDEX_ADD: script({
    args: { roomId: arg.text },
    reply: returns<true>(),
    body: `
redis.call("ZADD", KEYS[1], NOW, room_id)
return '{"ok":true}'
`,
  }),
  /** Replies {ok: [room id…]}. */
  WEBHOOK_ROOMS: script({
    args: {},
    reply: returns<string[]>(),
    body: `
local rooms = redis.call("ZRANGE", KEYS[1], 0, -1)
if #rooms == 0 then return '{"ok":[]}' end
return '{"ok":' .. cjson.encode(rooms) .. '}'
`,
  }),
  /** Unlists the room if its score is at most `before` (ms). Replies {ok: removed}. */
  WEBHOOK_INDEX_FORGET: script({
    args: { roomId: arg.text, before: arg.number },
    reply: returns<boolean>(),
    body: `
local score = redis.call("ZSCORE", KEYS[1], room_id)
if score and tonumber(score) <= before then
  redis.call("ZREM", KEYS[1], room_id)
  return '{"ok":true}'
end
return '{"ok":false}'
`,
  }),
};
