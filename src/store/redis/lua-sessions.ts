/**
 * Lua of the web surfaces' records outside rooms and teams. People's web sessions (session-types.ts): each session is one hash in a slot of its own,
 * `session:{<digest>}` (keys.ts sessionKey), holding `rec` (the record's JSON, spliced into replies verbatim),
 * `exp` (its end, ms) and `set` (when `exp` last moved, ms). KEYS[1] is that key; ARGV[1] the injected clock (ms).
 * The key's own PEXPIRE follows `exp`, so ended sessions leave Redis by themselves; `exp` is what decides.
 */
/** The teams index (keys.ts TEAM_INDEX_KEY): KEYS[1] is that key, ARGV[1] the injected clock (ms). */
export const TEAM_INDEX_LUA = {
  /** Lists the team (ARGV[2]) unless it is listed. Replies {ok: true}. */
  TEAM_INDEX_ADD: `
redis.call("ZADD", KEYS[1], "NX", ARGV[1], ARGV[2])
return '{"ok":true}'
`,
  /** Replies {ok: [team id…]} (sorted in TS). */
  TEAM_INDEX_LIST: `
local teams = redis.call("ZRANGE", KEYS[1], 0, -1)
if #teams == 0 then return '{"ok":[]}' end
return '{"ok":' .. cjson.encode(teams) .. '}'
`,
};

export const SESSION_SCRIPTS_LUA = {
  /** Stores (replacing) a session. ARGV[2]: record JSON; ARGV[3]: lifetime ms. Replies {ok: end ms}. */
  SESSION_CREATE: `
local now = tonumber(ARGV[1])
local ttl = tonumber(ARGV[3])
redis.call("DEL", KEYS[1])
redis.call("HSET", KEYS[1], "rec", ARGV[2], "exp", now + ttl, "set", now)
redis.call("PEXPIRE", KEYS[1], ttl)
return '{"ok":' .. string.format("%d", now + ttl) .. '}'
`,
  /**
   * The live session, its end moved to now + ARGV[2] when it last moved ARGV[3] ms ago or more; an ended one is
   * deleted. Replies {ok: {rec: record, exp: end ms}} or {ok: null}.
   */
  SESSION_TOUCH: `
local now = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
local every = tonumber(ARGV[3])
local v = redis.call("HMGET", KEYS[1], "rec", "exp", "set")
if not v[1] then return '{"ok":null}' end
local exp = tonumber(v[2])
if exp <= now then
  redis.call("DEL", KEYS[1])
  return '{"ok":null}'
end
if now - tonumber(v[3]) >= every then
  exp = now + ttl
  redis.call("HSET", KEYS[1], "exp", exp, "set", now)
  redis.call("PEXPIRE", KEYS[1], ttl)
end
return '{"ok":{"rec":' .. v[1] .. ',"exp":' .. string.format("%d", exp) .. '}}'
`,
  /** Deletes the session. Replies {ok: true} when a live one was deleted, else {ok: false}. */
  SESSION_DELETE: `
local exp = redis.call("HGET", KEYS[1], "exp")
if not exp then return '{"ok":false}' end
redis.call("DEL", KEYS[1])
if tonumber(exp) <= tonumber(ARGV[1]) then return '{"ok":false}' end
return '{"ok":true}'
`,
};
