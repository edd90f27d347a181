/** Lua of presence, locks and shared variables (each is prepended with PRELUDE). */
import type { LockInfo } from "../../protocol/records.ts";
import type { Suspension } from "../../protocol/suspensions.ts";
import type { StoredPresence } from "./records.ts";
import { arg, returns, script } from "./script-decl.ts";

/** A lock as ACQUIRE_LOCK answers it (expiry in ms). */
export interface StoredLock {
  acquired: boolean;
  holder: string;
  expiresAt: number;
  fence: number;
}

/**
 * What a lock operation does with the resource's lock (nil: none), protocol/locks.ts lockAcquisition and
 * lockRefusedRelease, which lua-rooms.test.ts runs beside them on generated cases. lock_step: "held" by another live
 * holder, "renew" the caller's own live lock (its fence kept), or "take" it (free, expired or released: a change of
 * hands, the fence grows). unlock_step: "free" (no live lock), "held" by another, or "release".
 */
export const LOCK_RULES = `
local function lock_step(lock, agent)
  if lock and lock.expiresAt > NOW then return lock.holder ~= agent and "held" or "renew" end
  return "take"
end
local function unlock_step(lock, agent)
  if not (lock and lock.expiresAt > NOW) then return "free" end
  return lock.holder ~= agent and "held" or "release"
end
`;

/** heartbeat. Replies {ok: {exists, p: {lastSeen, statusText?}}}; writes nothing on a room not owned yet. */
export const HEARTBEAT = script({
  args: {
    agent: arg.text, // agent
    status: arg.maybeText, // new status text; none keeps the current one
  },
  reply: returns<{ exists: boolean; p: StoredPresence }>(),
  body: `
if status == nil then
  local old = OWNED and redis.call("HGET", K_PRESENCE, agent)
  status = old and val(cjson.decode(old).statusText)
end
local p = '{"lastSeen":' .. num(NOW) .. (status and (',"statusText":' .. str(status)) or "") .. '}'
-- A heartbeat never creates a room (docs/protocol.md, Ownership): on an unowned one it records nothing.
if not OWNED then return ok('{"exists":false,"p":' .. p .. '}') end
W("HSET", K_PRESENCE, agent, p)
signal("presence")
return ok('{"exists":true,"p":' .. p .. '}')
`,
});

/**
 * getPresence, with the room's suspensions read in the same script (protocol/suspensions.ts). Replies
 * {ok: {p: {agent: {lastSeen, statusText?}…}, s: [Suspension…]}}.
 */
export const GET_PRESENCE = script({
  args: {},
  reply: returns<{ p: Record<string, StoredPresence>; s: Suspension[] }>(),
  body: `
if not OWNED then return ok('{"p":{},"s":[]}') end
local all = redis.call("HGETALL", K_PRESENCE)
local out = {}
for i = 1, #all, 2 do out[#out + 1] = str(all[i]) .. ":" .. all[i + 1] end
local suspended = redis.call("HVALS", K_SUSPENDED)
return ok('{"p":{' .. table.concat(out, ",") .. '},"s":[' .. table.concat(suspended, ",") .. ']}')
`,
});

/** acquireLock. Replies {ok: {acquired, holder, expiresAt (ms), fence}}. */
export const ACQUIRE_LOCK = script({
  args: {
    resource: arg.text, // resource name
    agent: arg.text, // would-be holder
    ttl: arg.number, // lock lifetime in ms
  },
  reply: returns<StoredLock>(),
  body: `${LOCK_RULES}
if not OWNED and not CLAIM_OK then return CLAIM end
local raw = redis.call("HGET", K_LOCKS, resource)
local lock = raw and cjson.decode(raw)
local step = lock_step(lock, agent)
local fence
if step ~= "take" then
  fence = tonumber(redis.call("HGET", K_FENCES, resource)) or 0
  if step == "held" then
    return ok('{"acquired":false,"holder":' .. str(lock.holder) .. ',"expiresAt":' .. num(lock.expiresAt)
      .. ',"fence":' .. num(fence) .. '}')
  end
else
  -- Free or expired: the resource changes hands (even back to the same agent), so the fence grows.
  fence = W("HINCRBY", K_FENCES, resource, 1)
end
local expires = NOW + ttl
signal("locks")
W("HSET", K_LOCKS, resource, '{"holder":' .. str(agent) .. ',"expiresAt":' .. num(expires) .. '}')
commit()
return ok('{"acquired":true,"holder":' .. str(agent) .. ',"expiresAt":' .. num(expires) .. ',"fence":'
  .. num(fence) .. '}')
`,
});

/** releaseLock: compare-and-delete. Replies {ok: {released, holder?, expiresAt? (ms)}} (holder when another holds it). */
export const RELEASE_LOCK = script({
  args: {
    resource: arg.text, // resource name
    agent: arg.text, // the caller; only a live holder releases
  },
  reply: returns<{ released: boolean; holder?: string; expiresAt?: number }>(),
  body: `${LOCK_RULES}
local raw = OWNED and redis.call("HGET", K_LOCKS, resource)
local lock = raw and cjson.decode(raw)
local step = unlock_step(lock, agent)
if step == "free" then return ok('{"released":false}') end
if step == "held" then
  return ok('{"released":false,"holder":' .. str(lock.holder) .. ',"expiresAt":' .. num(lock.expiresAt) .. '}')
end
redis.call("HDEL", K_LOCKS, resource)
signal("locks")
commit()
return ok('{"released":true}')
`,
});

/** listLocks: live locks only. Replies {ok: [{resource, owner, expiresAt (ms), fence}…]} (unordered). */
export const LIST_LOCKS = script({
  args: {},
  reply: returns<Array<Omit<LockInfo, "expiresAt"> & { expiresAt: number }>>(),
  body: `
if not OWNED then return ok("[]") end
local all = redis.call("HGETALL", K_LOCKS)
local out = {}
for i = 1, #all, 2 do
  local lock = cjson.decode(all[i + 1])
  if lock.expiresAt > NOW then
    out[#out + 1] = '{"resource":' .. str(all[i]) .. ',"owner":' .. str(lock.holder) .. ',"expiresAt":'
      .. num(lock.expiresAt) .. ',"fence":' .. (redis.call("HGET", K_FENCES, all[i]) or "0") .. '}'
  end
end
return ok("[" .. table.concat(out, ",") .. "]")
`,
});

/**
 * setVar: stores the value and appends shared_var_set {key}. Replies {ok: true}, or {err: "varLimit", max} for a new
 * variable in a room holding `max` of them.
 */
export const SET_VAR = script({
  args: {
    key: arg.text, // variable name
    value: arg.text, // value, stored byte for byte
    agent: arg.text, // setter, the event's from
    max: arg.number, // most variables a room holds: a new one past it is refused
  },
  reply: returns<true>(),
  body: `
if not OWNED and not CLAIM_OK then return CLAIM end
if redis.call("HEXISTS", K_VARS, key) == 0 and redis.call("HLEN", K_VARS) >= max then
  return '{"err":"varLimit","max":' .. num(max) .. '}'
end
W("HSET", K_VARS, key, value)
signal("vars")
append_event("shared_var_set", agent, "all", '{"key":' .. str(key) .. '}')
commit()
return ok("true")
`,
});

/** getVar. Replies {ok: value-or-null}. */
export const GET_VAR = script({
  args: {
    key: arg.text, // variable name
  },
  reply: returns<string | null>(),
  body: `
if not OWNED then return ok("null") end
local value = redis.call("HGET", K_VARS, key)
return ok(value and str(value) or "null")
`,
});

/** listVars. Replies {ok: {key: value…}}. */
export const LIST_VARS = script({
  args: {},
  reply: returns<Record<string, string>>(),
  body: `
if not OWNED then return ok("{}") end
local all = redis.call("HGETALL", K_VARS)
local out = {}
for i = 1, #all, 2 do out[#out + 1] = str(all[i]) .. ":" .. str(all[i + 1]) end
return ok("{" .. table.concat(out, ",") .. "}")
`,
});
