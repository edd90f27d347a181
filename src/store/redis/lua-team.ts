/**
 * Lua of the team-slot scripts: keys, rate limiting and the room-limit index. Each is TEAM_PRELUDE followed by its
 * body and touches only the team's keys (`team:{<teamId>}:…`).
 */
import type { RateDecision } from "../access-types.ts";
import type { Numbered, StoredKey } from "./access-records.ts";
import { KEY_BINDINGS } from "./lua-prelude.ts";
import { RATE_LUA } from "./lua-rate.ts";
import { arg, returns, script } from "./script-decl.ts";

/** What RESERVE_ROOM answers when it gave a place: whether the room is new to the index, and its score. */
export interface Place {
  added: boolean;
  score: number;
}

/** The Lua name of each team key, in keys.ts TEAM_KEY_PARTS order. */
export const TEAM_KEY_NAMES = [
  "K_KEYS", // hash: key id -> key JSON (with digest)
  "K_KEY_DIGESTS", // hash: sha256(secret) -> key id
  "K_ROOMS", // zset: room id -> claim time (ms), the room-limit index
  "K_RL_TOOLS", // zset: sliding-window log of the "tools" bucket
  "K_RL_META", // zset: sliding-window log of the "meta" bucket
  "K_TEAM_META", // hash: key_n, the key creation counter
  "K_KEY_USED", // hash: key id -> last admitted use (ms)
  "K_OAUTH", // hash: grant id -> grant JSON (lua-oauth.ts)
  "K_OAUTH_DIGESTS", // hash: sha256(code or token) -> "<role>|<grant id>"
] as const;

/**
 * Binds the team keys the script names and the common ARGV; the JSON helpers and the rate limiter (scripts.ts
 * keeps only the helpers a script uses and puts its key bindings at KEY_BINDINGS).
 */
export const TEAM_PRELUDE = `
-- KEYS: the team keys this script names, in keys.ts TEAM_KEY_PARTS order (TEAM_KEY_NAMES):
${KEY_BINDINGS}
-- ARGV common to every team script; the operation's own arguments follow from ARGV[2], each bound by name from
-- the script's declaration (script-decl.ts):
local NOW = tonumber(ARGV[1])   -- injected clock, ms since epoch

local function str(s) return cjson.encode(s) end
local function num(n)
  if n == math.floor(n) and math.abs(n) < 9007199254740992 then return string.format("%d", n) end
  return string.format("%.17g", n)
end
local function ok(json) return '{"ok":' .. json .. '}' end
local function bucket_key(bucket) if bucket == "meta" then return K_RL_META end return K_RL_TOOLS end
-- Stores a key JSON with its creation number "n" spliced in (listings sort by createdAt, then n), and its last
-- use (ms) when it has one (a key copied by migrate).
local function store_key(id, digest, key, used)
  local n = redis.call("HINCRBY", K_TEAM_META, "key_n", 1)
  redis.call("HSET", K_KEYS, id, string.sub(key, 1, -2) .. ',"n":' .. n .. '}')
  redis.call("HSET", K_KEY_DIGESTS, digest, id)
  if used then redis.call("HSET", K_KEY_USED, id, num(used)) end
end
-- A stored key JSON with its last use spliced in as "usedMs" (from the key_used hash) when it has one.
local function with_used(id, key)
  local used = redis.call("HGET", K_KEY_USED, id)
  if not used then return key end
  return string.sub(key, 1, -2) .. ',"usedMs":' .. used .. '}'
end
-- True while a stored key works: no expiresMs, or one after NOW (protocol/key-life.ts keyLive).
local function live_key(raw)
  local expires = cjson.decode(raw).expiresMs
  return expires == nil or expires > NOW
end
-- Unexpired dynamic keys: what the team's key limit counts.
local function live_dynamic()
  local count = 0
  for _, raw in ipairs(redis.call("HVALS", K_KEYS)) do
    local key = cjson.decode(raw)
    if key.kind == "dynamic" and (key.expiresMs == nil or key.expiresMs > NOW) then count = count + 1 end
  end
  return count
end
${RATE_LUA}-- An agent's own window inside its team's (rate-buckets.ts agentBucket): "team:{<teamId>}:rl:agent:<agent>:<bucket>",
-- in the team's slot by its hash tag. Named here, not passed in KEYS: a bound key's agent is known only once the key
-- is found in this same script, and the caller cannot name it beforehand.
local function agent_key(agent, bucket) return string.sub(K_RL_TOOLS, 1, -9) .. "rl:agent:" .. agent .. ":" .. bucket end
-- The team's charge, and its agent's too when there is one (agent ~= "" and agent_limit given).
local function charge_team(bucket, agent, agent_limit, limit, window)
  if agent == "" or not agent_limit or bucket ~= "tools" then return charge(bucket_key(bucket), limit, window) end
  return charge_pair(K_RL_TOOLS, agent_key(agent, bucket), limit, agent_limit, window)
end
`;

/**
 * resolveKey: auth and, when a bucket is given, the charge and the key's use (written only when missing or at least
 * `step` ms old: protocol/key-life.ts useDue). An expired key reads as unknown. Replies {ok: {key: JSON|null, rate?}},
 * the key with its use before this lookup.
 */
export const RESOLVE_KEY = script({
  args: {
    digest: arg.text, // sha256(secret), lowercase hex
    bucket: arg.textOrEmpty, // "tools" | "meta" to charge, "" to charge nothing
    limit: arg.maybeNumber, // requests allowed per window (when charging)
    window: arg.maybeNumber, // window length in ms (when charging)
    step: arg.maybeNumber, // KEY_USE_STEP_MS: how old a recorded use must be to be written again (when charging)
    agent: arg.textOrEmpty, // the agent the request names ("" none); a bound key's agent replaces it
    agentLimit: arg.maybeNumber, // the agent's own window's limit (0: none unless the key has its own); none: no window
  },
  reply: returns<{ key: Numbered<StoredKey> | null; rate?: RateDecision }>(),
  body: `
local id = redis.call("HGET", K_KEY_DIGESTS, digest)
local key = id and redis.call("HGET", K_KEYS, id)
if not key or not live_key(key) then return ok('{"key":null}') end
local shown = with_used(id, key)
if bucket == "" then return ok('{"key":' .. shown .. '}') end
local used = tonumber(redis.call("HGET", K_KEY_USED, id))
if used == nil or used <= NOW - step then redis.call("HSET", K_KEY_USED, id, num(NOW)) end
local record = agent_limit and cjson.decode(key)
-- The key's own agent budget replaces the request's, and 0 charges no agent window (protocol/rate-pair.ts keyRate).
if record and bucket == "tools" and type(record.agentRateLimitPerMinute) == "number" then
  agent_limit = record.agentRateLimitPerMinute
end
if agent_limit and agent_limit <= 0 then agent_limit = nil end
local bound = agent_limit and record.boundAgentId
if type(bound) == "string" then agent = bound end
return ok('{"key":' .. shown .. ',"rate":' .. charge_team(bucket, agent, agent_limit, limit, window) .. '}')
`,
});

/**
 * consumeRate for `n` requests at once (the concurrent callers of one process, key-ops.ts), charged one after
 * another exactly as n calls would be. Replies {ok: [RateDecision…]}, in order.
 */
export const CONSUME_RATE = script({
  args: {
    bucket: arg.text, // "tools" | "meta"
    limit: arg.number, // requests allowed per window
    window: arg.number, // window length in ms
    n: arg.number, // requests to charge
    agent: arg.textOrEmpty, // the agent whose own window is charged too ("" none)
    agentLimit: arg.maybeNumber, // that window's limit; none: the team's window alone
  },
  reply: returns<RateDecision[]>(),
  body: `
local out = {}
for i = 1, n do out[i] = charge_team(bucket, agent, agent_limit, limit, window) end
return ok("[" .. table.concat(out, ",") .. "]")
`,
});

/**
 * createKey: stores unless the team has `max` unexpired dynamic keys. Replies {ok: key JSON} or {ok: "limit"}.
 */
export const CREATE_KEY = script({
  args: {
    id: arg.text, // key id
    digest: arg.text, // sha256(secret)
    key: arg.text, // key JSON as stored (with digest)
    max: arg.number, // most dynamic keys the team may have
    used: arg.maybeNumber, // the key's last use (ms), kept by a copy (migrate); none for a new key
  },
  reply: returns<StoredKey | "limit">(),
  body: `
if live_dynamic() >= max then return ok('"limit"') end
store_key(id, digest, key, used)
if used then return ok(string.sub(key, 1, -2) .. ',"usedMs":' .. num(used) .. '}') end
return ok(key)
`,
});

/**
 * rotateKey: when the team has the live dynamic key `id` not yet rotated, stores the successor (under the key
 * limit: the old key still counts) and ends the old key at `grace` (never later than it already ended), marking it
 * rotatedTo the successor. Replies {ok: {rotated: key JSON, successor: key JSON}}, or {ok: "missing"},
 * {ok: {already: successor id}}, {ok: "limit"}.
 */
export const ROTATE_KEY = script({
  args: {
    id: arg.text, // the key rotated
    sid: arg.text, // the successor's key id
    sdigest: arg.text, // sha256 of the successor's secret
    skey: arg.text, // the successor's key JSON as stored (with digest)
    grace: arg.number, // ms: when the old key ends at the latest
    ends: arg.text, // the same as an ISO date (the record's expiresAt)
    max: arg.number, // most dynamic keys the team may have
  },
  reply: returns<
    { rotated: Numbered<StoredKey>; successor: StoredKey } | "missing" | "limit" | { already: string }
  >(),
  body: `
local raw = redis.call("HGET", K_KEYS, id)
if not raw then return ok('"missing"') end
local old = cjson.decode(raw)
if old.kind ~= "dynamic" or not live_key(raw) then return ok('"missing"') end
if old.rotatedTo then return ok('{"already":' .. str(old.rotatedTo) .. '}') end
if live_dynamic() >= max then return ok('"limit"') end
store_key(sid, sdigest, skey, nil)
if old.expiresMs == nil or old.expiresMs > grace then
  old.expiresMs = grace
  old.expiresAt = ends
end
old.rotatedTo = sid
local kept = cjson.encode(old)
redis.call("HSET", K_KEYS, id, kept)
return ok('{"rotated":' .. with_used(id, kept) .. ',"successor":' .. skey .. '}')
`,
});

/** provisionTeam: stores the team's first key. Replies {ok: key JSON} or {ok: "exists"}. */
export const PROVISION_TEAM = script({
  args: {
    id: arg.text, // key id
    digest: arg.text, // sha256(secret)
    key: arg.text, // key JSON as stored (with digest)
  },
  reply: returns<StoredKey | "exists">(),
  body: `
-- A team with keys or with rooms exists: provisioning never reaches into it (docs/http.md, provision).
if redis.call("HLEN", K_KEYS) > 0 or redis.call("ZCARD", K_ROOMS) > 0 then return ok('"exists"') end
store_key(id, digest, key, nil)
return ok(key)
`,
});

/** listKeys. Replies {ok: [key JSON…]}, each with its last use (unordered; sorted in TS). */
export const LIST_KEYS = script({
  args: {},
  reply: returns<Numbered<StoredKey>[]>(),
  body: `
local all = redis.call("HGETALL", K_KEYS)
local out = {}
for i = 1, #all, 2 do out[#out + 1] = with_used(all[i], all[i + 1]) end
return ok("[" .. table.concat(out, ",") .. "]")
`,
});

/** deleteKey: the record and its digest. Replies {ok: true|false}. */
export const DELETE_KEY = script({
  args: {
    id: arg.text, // key id
  },
  reply: returns<boolean>(),
  body: `
local raw = redis.call("HGET", K_KEYS, id)
if not raw then return ok("false") end
local digest = cjson.decode(raw).digest
redis.call("HDEL", K_KEYS, id)
redis.call("HDEL", K_KEY_USED, id)
if redis.call("HGET", K_KEY_DIGESTS, digest) == id then redis.call("HDEL", K_KEY_DIGESTS, digest) end
return ok("true")
`,
});

/**
 * reserveRoom: a place in the team's room index before a claim. A room already indexed keeps its place (its score
 * moves to NOW, marking a claim in progress); a new one gets a place while the team has fewer than `max`.
 * Replies {ok: {added, score}} or {ok: "limit"}.
 */
export const RESERVE_ROOM = script({
  args: {
    room: arg.text, // room id about to be claimed
    max: arg.number, // roomsPerTeam
  },
  reply: returns<Place | "limit">(),
  body: `
local known = redis.call("ZSCORE", K_ROOMS, room)
if not known and redis.call("ZCARD", K_ROOMS) >= max then return ok('"limit"') end
redis.call("ZADD", K_ROOMS, NOW, room)
return ok('{"added":' .. (known and "false" or "true") .. ',"score":' .. num(NOW) .. '}')
`,
});

/** roomIndex: the team's indexed rooms. Replies {ok: [[room id, score]…]} by score. */
export const ROOM_INDEX = script({
  args: {},
  reply: returns<[string, number][]>(),
  body: `
local all = redis.call("ZRANGE", K_ROOMS, 0, -1, "WITHSCORES")
local out = {}
for i = 1, #all, 2 do out[#out + 1] = "[" .. str(all[i]) .. "," .. num(tonumber(all[i + 1])) .. "]" end
return ok("[" .. table.concat(out, ",") .. "]")
`,
});

/**
 * unindexRooms: removes rooms from the index, each only if its score is still the one the caller saw (so a room
 * re-reserved meanwhile stays). Replies {ok: removed count}.
 */
export const UNINDEX_ROOMS = script({
  args: {
    pairs: arg.list(), // a room id and the score it must still have ("" to remove it whatever its score), by pairs
  },
  reply: returns<number>(),
  body: `
local removed = 0
for i = pairs_at, #ARGV - 1, 2 do
  local score = redis.call("ZSCORE", K_ROOMS, ARGV[i])
  if score and (ARGV[i + 1] == "" or tonumber(score) == tonumber(ARGV[i + 1])) then
    redis.call("ZREM", K_ROOMS, ARGV[i])
    removed = removed + 1
  end
end
return ok(num(removed))
`,
});
