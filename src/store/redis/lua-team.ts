/**
 * Lua of the team-slot scripts: keys, rate limiting and the room-limit index. Each is TEAM_PRELUDE followed by its
 * body and touches only the team's keys (`team:{<teamId>}:…`).
 */
import type { NewKey, RateDecision } from "../access-types.ts";
import type { Numbered } from "./access-records.ts";
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
-- Stores a key JSON with its creation number "n" spliced in (listings sort by createdAt, then n).
local function store_key(id, digest, key)
  local n = redis.call("HINCRBY", K_TEAM_META, "key_n", 1)
  redis.call("HSET", K_KEYS, id, string.sub(key, 1, -2) .. ',"n":' .. n .. '}')
  redis.call("HSET", K_KEY_DIGESTS, digest, id)
end
${RATE_LUA}`;

/** resolveKey: auth and, when a bucket is given, the charge. Replies {ok: {key: JSON|null, rate?}}. */
export const RESOLVE_KEY = script({
  args: {
    digest: arg.text, // sha256(secret), lowercase hex
    bucket: arg.textOrEmpty, // "tools" | "meta" to charge, "" to charge nothing
    limit: arg.maybeNumber, // requests allowed per window (when charging)
    window: arg.maybeNumber, // window length in ms (when charging)
  },
  reply: returns<{ key: NewKey | null; rate?: RateDecision }>(),
  body: `
local id = redis.call("HGET", K_KEY_DIGESTS, digest)
local key = id and redis.call("HGET", K_KEYS, id)
if not key then return ok('{"key":null}') end
if bucket == "" then return ok('{"key":' .. key .. '}') end
return ok('{"key":' .. key .. ',"rate":' .. charge(bucket_key(bucket), limit, window) .. '}')
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
  },
  reply: returns<RateDecision[]>(),
  body: `
local out = {}
for i = 1, n do out[i] = charge(bucket_key(bucket), limit, window) end
return ok("[" .. table.concat(out, ",") .. "]")
`,
});

/** createKey: stores unless the team has `max` dynamic keys. Replies {ok: key JSON} or {ok: "limit"}. */
export const CREATE_KEY = script({
  args: {
    id: arg.text, // key id
    digest: arg.text, // sha256(secret)
    key: arg.text, // key JSON as stored (with digest)
    max: arg.number, // most dynamic keys the team may have
  },
  reply: returns<NewKey | "limit">(),
  body: `
local dynamic = 0
for _, raw in ipairs(redis.call("HVALS", K_KEYS)) do
  if cjson.decode(raw).kind == "dynamic" then dynamic = dynamic + 1 end
end
if dynamic >= max then return ok('"limit"') end
store_key(id, digest, key)
return ok(key)
`,
});

/** provisionTeam: stores the team's first key. Replies {ok: key JSON} or {ok: "exists"}. */
export const PROVISION_TEAM = script({
  args: {
    id: arg.text, // key id
    digest: arg.text, // sha256(secret)
    key: arg.text, // key JSON as stored (with digest)
  },
  reply: returns<NewKey | "exists">(),
  body: `
-- A team with keys or with rooms exists: provisioning never reaches into it (docs/http.md, provision).
if redis.call("HLEN", K_KEYS) > 0 or redis.call("ZCARD", K_ROOMS) > 0 then return ok('"exists"') end
store_key(id, digest, key)
return ok(key)
`,
});

/** listKeys. Replies {ok: [key JSON…]} (unordered; sorted in TS). */
export const LIST_KEYS = script({
  args: {},
  reply: returns<Numbered<NewKey>[]>(),
  body: `
return ok("[" .. table.concat(redis.call("HVALS", K_KEYS), ",") .. "]")
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
