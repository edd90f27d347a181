/**
 * Lua bodies of claim_task and renew_lease (prepended with PRELUDE, LOG and GUARD). The rules and their order are
 * those of protocol/leases.ts and task-rules.ts and of the SQL bodies (sql/leases.ts); the conformance suite holds
 * both to them.
 */
import type { Task } from "../../protocol/records.ts";
import { PLAN_HELPERS } from "./lua-plan.ts";
import { TASK_CHECKS } from "./lua-task-checks.ts";
import { arg, returns, script } from "./script-decl.ts";

/**
 * claimTask. Replies {ok: Task} or {err: "planLocked" | "taskNotFound" | "taskVersion" | "notClaimable" |
 * "leaseOwned" | "blocked"}.
 */
export const CLAIM_TASK = script({
  args: {
    agent: arg.text, // the claiming agent
    id: arg.text, // task id
    lease: arg.number, // lease length in ms
    expected: arg.maybeNumber, // expected version, none for any
  },
  reply: returns<Task>(),
  body: `${PLAN_HELPERS}${TASK_CHECKS}
-- Already the caller's work in progress (renewing): (re)leased, no version change, no event.
local refused, renewing = claim_refused(t, agent)
if refused then return refused end
ensure_counts()
record_leases()
local expires = NOW + lease
local previous = t.status
t.status, t.owner, t.lease_expires_at = "in_progress", agent, R.iso(expires)
if not renewing then
  t.version = t.version + 1
  t.updated_at = NOW_ISO
end
local task = task_json(t, strs(t.depends_on))
W("HSET", K_TASKS, id, task)
W("ZADD", K_LEASES, expires, id)
R.add("l", agent, id .. " " .. num(lease))
if not renewing then
  moved(previous, "in_progress")
  W("HSET", K_META, "plan_updated_at", NOW_ISO)
  append_event("task_claimed", agent, "all", '{"task":' .. task .. '}')
end
commit()
return ok(task)
`,
});

/**
 * renewLeases: renews every live lease and claim of the agent and returns its leased tasks (unordered; sorted in
 * TS), only taskId's when given. Replies {ok: [Task…]} or {err: "taskNotFound" | "notLeased"}.
 */
export const RENEW_LEASE = script({
  args: {
    agent: arg.text, // the lease holder
    only: arg.textOrEmpty, // a task id, "" for all of the agent's leased tasks
  },
  reply: returns<Task[]>(),
  body: `${PLAN_HELPERS}
if not OWNED then
  if only ~= "" then return '{"err":"taskNotFound","id":' .. str(only) .. '}' end
  return ok("[]")
end
leases_due()
if only ~= "" then
  local raw = task_raw(only)
  if not raw then return '{"err":"taskNotFound","id":' .. str(only) .. '}' end
  local refused = lease_refused(cjson.decode(raw), agent)
  if refused then return refused end
end
ensure_counts()
record_leases()
R.renew(agent)
local out = {}
for _, item in ipairs(R.items("l", agent)) do
  local id = R.key("l", item)
  if only == "" or id == only then out[#out + 1] = redis.call("HGET", K_TASKS, id) end
end
return ok("[" .. table.concat(out, ",") .. "]")
`,
});
