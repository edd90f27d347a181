/**
 * Lua of the web surfaces' records outside rooms and teams. People's web sessions (session-types.ts): each session
 * is one hash in a slot of its own, `session:{<digest>}` (keys.ts sessionKey), holding `rec` (the record's JSON,
 * spliced into replies verbatim), `exp` (its end, ms) and `set` (when `exp` last moved, ms). KEYS[1] is that key;
 * ARGV[1] the injected clock (ms), which scripts.ts binds as NOW before each script's own arguments.
 * The key's own PEXPIRE follows `exp`, so ended sessions leave Redis by themselves; `exp` is what decides.
 */
import type { SessionRecord } from "../session-types.ts";
import { arg, returns, script } from "./script-decl.ts";

/** The teams index (keys.ts TEAM_INDEX_KEY): KEYS[1] is that key, ARGV[1] the injected clock (ms). */
export const TEAM_INDEX_LUA = {
  /** Lists the team unless it is listed. Replies {ok: true}. */
  TEAM_INDEX_ADD: script({
    args: { teamId: arg.text },
    reply: returns<true>(),
    body: `
redis.call("ZADD", KEYS[1], "NX", NOW, team_id)
return '{"ok":true}'
`,
  }),
  /** Replies {ok: [team id…]} (sorted in TS). */
  TEAM_INDEX_LIST: script({
    args: {},
    reply: returns<string[]>(),
    body: `
local teams = redis.call("ZRANGE", KEYS[1], 0, -1)
if #teams == 0 then return '{"ok":[]}' end
return '{"ok":' .. cjson.encode(teams) .. '}'
`,
  }),
};

export const SESSION_SCRIPTS_LUA = {
  /** Stores (replacing) a session. Replies {ok: end ms}. */
  SESSION_CREATE: script({
    args: {
      record: arg.text, // the record's JSON, kept verbatim
      ttl: arg.number, // lifetime in ms
    },
    reply: returns<number>(),
    body: `
redis.call("DEL", KEYS[1])
redis.call("HSET", KEYS[1], "rec", record, "exp", NOW + ttl, "set", NOW)
redis.call("PEXPIRE", KEYS[1], ttl)
return '{"ok":' .. string.format("%d", NOW + ttl) .. '}'
`,
  }),
  /**
   * The live session, its end moved to now + ttl when it last moved `every` ms ago or more; an ended one is
   * deleted. Replies {ok: {rec: record, exp: end ms}} or {ok: null}.
   */
  SESSION_TOUCH: script({
    args: {
      ttl: arg.number, // lifetime in ms from NOW
      every: arg.number, // ms between moves of the end
    },
    reply: returns<{ rec: SessionRecord; exp: number } | null>(),
    body: `
local v = redis.call("HMGET", KEYS[1], "rec", "exp", "set")
if not v[1] then return '{"ok":null}' end
local exp = tonumber(v[2])
if exp <= NOW then
  redis.call("DEL", KEYS[1])
  return '{"ok":null}'
end
if NOW - tonumber(v[3]) >= every then
  exp = NOW + ttl
  redis.call("HSET", KEYS[1], "exp", exp, "set", NOW)
  redis.call("PEXPIRE", KEYS[1], ttl)
end
return '{"ok":{"rec":' .. v[1] .. ',"exp":' .. string.format("%d", exp) .. '}}'
`,
  }),
  /** Deletes the session. Replies {ok: true} when a live one was deleted, else {ok: false}. */
  SESSION_DELETE: script({
    args: {},
    reply: returns<boolean>(),
    body: `
local exp = redis.call("HGET", KEYS[1], "exp")
if not exp then return '{"ok":false}' end
redis.call("DEL", KEYS[1])
if tonumber(exp) <= NOW then return '{"ok":false}' end
return '{"ok":true}'
`,
  }),
};
