/**
 * Lua of the room-slot scripts that act for no team (prepended with PRELUDE but not GUARD): invite
 * resolution, the room-index check, and the read-only views. None refreshes a TTL or writes room state.
 */
import type { RoomEvent, TaskStatus } from "../../protocol/records.ts";
import type { NewInvite, RateDecision, RoomStats } from "../access-types.ts";
import { ROOM_KEY_PARTS } from "./keys.ts";
import { RATE_LUA } from "./lua-rate.ts";
import { TASK_COUNTS } from "./lua-task-counts.ts";
import type { StoredPresence } from "./records.ts";
import { arg, returns, script } from "./script-decl.ts";

/** What ROOM_INFO answers about one room. */
export interface RoomInfo {
  owner: string | null;
  createdAt: string | null;
  /** The room's last use (ms, injected clock); null for a room written before the driver recorded it. */
  lastUsed: number | null;
  /** ms the room's meta key has left (-2 when it does not exist), the fallback for lastUsed. */
  pttl: number;
}

/** What ROOM_SUMMARY answers about an owned room. */
export interface StoredSummary {
  presence: Record<string, StoredPresence>;
  byStatus: Partial<Record<TaskStatus, number>>;
  taskCount: number;
  contextCount: number;
  events: { h: Pick<RoomEvent, "id" | "seq" | "type" | "from" | "to">; ms: number }[];
  forkedFrom: { roomId: string; seq: number } | null;
}

/**
 * resolveInvite: the invite with this digest if it is unexpired and its team still owns the room; when valid and
 * a limit is given, charges the invite's own window. Replies {ok: {invite: JSON|null, rate?}}.
 */
export const RESOLVE_INVITE = script({
  args: {
    digest: arg.text, // sha256(token), lowercase hex
    limit: arg.maybeNumber, // requests allowed per window, none to charge nothing
    window: arg.maybeNumber, // window length in ms (when charging)
  },
  reply: returns<{ invite: NewInvite | null; rate?: RateDecision }>(),
  body: `${RATE_LUA}
local K_RATE = KEYS[${ROOM_KEY_PARTS.length + 1}] -- zset: this invite's sliding-window log for the bucket (keys.ts inviteRateKey)
local id = redis.call("HGET", K_INVITE_DIGESTS, digest)
local raw = id and redis.call("HGET", K_INVITES, id)
local invite = raw and cjson.decode(raw)
if not invite or invite.expiresMs <= NOW or OWNER ~= invite.teamId then return reply('{"invite":null}') end
if not limit then return reply('{"invite":' .. raw .. '}') end
return reply('{"invite":' .. raw .. ',"rate":' .. charge(K_RATE, limit, window) .. '}')
`,
});

/** When the room was last used: meta last_used (ms), or "null" for a room that predates it. */
const LAST_USED = `
local last_used = redis.call("HGET", K_META, "last_used") or "null"
`;

/**
 * roomInfo: who owns the room, since when, its last use and the ms its keys have left. Replies
 * {ok: {owner, createdAt, lastUsed, pttl}}.
 */
export const ROOM_INFO = script({
  args: {},
  reply: returns<RoomInfo>(),
  body: `${LAST_USED}
-- A store that keeps rooms for ever (ROOM_TTL "0": ROOM_TTL_DAYS=0, or an archive directory whose archiver removes
-- rooms) takes back the expiry an earlier setting gave the room's keys, so a room nobody uses since is never dropped
-- unarchived; listings read every room through here. PERSIST changes no value.
if ROOM_TTL == "0" and redis.call("PTTL", K_META) >= 0 then
  for i = 1, ROOM_KEY_COUNT do redis.call("PERSIST", KEYS[i]) end
end
local created = redis.call("HGET", K_META, "created_at")
return reply('{"owner":' .. opt_str(OWNER or nil) .. ',"createdAt":' .. opt_str(created or nil) .. ',"lastUsed":'
  .. last_used .. ',"pttl":' .. redis.call("PTTL", K_META) .. '}')
`,
});

/**
 * roomStats (operator view of any room). Replies {ok: null} when unowned, else {ok: {owner, counts…, lastUsed,
 * pttl}}.
 */
export const ROOM_STATS = script({
  args: {},
  reply: returns<
    (Omit<RoomStats, "roomId" | "lastActivity"> & { lastUsed: number | null; pttl: number }) | null
  >(),
  body: `
if not OWNER then return reply("null") end
${TASK_COUNTS}${LAST_USED}
return reply('{"owner":' .. str(OWNER) .. ',"taskCount":' .. task_count .. ',"doneTasks":' .. (by_status.done or 0)
  .. ',"contextCount":' .. redis.call("HLEN", K_CTX) .. ',"agentCount":' .. redis.call("HLEN", K_PRESENCE)
  .. ',"eventCount":' .. (redis.call("HGET", K_META, "event_seq") or "0") .. ',"lastUsed":' .. last_used
  .. ',"pttl":' .. redis.call("PTTL", K_META) .. '}')
`,
});

/**
 * roomSummary (public view): null when unowned or, with TEAM given, owned by another team. Event headers are cut
 * from the stored JSON before "payload" (the builder's field order is fixed and a JSON string never holds an
 * unescaped quote), so payloads are never decoded; timestamps come from event_idx as ms. Replies
 * {ok: {presence: {agent: {lastSeen, statusText?}}, byStatus: {status: n}, taskCount, contextCount,
 * events: [{h: header JSON, ms}…] newest first}}.
 */
export const ROOM_SUMMARY = script({
  args: {
    recent: arg.number, // most event headers to return
  },
  reply: returns<StoredSummary | null>(),
  body: `
if not OWNER or (TEAM ~= "" and not OWNED) then return reply("null") end
${TASK_COUNTS}
local statuses = {}
for status, n in pairs(by_status) do statuses[#statuses + 1] = str(status) .. ":" .. n end
local presence = redis.call("HGETALL", K_PRESENCE)
local people = {}
for i = 1, #presence, 2 do people[#people + 1] = str(presence[i]) .. ":" .. presence[i + 1] end
local headers = {}
local high = tonumber(redis.call("HGET", K_META, "event_seq")) or 0
-- No lower than the events the room holds allow (the log is every seq from the trim to the head): a count bound.
local low_end = math.max(TRIM.seq(), high - redis.call("HLEN", K_EVENT_IDX)) + 1
while high >= low_end and #headers < recent do
  local seqs = {}
  for s = high, math.max(low_end, high - recent + 1), -1 do seqs[#seqs + 1] = s end
  local evs = redis.call("HMGET", K_EVENTS, unpack(seqs))
  local idx = redis.call("HMGET", K_EVENT_IDX, unpack(seqs))
  for i = 1, #seqs do
    if evs[i] and idx[i] and #headers < recent then
      local cut = string.find(evs[i], ',"payload":', 1, true)
      headers[#headers + 1] = '{"h":' .. string.sub(evs[i], 1, cut - 1) .. '},"ms":' .. num(idx_parts(idx[i])) .. '}'
    end
  end
  high = seqs[#seqs] - 1
end
return reply('{"presence":{' .. table.concat(people, ",") .. '},"byStatus":{' .. table.concat(statuses, ",")
  .. '},"taskCount":' .. task_count .. ',"contextCount":' .. redis.call("HLEN", K_CTX) .. ',"events":['
  .. table.concat(headers, ",") .. '],"forkedFrom":' .. (redis.call("HGET", K_META, "forked_from") or "null") .. '}')
`,
});
