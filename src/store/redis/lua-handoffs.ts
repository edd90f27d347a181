/**
 * Lua of handoffs (docs/people.md, Handoffs), each prepended with PRELUDE, LOG and GUARD: the offer records each task's
 * owner; the acceptance decides and moves the tasks still owned as offered in one script, so racing acceptors get
 * one winner.
 */
import type { Handoff } from "../../protocol/people.ts";
import { PEOPLE_HELPERS } from "./lua-people-helpers.ts";
import { PLAN_HELPERS } from "./lua-plan.ts";
import { arg, returns, script } from "./script-decl.ts";

/**
 * offerHandoff: each task as reads show it (a lease that ran out is no longer its holder's; the offer changes no
 * task, so it records nothing). Replies {ok: handoff} or {err: "taskNotFound" | "taskNotYours" | "contextNotFound"}.
 */
export const OFFER_HANDOFF = script({
  args: {
    from: arg.text, // whose work is handed on
    to: arg.text, // an agent, or "any"
    taskIds: arg.json<string[]>(), // distinct task ids
    ctxIds: arg.json<string[]>(), // distinct context ids
    note: arg.text, // the offer's note
    by: arg.text, // who offers (from, or a person on its behalf)
    agentOffer: arg.flag, // from is an agent: only its own or unowned tasks
  },
  reply: returns<Handoff>(),
  body: `${PLAN_HELPERS}${PEOPLE_HELPERS}
local owners = {}
if OWNED and #task_ids > 0 then leases_due() end
for _, tid in ipairs(task_ids) do
  local raw = OWNED and task_raw(tid)
  if not raw then return '{"err":"taskNotFound","id":' .. str(tid) .. '}' end
  local owner = val(cjson.decode(raw).owner)
  local refused = P.offer_refused(tid, owner, from, agent_offer)
  if refused then return refused end
  owners[tid] = owner or cjson.null
end
for _, cid in ipairs(ctx_ids) do
  if not (OWNED and redis.call("HEXISTS", K_CTX, cid) == 1) then
    return '{"err":"contextNotFound","id":' .. str(cid) .. '}'
  end
end
if not OWNED and not CLAIM_OK then return CLAIM end
local h = { id = "hof-" .. num(W("HINCRBY", K_META, "handoff_n", 1)), from = from, to = to, taskIds = task_ids,
  contextIds = ctx_ids, note = note, status = "offered", offeredBy = by, owners = owners, created_at = NOW_ISO,
  updated_at = NOW_ISO }
local json = P.handoff(h)
W("HSET", K_HANDOFFS, h.id, json)
append_event("handoff_offered", by, to == "any" and "all" or to, '{"handoff":' .. json .. '}')
commit()
return ok(json)
`,
});

/**
 * acceptHandoff: the decision and the moves, one script. Moving tasks is a plan write: the plan lock holds it back,
 * leases that ran out are recorded first (the owners compared are those reads show), and a moved task's lease ends
 * (protocol/leases.ts: it leaves its holder). Replies {ok: handoff} or {err: "handoffNotFound" | "handoffClosed" |
 * "handoffNotForYou" | "handoffOwnOffer" | "planLocked"}.
 */
export const ACCEPT_HANDOFF = script({
  args: {
    id: arg.text, // handoff id
    agent: arg.text, // the acceptor
  },
  reply: returns<Handoff>(),
  body: `${PLAN_HELPERS}${PEOPLE_HELPERS}
local h, refused = P.open_handoff(id)
if not h then return refused end
refused = P.accept_refused(h, agent)
if refused then return refused end
if #h.taskIds > 0 then
  local locked = plan_locked(agent)
  if locked then return locked end
  leases_due()
end
local moved, conflicts, tasks = P.moves(h, function(tid)
  local raw = task_raw(tid)
  return raw and cjson.decode(raw)
end)
if #h.taskIds > 0 then
  ensure_counts()
  record_leases()
end
for _, t in ipairs(tasks) do
  drop_lease(t)
  t.owner = agent
  t.version = t.version + 1
  t.updated_at = NOW_ISO
  local json = P.task(t)
  W("HSET", K_TASKS, t.id, json)
  W("HSET", K_META, "plan_updated_at", NOW_ISO)
  append_event("task_updated", agent, "all", '{"task":' .. json .. ',"previousStatus":' .. str(t.status)
    .. ',"changes":{"owner":' .. str(agent) .. ',"note":' .. str("handoff " .. id .. " from " .. h.from) .. '}}')
end
h.status = "accepted"
h.closedBy = agent
h.moved = moved
h.conflicts = conflicts
h.updated_at = NOW_ISO
local json = P.handoff(h)
W("HSET", K_HANDOFFS, id, json)
append_event("handoff_accepted", agent, "all", '{"handoffId":' .. str(id) .. ',"from":' .. str(h.from) .. ',"by":'
  .. str(agent) .. ',"moved":' .. strs(moved) .. ',"conflicts":' .. P.conflicts(conflicts) .. '}')
commit()
return ok(json)
`,
});

/** declineHandoff. Replies {ok: handoff} or {err: "handoffNotFound" | "handoffClosed" | "handoffToAny" | "handoffNotForYou"}. */
export const DECLINE_HANDOFF = script({
  args: {
    id: arg.text, // handoff id
    agent: arg.text, // the addressee declining
    reason: arg.text, // why
  },
  reply: returns<Handoff>(),
  body: `${PEOPLE_HELPERS}
local h, refused = P.open_handoff(id)
if not h then return refused end
refused = P.decline_refused(h, agent)
if refused then return refused end
h.status = "declined"
h.closedBy = agent
h.reason = reason
h.updated_at = NOW_ISO
local json = P.handoff(h)
W("HSET", K_HANDOFFS, id, json)
append_event("handoff_declined", agent, h.from, '{"handoffId":' .. str(id) .. ',"by":' .. str(agent) .. ',"reason":'
  .. str(reason) .. '}')
commit()
return ok(json)
`,
});

/** cancelHandoff. Replies {ok: handoff} or {err: "handoffNotFound" | "handoffClosed" | "handoffNotOfferer"}. */
export const CANCEL_HANDOFF = script({
  args: {
    id: arg.text, // handoff id
    by: arg.text, // must be the offer's from or offeredBy
  },
  reply: returns<Handoff>(),
  body: `${PEOPLE_HELPERS}
local h, refused = P.open_handoff(id)
if not h then return refused end
refused = P.cancel_refused(h, by)
if refused then return refused end
h.status = "cancelled"
h.closedBy = by
h.updated_at = NOW_ISO
local json = P.handoff(h)
W("HSET", K_HANDOFFS, id, json)
append_event("handoff_cancelled", by, h.to == "any" and "all" or h.to, '{"handoffId":' .. str(id) .. ',"by":' .. str(by) .. '}')
commit()
return ok(json)
`,
});

/** listHandoffs. Replies {ok: [handoff…]} (unordered; sorted and filtered in TS). */
export const LIST_HANDOFFS = script({
  args: {},
  reply: returns<Handoff[]>(),
  body: `
if not OWNED then return ok("[]") end
return ok("[" .. table.concat(redis.call("HVALS", K_HANDOFFS), ",") .. "]")
`,
});
