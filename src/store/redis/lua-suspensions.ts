/**
 * Lua of suspended agents (protocol/suspensions.ts): suspend (its holdings released in the same script, lua-claims.ts
 * RELEASE_HOLDINGS), resume and list. The refusal of a suspended actor's calls is in GUARD (lua-prelude.ts), which
 * every script acting for a team runs first. Each body is prepended with PRELUDE, LOG and GUARD.
 */
import type { Suspension } from "../../protocol/suspensions.ts";
import { CLAIM_HELPERS, RELEASE_HOLDINGS } from "./lua-claims.ts";
import { PEOPLE_HELPERS } from "./lua-people-helpers.ts";
import { PLAN_HELPERS } from "./lua-plan.ts";
import { arg, returns, script } from "./script-decl.ts";

/**
 * suspendAgent: on an owned room (else {err: denied}; never claims), stores the suspension, releases what the agent
 * holds and appends agent_suspended (from `by`). Already suspended: the earlier suspension, nothing written.
 * Replies {ok: {s: Suspension, already, tasks, paths, locks}}.
 */
export const SUSPEND_AGENT = script({
  args: {
    agent: arg.text, // the agent to suspend
    by: arg.text, // who suspends it
    reason: arg.text, // why
  },
  reply: returns<{ s: Suspension; already: boolean; tasks: string[]; paths: string[]; locks: string[] }>(),
  body: `${PLAN_HELPERS}${CLAIM_HELPERS}${PEOPLE_HELPERS}${RELEASE_HOLDINGS}
if not OWNED then return '{"err":"denied"}' end
local earlier = redis.call("HGET", K_SUSPENDED, agent)
if earlier then return ok('{"s":' .. earlier .. ',"already":true,"tasks":[],"paths":[],"locks":[]}') end
local s = '{"agentId":' .. str(agent) .. ',"by":' .. str(by) .. ',"at":' .. str(NOW_ISO) .. ',"reason":' .. str(reason) .. '}'
W("HSET", K_SUSPENDED, agent, s)
local tasks, paths, locks = release_holdings(agent)
local released = '"tasks":' .. strs(tasks) .. ',"paths":' .. strs(paths) .. ',"locks":' .. strs(locks)
append_event("agent_suspended", by, "all", '{"agentId":' .. str(agent) .. ',"by":' .. str(by) .. ',"reason":'
  .. str(reason) .. ',' .. released .. '}')
signal("presence")
return ok('{"s":' .. s .. ',"already":false,' .. released .. '}')
`,
});

/** resumeAgent: lifts the suspension and appends agent_resumed. Replies {ok: true|false}; {err: denied} unowned. */
export const RESUME_AGENT = script({
  args: {
    agent: arg.text, // the agent to resume
    by: arg.text, // who resumes it
  },
  reply: returns<boolean>(),
  body: `
if not OWNED then return '{"err":"denied"}' end
if redis.call("HDEL", K_SUSPENDED, agent) == 0 then return ok("false") end
append_event("agent_resumed", by, "all", '{"agentId":' .. str(agent) .. ',"by":' .. str(by) .. '}')
signal("presence")
return ok("true")
`,
});

/** listSuspensions. Replies {ok: [Suspension…]} (unordered; sorted in TS); {err: denied} on an unowned room. */
export const LIST_SUSPENSIONS = script({
  args: {},
  reply: returns<Suspension[]>(),
  body: `
if not OWNED then return '{"err":"denied"}' end
return ok("[" .. table.concat(redis.call("HVALS", K_SUSPENDED), ",") .. "]")
`,
});
