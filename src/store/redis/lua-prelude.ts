import { LIMITS } from "../../protocol/limits.ts";
import { ROOM_KEY_PARTS } from "./keys.ts";

/**
 * Lua shared by every room script, prepended to each body. It binds the fixed KEYS list and the common ARGV,
 * reads the room's owner, and provides the JSON builders (GUARD, appended by most scripts, refuses rooms owned
 * by another team). Records are assembled by concatenation: user JSON (payloads) is spliced in verbatim and
 * numbers are printed with full precision, because Redis' cjson prints only 14 significant digits and encodes
 * an empty table as {} instead of [].
 */
export const PRELUDE = `
-- KEYS (the room's fixed list, see keys.ts ROOM_KEY_PARTS):
local K_META = KEYS[1]          -- hash: owner, created_at, counters, plan times
local K_TASKS = KEYS[2]         -- hash: task id -> Task JSON
local K_CTX = KEYS[3]           -- hash: context id -> entry JSON without payload
local K_CTX_PAYLOAD = KEYS[4]   -- hash: context id -> payload JSON
local K_CTX_HIST = KEYS[5]      -- hash: context id -> JSON array of earlier versions
local K_CTX_CHANGES = KEYS[6]   -- zset: context id scored by ctx_seq of its last write
local K_EVENTS = KEYS[7]        -- hash: seq -> event JSON without read_by
local K_EVENT_IDX = KEYS[8]     -- hash: seq -> "<timestamp ms> <to>"
local K_EVENT_READS = KEYS[9]   -- hash: seq -> JSON array of agent ids
local K_CURSORS = KEYS[10]      -- hash: agent id -> seq of its last consumed event
local K_CTX_MARKS = KEYS[11]    -- hash: agent id -> ctx_seq at its previous summary
local K_PRESENCE = KEYS[12]     -- hash: agent id -> {lastSeen, statusText?}
local K_LOCKS = KEYS[13]        -- hash: resource -> {holder, expiresAt}
local K_FENCES = KEYS[14]       -- hash: resource -> fencing token
local K_VARS = KEYS[15]         -- hash: key -> value
local K_INVITES = KEYS[16]      -- hash: token id -> invite JSON (with digest and expiresMs)
local K_INVITE_DIGESTS = KEYS[17] -- hash: sha256(token) -> token id
local K_IDEM = KEYS[18]         -- hash: idempotency key -> "<at ms> <fingerprint> <result JSON>"
local K_IDEM_AT = KEYS[19]      -- zset: idempotency key scored by its time
-- ARGV common to every script (operation arguments start at ARGV[5]):
local TEAM = ARGV[1]            -- team acting on the room
local NOW = tonumber(ARGV[2])   -- injected clock, ms since epoch (never Redis TIME, so tests can move time)
local NOW_ISO = ARGV[3]         -- the same instant as an ISO string
local ROOM_TTL = ARGV[4]        -- ms a room lives after its last use
-- The last four ARGV, common to every script and last so operation ARGV keep their numbers (call.ts scopeTail):
local ACTOR = ARGV[#ARGV - 3]   -- acting agent: a successful call on an owned room records its presence ("" none)
local IDEM_KEY = ARGV[#ARGV - 2] -- idempotency key of a mutating call ("" none)
local IDEM_FP = ARGV[#ARGV - 1] -- sha256 of the tool and its arguments, compared with a kept result's
-- the claim mode, "1" when the team's room index has a place reserved for this room (call.ts), so a write may
-- claim an unowned room.
local CLAIM_OK = ARGV[#ARGV] == "1"
local IDEM_KEEP = ${LIMITS.idempotencyKeepMs} -- ms a kept result lives

local OWNER = redis.call("HGET", K_META, "owner")
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

-- The actor's presence: lastSeen = NOW, status text kept.
local function seen(agent)
  local old = redis.call("HGET", K_PRESENCE, agent)
  local text = old and val(cjson.decode(old).statusText)
  redis.call("HSET", K_PRESENCE, agent, '{"lastSeen":' .. num(NOW) .. (text and (',"statusText":' .. str(text)) or "") .. '}')
end
-- Keeps a write's result for IDEM_KEY, and drops a few keys past IDEM_KEEP so the hash stays bounded.
local function remember(json)
  redis.call("HSET", K_IDEM, IDEM_KEY, num(NOW) .. " " .. IDEM_FP .. " " .. json)
  redis.call("ZADD", K_IDEM_AT, NOW, IDEM_KEY)
  local old = redis.call("ZRANGEBYSCORE", K_IDEM_AT, "-inf", NOW - IDEM_KEEP, "LIMIT", 0, 8)
  if #old > 0 then
    redis.call("HDEL", K_IDEM, unpack(old))
    redis.call("ZREM", K_IDEM_AT, unpack(old))
  end
end
-- Every successful reply: on a room the team owns, the actor's presence and the kept result go with it.
local function ok(json)
  if OWNED then
    if ACTOR ~= "" then seen(ACTOR) end
    if IDEM_KEY ~= "" then remember(json) end
  end
  return '{"ok":' .. json .. '}'
end

-- Records the room's last use (meta last_used, ms; listRooms and roomStats report it) and refreshes its TTL: a
-- fixed number of keys, so the refresh costs the same whatever the room holds. Lock and presence expiry live
-- inside their values, so this never extends them. Only ever called on an owned room.
local function touch()
  redis.call("HSET", K_META, "last_used", num(NOW))
  for i = 1, ${ROOM_KEY_PARTS.length} do redis.call("PEXPIRE", KEYS[i], ROOM_TTL) end
end
-- Every writing script calls this last, after its writes (PEXPIRE skips keys that do not exist yet); the
-- first write claims the room (scripts check CLAIM_OK before writing to an unowned room).
local function commit()
  if not OWNED then redis.call("HSET", K_META, "owner", TEAM, "created_at", NOW_ISO) OWNED = true end
  touch()
end

local function event_seq_of(id)
  local seq = string.match(id, "^evt%-(%d+)$")
  if seq and redis.call("HEXISTS", K_EVENTS, seq) == 1 then return seq end
  return nil
end
local function append_event(etype, from, to, payload, reply_to)
  local seq = redis.call("HINCRBY", K_META, "event_seq", 1)
  local e = '{"id":"evt-' .. seq .. '","seq":' .. seq .. ',"type":' .. str(etype) .. ',"from":' .. str(from)
    .. ',"to":' .. str(to) .. ',"payload":' .. payload .. ',"timestamp":' .. str(NOW_ISO)
  if reply_to then e = e .. ',"reply_to_id":' .. str(reply_to) end
  e = e .. '}'
  redis.call("HSET", K_EVENTS, seq, e)
  redis.call("HSET", K_EVENT_IDX, seq, num(NOW) .. " " .. to)
  return e
end
-- Events of the given seqs as [{"e": event, "r": read_by}], in the given order.
local function events_json(seqs)
  if #seqs == 0 then return "[]" end
  local evs = redis.call("HMGET", K_EVENTS, unpack(seqs))
  local reads = redis.call("HMGET", K_EVENT_READS, unpack(seqs))
  local out = {}
  for i = 1, #seqs do out[i] = '{"e":' .. evs[i] .. ',"r":' .. (reads[i] or "[]") .. '}' end
  return "[" .. table.concat(out, ",") .. "]"
end
local function idx_parts(v)
  local sp = string.find(v, " ", 1, true)
  return tonumber(string.sub(v, 1, sp - 1)), string.sub(v, sp + 1)
end
-- Walks the log after the agent's cursor in batches: picks up to limit events addressed to "all" or the agent,
-- counts the addressed ones left after them, and moves the cursor. One script, so delivery is exactly once.
local function consume(agent, limit)
  local cursor = tonumber(redis.call("HGET", K_CURSORS, agent))
  local top = tonumber(redis.call("HGET", K_META, "event_seq")) or 0
  local picked, remaining = {}, 0
  local from = (cursor or 0) + 1
  while from <= top do
    local to = math.min(from + 199, top)
    local seqs = {}
    for s = from, to do seqs[#seqs + 1] = s end
    local idx = redis.call("HMGET", K_EVENT_IDX, unpack(seqs))
    for i = 1, #seqs do
      if idx[i] then
        local _, dest = idx_parts(idx[i])
        if dest == "all" or dest == agent then
          if #picked < limit then picked[#picked + 1] = seqs[i] else remaining = remaining + 1 end
        end
      end
    end
    from = to + 1
  end
  if #picked > 0 then
    cursor = picked[#picked]
    redis.call("HSET", K_CURSORS, agent, cursor)
  end
  return '{"events":' .. events_json(picked) .. ',"cursor":' .. (cursor and num(cursor) or "null")
    .. ',"remaining":' .. remaining .. '}', #picked
end
local function task_json(t, deps_json)
  return '{"id":' .. str(t.id) .. ',"title":' .. str(t.title) .. ',"description":' .. str(t.description)
    .. ',"status":' .. str(t.status) .. ',"owner":' .. opt_str(val(t.owner)) .. ',"depends_on":' .. deps_json
    .. ',"priority":' .. (val(t.priority) and num(t.priority) or "null") .. ',"version":' .. num(t.version)
    .. ',"created_at":' .. str(t.created_at) .. ',"updated_at":' .. str(t.updated_at) .. '}'
end
local function plan_locked(agent)
  local raw = redis.call("HGET", K_LOCKS, "plan")
  if not raw then return nil end
  local lock = cjson.decode(raw)
  if lock.expiresAt > NOW and lock.holder ~= agent then
    return '{"err":"planLocked","holder":' .. str(lock.holder) .. ',"expiresAt":' .. num(lock.expiresAt) .. '}'
  end
  return nil
end
`;

/**
 * Appended to PRELUDE by every script that acts for TEAM: a room owned by another team is refused first; then a
 * kept result of the call's idempotency key is returned as it was (or the key refused for other arguments).
 */
export const GUARD = `
if OWNER and not OWNED then return '{"err":"denied"}' end
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
