/**
 * Lua of the plan operations (each is prepended with PRELUDE and LOG). The plan's rules are those of
 * protocol/plan-rules.ts, in the same order and with the same answers (the conformance suite holds both drivers
 * to them): plan lock, existence, version, ownership, dependencies (known, acyclic), status.
 */

import type { Plan, RoomEvent, Task } from "../../protocol/records.ts";
import type { SeedContext, SeedTask } from "../../protocol/templates.ts";
import type { StoredBatch } from "./lua-events.ts";
import { PLAN_WRITE_CHECKS } from "./lua-task-checks.ts";
import type { SearchTerms, StoredEntry, StoredPresence } from "./records.ts";
import { arg, returns, script } from "./script-decl.ts";

/** The fields an update_task changes (those given; owner and priority null to clear them). */
export interface TaskFields {
  status?: Task["status"];
  owner?: string | null;
  title?: string;
  description?: string;
  depends_on?: string[];
  priority?: number | null;
}

/** What SUMMARY answers. */
export interface StoredSummaryReply {
  exists: boolean;
  tasks: Task[];
  unread: StoredBatch;
  newContextCount: number;
  presence: Record<string, StoredPresence>;
  messages: Omit<RoomEvent, "read_by">[];
}

/**
 * Helpers of the plan scripts: task JSON, the plan lock, the kept task counts, the plan's rules and leases
 * (protocol/leases.ts: a plan write shows and then records the leases that ran out).
 */
export const PLAN_HELPERS = `
-- lease_expires_at is the last field, only on leased tasks (R.with_lease rewrites it in place).
local function task_json(t, deps_json)
  return '{"id":' .. str(t.id) .. ',"title":' .. str(t.title) .. ',"description":' .. str(t.description)
    .. ',"status":' .. str(t.status) .. ',"owner":' .. opt_str(val(t.owner)) .. ',"depends_on":' .. deps_json
    .. ',"priority":' .. (val(t.priority) and num(t.priority) or "null") .. ',"version":' .. num(t.version)
    .. ',"created_at":' .. str(t.created_at) .. ',"updated_at":' .. str(t.updated_at)
    .. (t.lease_expires_at and (',"lease_expires_at":' .. str(t.lease_expires_at)) or "") .. '}'
end
-- Leases that ran out (ZRANGEBYSCORE order: expiry, then id): each task as reads show it (effectiveTask), kept
-- in DUE until record_leases writes them once the script's checks have passed.
local DUE = { json = {}, list = {} }
local function leases_due()
  for _, id in ipairs(redis.call("ZRANGEBYSCORE", K_LEASES, "-inf", NOW)) do
    local raw = redis.call("HGET", K_TASKS, id)
    local t = raw and cjson.decode(raw)
    local item = { id = id }
    if t and t.lease_expires_at then
      item.owner, item.status = val(t.owner), t.status
      t.status, t.owner, t.version = "pending", nil, t.version + 1
      t.updated_at, t.lease_expires_at = t.lease_expires_at, nil
      DUE.json[id] = task_json(t, strs(t.depends_on))
    end
    DUE.list[#DUE.list + 1] = item
  end
end
-- A task's JSON as reads show it.
local function task_raw(id)
  return DUE.json[id] or redis.call("HGET", K_TASKS, id)
end
local function moved(from, to)
  if from == to then return end
  if from then W("HINCRBY", K_META, "n_" .. from, -1) end
  if to then W("HINCRBY", K_META, "n_" .. to, 1) end
end
-- Writes what leases_due found, with task_lease_expired each; call after ensure_counts.
local function record_leases()
  for _, item in ipairs(DUE.list) do
    redis.call("ZREM", K_LEASES, item.id)
    if DUE.json[item.id] then
      W("HSET", K_TASKS, item.id, DUE.json[item.id])
      if item.owner then R.drop("l", item.owner, item.id) end
      moved(item.status, "pending")
      append_event("task_lease_expired", "system", "all",
        '{"taskId":' .. str(item.id) .. ',"previousOwner":' .. opt_str(item.owner) .. ',"task":' .. DUE.json[item.id] .. '}')
    end
  end
  if next(DUE.json) then W("HSET", K_META, "plan_updated_at", NOW_ISO) end
end
-- Ends a task's lease (the caller writes the task): out of the index and the holder's list.
local function drop_lease(t)
  if not t.lease_expires_at then return end
  redis.call("ZREM", K_LEASES, t.id)
  if val(t.owner) then R.drop("l", t.owner, t.id) end
  t.lease_expires_at = nil
end
-- The rules below are protocol/task-rules.ts's, plan-rules.ts's, leases.ts's and locks.ts's, which lua-plan.test.ts
-- runs beside them on the same generated cases: each answers nil, or the refusal.
-- A live plan lock of another agent (checkPlanLock).
local function plan_locked(agent)
  local raw = redis.call("HGET", K_LOCKS, "plan")
  if not raw then return nil end
  local lock = cjson.decode(raw)
  if lock.expiresAt > NOW and lock.holder ~= agent then
    return '{"err":"planLocked","holder":' .. str(lock.holder) .. ',"expiresAt":' .. num(lock.expiresAt) .. '}'
  end
  return nil
end
-- A version other than the expected one, when one is expected (checkTaskVersion).
local function version_refused(t, expected)
  if expected and expected ~= t.version then
    return '{"err":"taskVersion","id":' .. str(t.id) .. ',"version":' .. num(t.version) .. ',"status":'
      .. str(t.status) .. ',"owner":' .. opt_str(val(t.owner)) .. '}'
  end
  return nil
end
-- Another agent's task, changed without an expected version (checkOwnership).
local function owner_refused(t, agent, expected)
  if val(t.owner) and t.owner ~= agent and not expected then
    return '{"err":"ownedByOther","id":' .. str(t.id) .. ',"owner":' .. str(t.owner) .. '}'
  end
  return nil
end
-- Whether an update keeps the task's lease: same owner, still in_progress or blocked (keepsLease).
local function keeps_lease(before_owner, owner, status)
  return owner == before_owner and (status == "in_progress" or status == "blocked")
end
-- Task counts by status live in meta (n_<status>), so the summary costs O(1); rooms written before they did get
-- them counted once, on their first plan write (flag counted).
local function ensure_counts()
  if META[4] == "1" then return end
  local n = { pending = 0, in_progress = 0, done = 0, blocked = 0 }
  for _, raw in ipairs(redis.call("HVALS", K_TASKS)) do
    local s = cjson.decode(raw).status
    n[s] = (n[s] or 0) + 1
  end
  W("HSET", K_META, "n_pending", n.pending, "n_in_progress", n.in_progress, "n_done", n.done,
    "n_blocked", n.blocked, "counted", "1")
  META[4] = "1"
end
local function deps_of(id)
  local raw = redis.call("HGET", K_TASKS, id)
  return raw and cjson.decode(raw).depends_on or nil
end
local function unknown_dep(deps, except)
  for _, dep in ipairs(deps) do
    if dep ~= except and redis.call("HEXISTS", K_TASKS, dep) == 0 then
      return '{"err":"unknownDependency","id":' .. str(dep) .. '}'
    end
  end
  return nil
end
-- Depth first from each new dependency, in order, children in their order: reaching id again closes a cycle,
-- reported as the path from id back to itself (iterative, like plan-rules.ts, so no chain is too long).
local function cycle_through(id, deps)
  local seen = {}
  for _, start in ipairs(deps) do
    local stack = { { id = start, i = 0 } }
    while #stack > 0 do
      local top = stack[#stack]
      if top.children == nil then
        if top.id == id then
          local path = { id }
          for k = 1, #stack do path[#path + 1] = stack[k].id end
          return '{"err":"cycle","path":' .. strs(path) .. '}'
        end
        if seen[top.id] then
          stack[#stack] = nil
        else
          seen[top.id] = true
          top.children = deps_of(top.id) or {}
        end
      else
        top.i = top.i + 1
        if top.i > #top.children then stack[#stack] = nil else stack[#stack + 1] = { id = top.children[top.i], i = 0 } end
      end
    end
  end
  return nil
end
-- Moving to in_progress or done needs every dependency done; the blockers as "id (status)", in order.
local function blocked(id, status, deps)
  if status ~= "in_progress" and status ~= "done" then return nil end
  local blockers = {}
  for _, dep in ipairs(deps) do
    local raw = task_raw(dep)
    local s = raw and cjson.decode(raw).status or "missing"
    if s ~= "done" then blockers[#blockers + 1] = dep .. " (" .. s .. ")" end
  end
  if #blockers == 0 then return nil end
  return '{"err":"blocked","id":' .. str(id) .. ',"blockers":' .. strs(blockers) .. '}'
end
-- claim_task on t (version checked): nil and whether it renews the caller's own work in progress, or the refusal
-- (taskClaim, then checkStatus).
local function claim_refused(t, agent)
  if t.status == "done" then return '{"err":"notClaimable","id":' .. str(t.id) .. ',"status":"done"}' end
  local owner = val(t.owner)
  if owner and owner ~= agent then
    return '{"err":"leaseOwned","id":' .. str(t.id) .. ',"owner":' .. str(owner) .. ',"until":'
      .. opt_str(t.lease_expires_at) .. '}'
  end
  local renewing = owner == agent and t.status == "in_progress"
  if not renewing then
    if t.status ~= "pending" then
      return '{"err":"notClaimable","id":' .. str(t.id) .. ',"status":' .. str(t.status) .. '}'
    end
    local refused = blocked(t.id, "in_progress", t.depends_on)
    if refused then return refused end
  end
  return nil, renewing
end
-- renew_lease naming t: refused unless the agent holds its lease (checkLeaseHolder).
local function lease_refused(t, agent)
  if val(t.owner) ~= agent or not t.lease_expires_at then
    return '{"err":"notLeased","id":' .. str(t.id) .. ',"owner":' .. opt_str(val(t.owner)) .. '}'
  end
  return nil
end
`;

/**
 * readPlan. Replies {ok: {created_at, updated_at, tasks: [Task JSON…]}} (tasks unordered; sorted in TS), in pieces
 * (run.ts joinPieces): the tasks as HVALS gave them, never concatenated in Lua — building a plan-sized string there
 * cost more than everything else in the script (Lua's string building grows worse than linearly with size; ~75 µs
 * of a 100-task plan's ~130).
 */
export const READ_PLAN = script({
  args: {},
  reply: returns<Omit<Plan, "project">>(),
  body: `
if not OWNED then return ok('{"created_at":null,"updated_at":null,"tasks":[]}') end
local meta = redis.call("HMGET", K_META, "plan_created_at", "plan_updated_at")
local tasks = redis.call("HVALS", K_TASKS)
ok("null") -- presence and the room's expiry, as every reply on an owned room; the text itself is not sent
return { '{"ok":{"created_at":' .. opt_str(meta[1] or nil) .. ',"updated_at":' .. opt_str(meta[2] or nil)
  .. ',"tasks":[', tasks, ']}}' }
`,
});

/** addTask. Replies {ok: Task} or {err: "planLocked" | "unknownDependency"}. */
export const ADD_TASK = script({
  args: {
    agent: arg.textOrEmpty, // acting agent ("" when absent): plan-lock identity
    title: arg.text, // title
    description: arg.text, // description
    depsJson: arg.jsonText<string[]>(), // depends_on, distinct
    priority: arg.maybeNumber, // priority, none for null
    from: arg.text, // the event's from (agent or "system")
    terms: arg.json<SearchTerms>(), // search terms {title: {token: count}, description: {…}}
  },
  reply: returns<Task>(),
  body: `${PLAN_HELPERS}
local locked = OWNED and plan_locked(agent)
if locked then return locked end
local unknown = unknown_dep(cjson.decode(deps_json))
if unknown then return unknown end
if not OWNED and not CLAIM_OK then return CLAIM end
ensure_counts()
if OWNED then
  leases_due()
  record_leases()
end
local id = "task-" .. num(W("HINCRBY", K_META, "task_n", 1))
local task = task_json({ id = id, title = title, description = description, status = "pending",
  priority = priority, version = 1, created_at = NOW_ISO, updated_at = NOW_ISO }, deps_json)
W("HSET", K_TASKS, id, task)
IX.put(id, terms)
moved(nil, "pending")
W("HSETNX", K_META, "plan_created_at", NOW_ISO)
W("HSET", K_META, "plan_updated_at", NOW_ISO)
append_event("task_added", from, "all", '{"task":' .. task .. '}')
commit()
return ok(task)
`,
});

/**
 * updateTask. Replies {ok: Task} or {err: "planLocked" | "taskNotFound" | "taskVersion" | "ownedByOther" |
 * "unknownDependency" | "cycle" | "blocked"}.
 */
export const UPDATE_TASK = script({
  args: {
    agent: arg.textOrEmpty, // acting agent ("" when absent): plan-lock and ownership identity
    id: arg.text, // task id
    expected: arg.maybeNumber, // expected version, none for any
    fields: arg.json<TaskFields>(), // the fields to change
    changes: arg.jsonText<TaskFields & { note?: string }>(), // the supplied fields and note, for the event
    from: arg.text, // the event's from (agent or "system")
    terms: arg.maybeJson<SearchTerms>(), // search terms of the changed title or description (none: neither)
  },
  reply: returns<Task>(),
  body: `${PLAN_HELPERS}
${PLAN_WRITE_CHECKS}
local f = fields
local deps = t.depends_on
if f.depends_on ~= nil then
  deps = f.depends_on
  local refused = unknown_dep(deps, id) or cycle_through(id, deps)
  if refused then return refused end
end
local previous = t.status
local status = f.status ~= nil and f.status or previous
if f.status ~= nil or f.depends_on ~= nil then
  local refused = blocked(id, status, deps)
  if refused then return refused end
end
ensure_counts()
record_leases()
-- The lease ends when the task leaves its holder or becomes done or pending (protocol/leases.ts keepsLease).
local owner = val(t.owner)
if f.owner ~= nil then owner = val(f.owner) end
if not keeps_lease(val(t.owner), owner, status) then drop_lease(t) end
-- The holder's own update renews its lease in the same step (the result shows the new expiry).
if t.lease_expires_at and agent == owner then
  for _, item in ipairs(R.items("l", agent)) do
    local leased, ms = string.match(item, "^(%S+) (%d+)$")
    if leased == id then
      t.lease_expires_at = R.iso(NOW + tonumber(ms))
      W("ZADD", K_LEASES, NOW + tonumber(ms), id)
    end
  end
end
t.status = status
t.depends_on = deps
if f.owner ~= nil then t.owner = f.owner end
if f.title ~= nil then t.title = f.title end
if f.description ~= nil then t.description = f.description end
if f.priority ~= nil then t.priority = f.priority end
t.version = t.version + 1
t.updated_at = NOW_ISO
local task = task_json(t, strs(t.depends_on))
W("HSET", K_TASKS, id, task)
if terms then IX.put(id, terms) end
moved(previous, status)
W("HSET", K_META, "plan_updated_at", NOW_ISO)
append_event("task_updated", from, "all",
  '{"task":' .. task .. ',"previousStatus":' .. str(previous) .. ',"changes":' .. changes .. '}')
commit()
return ok(task)
`,
});

/** getTask. Replies {ok: Task} or {err: "taskNotFound"}. */
export const GET_TASK = script({
  args: {
    id: arg.text, // task id
  },
  reply: returns<Task>(),
  body: `
local raw = OWNED and redis.call("HGET", K_TASKS, id)
if not raw then return '{"err":"taskNotFound","id":' .. str(id) .. '}' end
return ok(raw)
`,
});

/**
 * summary: on a room the team owns, records the agent's presence (status text kept), consumes like
 * consumeEvents, counts context changes since the previous summary, the agent's tasks and everyone's presence.
 * On an unowned room it writes nothing (it never claims one: docs/protocol.md, Guarantees, Ownership). Replies {ok: {exists, tasks,
 * unread: {events, cursor, remaining}, newContextCount, presence: {agent: {lastSeen, statusText?}}}}.
 */
export const SUMMARY = script({
  args: {
    agent: arg.text, // agent asking for its summary
    limit: arg.number, // max events to consume
    msgMax: arg.number, // most people's messages to deliver (they lead the summary)
  },
  reply: returns<StoredSummaryReply>(),
  body: `
if not OWNED then
  return ok('{"exists":false,"tasks":[],"unread":{"events":[],"cursor":null,"remaining":0},"newContextCount":0,"presence":{},"messages":[]}')
end
seen(agent)
local messages = MAIL.events(MAIL.take("human_message", agent, msg_max))
local unread = consume(agent, limit)
local mark = redis.call("HGET", K_CTX_MARKS, agent) or "0"
local fresh = redis.call("ZCOUNT", K_CTX_CHANGES, "(" .. mark, "+inf")
W("HSET", K_CTX_MARKS, agent, redis.call("HGET", K_META, "ctx_seq") or "0")
local mine = {}
-- A task that does not even mention the agent (as an id it is encoded the same everywhere) is not its own: only
-- the few that do are decoded, instead of every task of the plan.
local named = str(agent)
for _, raw in ipairs(redis.call("HVALS", K_TASKS)) do
  if string.find(raw, named, 1, true) and cjson.decode(raw).owner == agent then mine[#mine + 1] = raw end
end
local presence = redis.call("HGETALL", K_PRESENCE)
local people = {}
for i = 1, #presence, 2 do people[#people + 1] = str(presence[i]) .. ":" .. presence[i + 1] end
return ok_pieces({ '{"exists":true,"tasks":[', mine, '],"unread":' .. unread[1], unread[2], unread[3]
  .. ',"newContextCount":' .. fresh .. ',"presence":{', people, '},"messages":' .. messages .. '}' })
`,
});

/**
 * deleteTask. Replies {ok: Task (as it was)} or {err: "planLocked" | "taskNotFound" | "taskVersion" |
 * "ownedByOther" | "hasDependents"}. Finding dependents decodes every task: O(tasks), like SQLite's scan.
 */
export const DELETE_TASK = script({
  args: {
    agent: arg.textOrEmpty, // acting agent ("" when absent): plan-lock and ownership identity
    id: arg.text, // task id
    expected: arg.maybeNumber, // expected version, none for any
    force: arg.flag, // delete even while other tasks depend on it
    from: arg.text, // the event's from (agent or "system")
  },
  reply: returns<Task>(),
  body: `${PLAN_HELPERS}
${PLAN_WRITE_CHECKS}
local waiting = {}
local all = redis.call("HGETALL", K_TASKS)
for i = 1, #all, 2 do
  if all[i] ~= id then
    for _, dep in ipairs(cjson.decode(all[i + 1]).depends_on) do
      if dep == id then waiting[#waiting + 1] = all[i] break end
    end
  end
end
table.sort(waiting, function(a, b) return tonumber(string.match(a, "(%d+)$")) < tonumber(string.match(b, "(%d+)$")) end)
if #waiting > 0 and not force then
  return '{"err":"hasDependents","id":' .. str(id) .. ',"dependents":' .. strs(waiting) .. '}'
end
ensure_counts()
record_leases()
drop_lease(t)
redis.call("HDEL", K_TASKS, id)
IX.drop(id)
moved(t.status, nil)
W("HSET", K_META, "plan_updated_at", NOW_ISO)
append_event("task_deleted", from, "all",
  '{"taskId":' .. str(id) .. ',"task":' .. raw .. ',"dependents":' .. strs(waiting) .. '}')
commit()
return ok(raw)
`,
});

/**
 * addDependency: appends one dependency in the same script as the checks. Replies {ok: Task} or {err:
 * "planLocked" | "taskNotFound" | "taskVersion" | "ownedByOther" | "unknownDependency" | "cycle" | "blocked"}.
 */
export const ADD_DEPENDENCY = script({
  args: {
    agent: arg.textOrEmpty, // acting agent ("" when absent): plan-lock and ownership identity
    id: arg.text, // task id
    expected: arg.maybeNumber, // expected version, none for any
    dep: arg.text, // the task that must be done first
    from: arg.text, // the event's from (agent or "system")
  },
  reply: returns<Task>(),
  body: `${PLAN_HELPERS}
${PLAN_WRITE_CHECKS}
for _, d in ipairs(t.depends_on) do
  if d == dep then return ok(raw) end
end
-- Only the new dependency is checked: earlier ones were when they were set (one may have gone since).
local refused = unknown_dep({ dep }, id) or cycle_through(id, { dep }) or blocked(id, t.status, { dep })
if refused then return refused end
ensure_counts()
record_leases()
local deps = t.depends_on
deps[#deps + 1] = dep
local previous = t.status
t.version = t.version + 1
t.updated_at = NOW_ISO
local task = task_json(t, strs(deps))
W("HSET", K_TASKS, id, task)
W("HSET", K_META, "plan_updated_at", NOW_ISO)
append_event("task_updated", from, "all",
  '{"task":' .. task .. ',"previousStatus":' .. str(previous) .. ',"changes":{"depends_on":' .. strs(deps) .. '}}')
commit()
return ok(task)
`,
});

/**
 * seedRoom: fills a new or empty room from a template's seed in one script. Replies {ok: {tasks: [Task…],
 * contexts: [{m, p}…]}} or {err: "roomNotEmpty" | "planLocked"}.
 */
export const SEED_ROOM = script({
  args: {
    agent: arg.text, // acting agent: author of everything, the events' from
    template: arg.text, // template name
    tasks: arg.json<SeedTask[]>(), // depends_on: indexes of earlier tasks, from 0
    taskTerms: arg.json<SearchTerms[]>(), // per task: search terms {field: {token: count}}
    contexts: arg.json<Omit<SeedContext, "payload">[]>(), // the entries without their payloads
    contextTerms: arg.json<SearchTerms[]>(), // per context entry: search terms
    payloads: arg.list(), // each context entry's payload JSON, verbatim, in order
  },
  reply: returns<{ tasks: Task[]; contexts: StoredEntry[] }>(),
  body: `${PLAN_HELPERS}
local counters = redis.call("HMGET", K_META, "task_n", "ctx_n", "event_seq")
for i = 1, 3 do
  if (tonumber(counters[i]) or 0) > 0 then return '{"err":"roomNotEmpty"}' end
end
local locked = OWNED and plan_locked(agent)
if locked then return locked end
if not OWNED and not CLAIM_OK then return CLAIM end
ensure_counts()
local ids, made = {}, {}
for i, t in ipairs(tasks) do
  local id = "task-" .. num(W("HINCRBY", K_META, "task_n", 1))
  local deps = {}
  for j, index in ipairs(t.depends_on) do deps[j] = ids[index + 1] end
  local task = task_json({ id = id, title = t.title, description = t.description, status = "pending",
    priority = val(t.priority), version = 1, created_at = NOW_ISO, updated_at = NOW_ISO }, strs(deps))
  W("HSET", K_TASKS, id, task)
  IX.put(id, task_terms[i])
  moved(nil, "pending")
  append_event("task_added", agent, "all", '{"task":' .. task .. '}')
  ids[i] = id
  made[i] = task
end
if #tasks > 0 then
  W("HSETNX", K_META, "plan_created_at", NOW_ISO)
  W("HSET", K_META, "plan_updated_at", NOW_ISO)
end
local ctx_ids, entries = {}, {}
-- Entries written here are not in the context index (lua-context.ts CTX_BY): the next filtered list builds it.
if #contexts > 0 then redis.call("HDEL", K_META, "ctx_by_v") end
for i, c in ipairs(contexts) do
  local id = "ctx-" .. num(W("HINCRBY", K_META, "ctx_n", 1))
  local agents = strs(c.consuming_agents)
  local entry = '{"id":' .. str(id) .. ',"type":' .. str(c.type) .. ',"author":' .. str(agent) .. ',"timestamp":'
    .. str(NOW_ISO) .. ',"summary":' .. str(c.summary) .. ',"consuming_agents":' .. agents .. ',"version":"1.0"}'
  local payload = ARGV[payloads_at + i - 1]
  W("HSET", K_CTX, id, entry)
  W("HSET", K_CTX_PAYLOAD, id, payload)
  W("ZADD", K_CTX_CHANGES, W("HINCRBY", K_META, "ctx_seq", 1), id)
  IX.put(id, context_terms[i])
  if #c.consuming_agents > 0 then
    append_event("context_available", agent, #c.consuming_agents == 1 and c.consuming_agents[1] or "all",
      '{"contextId":' .. str(id) .. ',"contextType":' .. str(c.type) .. ',"summary":' .. str(c.summary)
      .. ',"consuming_agents":' .. agents .. '}')
  end
  ctx_ids[i] = id
  entries[i] = '{"m":' .. entry .. ',"p":' .. payload .. '}'
end
append_event("template_applied", agent, "all",
  '{"template":' .. str(template) .. ',"tasks":' .. strs(ids) .. ',"contexts":' .. strs(ctx_ids) .. '}')
commit()
return ok('{"tasks":[' .. table.concat(made, ",") .. '],"contexts":[' .. table.concat(entries, ",") .. ']}')
`,
});
