import { LIMITS } from "../../protocol/limits.ts";
import { ROOM_KEY_PARTS } from "./keys.ts";
import { HOLDINGS } from "./lua-holdings.ts";

/**
 * `local K_<PART> = KEYS[i]` for the parts a script names, in the order it receives them: scripts address keys by
 * name, and adding a part never renumbers anything by hand. What each key holds is documented next to its part in
 * keys.ts. `parts` are the script's parts in ROOM_KEY_PARTS order (scripts.ts finds them from the names its text
 * uses; call.ts passes exactly those keys, in that order, then — when it passes the whole room — the others).
 */
export function keyBindings(parts: readonly string[]): string {
  return parts.map((part, i) => `local K_${part.toUpperCase()} = KEYS[${i + 1}]`).join("\n");
}

/** Where scripts.ts puts a script's key bindings (keyBindings) in PRELUDE. */
export const KEY_BINDINGS = "--@keys";

/**
 * Lua shared by every room script, prepended to each body. It binds the fixed KEYS list and the common ARGV,
 * reads the room's meta fields once, and provides the JSON builders and the reply path: ok() records the actor's
 * presence, keeps an idempotent result and refreshes the room's expiry — all inside the operation's script.
 * Records are assembled by concatenation: user JSON (payloads) is spliced in verbatim and numbers are printed
 * with full precision, because Redis' cjson prints only 14 significant digits and encodes an empty table as {}.
 */
export const PRELUDE = `
-- KEYS: the keys of the parts this script names (K_META, …), bound by name in keys.ts ROOM_KEY_PARTS order:
${KEY_BINDINGS}
-- When the caller passed the whole room (every part: a claim, or the TTL refresh call.ts sends now and then), the
-- parts this script does not name follow its own, so KEYS[1..ROOM_KEY_COUNT] are every key of the room.
local ROOM_KEY_COUNT = ${ROOM_KEY_PARTS.length}
local WHOLE = #KEYS >= ROOM_KEY_COUNT
-- ARGV common to every script; the operation's own arguments follow from ARGV[5], each bound by name from the
-- script's declaration (script-decl.ts):
local TEAM = ARGV[1]            -- team acting on the room
local NOW = tonumber(ARGV[2])   -- injected clock, ms since epoch (never Redis TIME, so tests can move time)
local NOW_ISO = ARGV[3]         -- the same instant as an ISO string
local ROOM_TTL = ARGV[4]        -- ms a room lives after its last use; "0": for ever (its keys get no expiry)
-- The last seven ARGV, common to every script and last so operation ARGV keep their numbers (call.ts scopeTail):
-- event retention, "<max events> <max age ms>" (0: no bound), which every append applies (lua-log.ts TRIM)
local TRIM = {
  max = tonumber(string.match(ARGV[#ARGV - 6], "^(%d+) ")) or 0,
  ms = tonumber(string.match(ARGV[#ARGV - 6], " (%d+)$")) or 0,
}
local FEED = ARGV[#ARGV - 5] == "1" -- "1": publish the room's changes on its feed channel (clients that subscribe)
local ACTOR = ARGV[#ARGV - 4]   -- acting agent: a successful call on an owned room records its presence ("" none)
-- the agent the call is made by, not acting as it (types.ts RoomScope.caller): only refused when suspended ("" none)
local CALLER = ARGV[#ARGV - 3]
local IDEM_KEY = ARGV[#ARGV - 2] -- idempotency key of a mutating call ("" none)
local IDEM_FP = ARGV[#ARGV - 1] -- sha256 of the tool and its arguments, compared with a kept result's
-- the claim mode, "1" when the team's room index has a place reserved for this room (call.ts), so a write may
-- claim an unowned room; "2" for a read on behalf of someone looking on, which records no use of the room.
local CLAIM_OK = ARGV[#ARGV] == "1"
local OBSERVING = ARGV[#ARGV] == "2" -- a read for someone looking on (types.ts RoomScope.observe): records no use
local IDEM_KEEP = ${LIMITS.idempotencyKeepMs} -- ms a kept result lives
local TTL_EVERY = 60000         -- a room's keys get their full TTL at most once a minute (docs/architecture.md)

-- The meta fields every script may need, in one command.
local META = redis.call("HMGET", K_META, "owner", "ttl_at", "addr_v", "counted", "last_used")
local OWNER = META[1]
local OWNED = OWNER == TEAM
-- What a writing script answers, before any write, on an unowned room it may not claim yet.
local CLAIM = '{"err":"claim"}'

local function str(s) return cjson.encode(s) end
local function num(n)
  if n == math.floor(n) and math.abs(n) < 9007199254740992 then return string.format("%d", n) end
  return string.format("%.17g", n)
end
-- cjson.decode gives cjson.null (truthy) for JSON null.
local function val(v) if v == cjson.null then return nil end return v end
local function opt_str(s) if s == nil then return "null" end return str(s) end
local function strs(list) if #list == 0 then return "[]" end return cjson.encode(list) end
local function optional(s) if s == "" then return nil end return s end

-- Writes that may create a key go through W, so the reply gives a new key its TTL without touching the others.
local DIRTY = {}
local function W(cmd, key, ...)
  DIRTY[key] = true
  return redis.call(cmd, key, ...)
end

-- The room's feed channel (sharded pub/sub, in the room's slot): "<seq>" when the log grows, "s:<kind>" for a
-- signal (types.ts SignalKind). Each signal also bumps a counter in meta (sig_<kind>) for feeds that poll.
local FEED_CHANNEL = string.sub(K_META, 1, -5) .. "feed"
local function publish(message)
  if FEED then redis.call("SPUBLISH", FEED_CHANNEL, message) end
end
local function signal(kind)
  W("HINCRBY", K_META, "sig_" .. kind, 1)
  publish("s:" .. kind)
end

${HOLDINGS}
-- The actor's presence: lastSeen = NOW, status text kept, "left" ended; a presence signal when it comes online.
-- It renews the agent's live leases and claims too.
local function seen(agent)
  local old = redis.call("HGET", K_PRESENCE, agent)
  local before = old and cjson.decode(old)
  local text = before and val(before.statusText)
  W("HSET", K_PRESENCE, agent, '{"lastSeen":' .. num(NOW) .. (text and (',"statusText":' .. str(text)) or "") .. '}')
  if not before or before.left or NOW - before.lastSeen >= ${LIMITS.presenceOnlineMs} then signal("presence") end
  R.renew(agent)
end
-- Keeps a write's result for IDEM_KEY, and drops a few keys past IDEM_KEEP so the hash stays bounded.
local function remember(json)
  W("HSET", K_IDEM, IDEM_KEY, num(NOW) .. " " .. IDEM_FP .. " " .. json)
  W("ZADD", K_IDEM_AT, NOW, IDEM_KEY)
  local old = redis.call("ZRANGEBYSCORE", K_IDEM_AT, "-inf", NOW - IDEM_KEEP, "LIMIT", 0, 8)
  if #old > 0 then
    redis.call("HDEL", K_IDEM, unpack(old))
    redis.call("ZREM", K_IDEM_AT, unpack(old))
  end
end
-- Records the room's last use (meta last_used, ms) and keeps its keys alive ROOM_TTL past it. Every key gets its
-- full TTL at most once a minute (a fixed number of keys, whatever the room holds), by a call that was passed the
-- whole room (call.ts passes it at least every 15 s of a process's calls on the room); otherwise only keys this
-- script wrote do, so a key created since never lives without one. A script that wrote nothing records the last
-- use at most once a minute too (as SQLite's reads do), so a read writes nothing at all in between. Lock and
-- presence expiry live inside their values, so this never extends them. Only ever called on an owned room. With
-- ROOM_TTL "0" the room lives for ever: new keys get no expiry, and the whole pass takes back any expiry an earlier
-- setting gave (PERSIST; PEXPIRE 0 would delete).
local function touch()
  local wrote = next(DIRTY) ~= nil
  if OBSERVING and not wrote then return end
  local since = NOW - (tonumber(META[2]) or 0)
  -- A call holding the whole room when the refresh is due always makes it, read or not: call.ts gives a room its
  -- whole pass once per 15 s per process, and a pass spent on a read that skipped it would leave the keys nobody
  -- writes without a refresh for as long as the room stays busy.
  local due = WHOLE and (since >= TTL_EVERY or since < -TTL_EVERY)
  if not wrote and not due and NOW - (tonumber(META[5]) or 0) < TTL_EVERY then return end
  redis.call("HSET", K_META, "last_used", num(NOW))
  local forever = ROOM_TTL == "0"
  if due then
    redis.call("HSET", K_META, "ttl_at", num(NOW))
    for i = 1, ROOM_KEY_COUNT do
      if forever then redis.call("PERSIST", KEYS[i]) else redis.call("PEXPIRE", KEYS[i], ROOM_TTL) end
    end
  elseif not forever then
    for key in pairs(DIRTY) do redis.call("PEXPIRE", key, ROOM_TTL) end
  end
end
-- Every successful reply on a room the team owns: the actor's presence, the kept result, the room's expiry.
local function ok(json)
  if OWNED then
    if ACTOR ~= "" then seen(ACTOR) end
    if IDEM_KEY ~= "" then remember(json) end
    touch()
  end
  return '{"ok":' .. json .. '}'
end
-- ok() of a reply in pieces (run.ts joinPieces: the strings in order, a nested list joined with commas), for
-- replies holding lists of records: building them as one Lua string would copy every record into it, and making
-- Lua strings is what costs (about 1 µs per KB). Kept for an idempotency key, the reply is joined here after all.
local function ok_pieces(pieces)
  if OWNED and IDEM_KEY ~= "" then
    local flat = {}
    for i, p in ipairs(pieces) do flat[i] = type(p) == "table" and table.concat(p, ",") or p end
    return ok(table.concat(flat))
  end
  ok("null")
  pieces[1] = '{"ok":' .. pieces[1]
  pieces[#pieces + 1] = "}"
  return pieces
end
-- The reply of views, which write nothing at all (not even the room's last use).
local function reply(json) return '{"ok":' .. json .. '}' end
-- Every writing script calls this after its writes: the first write claims the room (scripts check CLAIM_OK
-- before writing to an unowned room).
local function commit()
  if not OWNED then
    W("HSET", K_META, "owner", TEAM, "created_at", NOW_ISO)
    OWNED = true
  end
end
`;

/**
 * Appended to PRELUDE by every script that acts for TEAM: a room owned by another team is refused first, then a
 * call of a suspended actor or caller (ACTOR, CALLER); a claim
 * of an unowned room starts from nothing (keys a vanished room left behind are dropped); then a kept result of the
 * call's idempotency key is returned as it was (or the key refused for other arguments).
 */
export const GUARD = `
if OWNER and not OWNED then return '{"err":"denied"}' end
-- A suspended agent's call is refused before anything is read or written (protocol/suspensions.ts); the room's id
-- comes back for the message. Only on an owned room: another team's reads as missing above.
local function suspended_reply(agent)
  local s = OWNED and agent ~= "" and redis.call("HGET", K_SUSPENDED, agent)
  if not s then return nil end
  return '{"err":"suspended","room":' .. str(string.match(K_META, "^room:{(.*)}:meta$")) .. ',"s":' .. s .. '}'
end
local refused_actor = suspended_reply(ACTOR) or (CALLER ~= ACTOR and suspended_reply(CALLER))
if refused_actor then return refused_actor end
if not OWNER and CLAIM_OK then
  -- call.ts passes the whole room with every claim.
  if not WHOLE then error("a claim needs every key of the room") end
  for i = 1, ROOM_KEY_COUNT do redis.call("DEL", KEYS[i]) end
  META = {}
  -- A new life of the room begins (seqs start again at 1): "0" tells watchers to drop what they know of it.
  publish("0")
end
if IDEM_KEY ~= "" and OWNED then
  local kept = redis.call("HGET", K_IDEM, IDEM_KEY)
  if kept then
    local at, fp, json = string.match(kept, "^(%d+) (%x+) (.*)$")
    if tonumber(at) > NOW - IDEM_KEEP then
      if fp ~= IDEM_FP then return '{"err":"idemMismatch","key":' .. str(IDEM_KEY) .. '}' end
      return '{"ok":' .. json .. ',"replayed":true}'
    end
  end
end
`;
