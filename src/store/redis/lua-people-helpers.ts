/**
 * Lua helpers of people's scripts (lua-driver.ts, lua-approvals.ts, lua-handoffs.ts), prepended to the bodies that
 * use them: the driver as meta keeps it and record builders (by concatenation, like every script, so user JSON is
 * spliced in verbatim); times are formatted by the prelude's R.iso (lua-holdings.ts), and the handoff scripts take
 * the plan's helpers from lua-plan.ts. Grouped in one table so they cost one Lua local.
 */

export const PEOPLE_HELPERS = `
local P = {}
-- The driver as meta keeps it: holder and kind absent when nobody drives; epoch only grows.
function P.driver()
  local d = redis.call("HMGET", K_META, "drv_holder", "drv_kind", "drv_epoch", "drv_since")
  return { holder = d[1] or nil, kind = d[2] or nil, epoch = tonumber(d[3]) or 0, since = d[4] or nil }
end
function P.driver_json(d)
  return '{"holder":' .. opt_str(d.holder) .. ',"holderKind":' .. opt_str(d.holder and d.kind or nil)
    .. ',"epoch":' .. num(d.epoch) .. ',"since":' .. opt_str(d.since) .. '}'
end
-- A change of holder: epoch + 1, driver_changed to all, a driver signal.
function P.change(d, holder, kind, reason, actor)
  local epoch = d.epoch + 1
  if holder then
    W("HSET", K_META, "drv_holder", holder, "drv_kind", kind, "drv_epoch", epoch, "drv_since", NOW_ISO)
  else
    redis.call("HDEL", K_META, "drv_holder", "drv_kind")
    W("HSET", K_META, "drv_epoch", epoch, "drv_since", NOW_ISO)
  end
  append_event("driver_changed", actor, "all", '{"holder":' .. opt_str(holder) .. ',"previous":'
    .. opt_str(d.holder) .. ',"epoch":' .. num(epoch) .. ',"reason":' .. str(reason) .. '}')
  signal("driver")
  return { holder = holder, kind = kind, epoch = epoch, since = NOW_ISO }
end
-- A driver refusal carries the state it was refused against.
function P.refuse(code, d, extra)
  return '{"err":' .. str(code) .. ',"driver":' .. P.driver_json(d) .. (extra or "") .. '}'
end
-- The rules below are protocol/people-rules.ts's, which lua-people.test.ts runs beside them on the same generated
-- cases: each answers the refusal, or nil (and what was decided).
-- Why a taker of \`kind\` ("human" or "agent"; not d's holder) takes the wheel, or the refusal (driverTakeReason).
function P.take_reason(d, kind, force)
  if not d.holder then return kind == "agent" and "claimed" or "taken" end
  if kind == "agent" then return nil, P.refuse("driverTaken", d) end
  if d.kind == "agent" then return "taken_from_agent" end
  if force then return "forced" end
  return nil, P.refuse("driverHeld", d)
end
-- Only the holder acts on the wheel, at the epoch it saw (checkDriverAction); \`action\` names what it tried.
function P.act_refused(d, by, epoch, action)
  if epoch ~= d.epoch then return P.refuse("staleEpoch", d, ',"given":' .. num(epoch)) end
  if d.holder ~= by then return P.refuse("notDriver", d, ',"action":' .. str(action)) end
  return nil
end
-- A decision on an approval that ran out, or was decided already (decidedApproval).
function P.approval_refused(a)
  if a.status == "pending" and a.expiresMs <= NOW then
    return '{"err":"approvalExpired","id":' .. str(a.id) .. ',"expires_at":' .. str(a.expires_at) .. '}'
  end
  if a.status ~= "pending" then
    return '{"err":"approvalDecided","id":' .. str(a.id) .. ',"status":' .. str(a.status) .. ',"decidedBy":'
      .. str(a.decidedBy) .. ',"decided_at":' .. str(a.decided_at) .. '}'
  end
  return nil
end
-- An offer's task owned by another agent than \`from\`, when an agent offers (checkHandoffTask).
function P.offer_refused(tid, owner, from, agent_offer)
  if agent_offer and owner and owner ~= from then
    return '{"err":"taskNotYours","id":' .. str(tid) .. ',"owner":' .. str(owner) .. '}'
  end
  return nil
end
-- A handoff no longer offered (checkHandoffOpen).
function P.closed_refused(h)
  if h.status ~= "offered" then
    return '{"err":"handoffClosed","id":' .. str(h.id) .. ',"status":' .. str(h.status) .. ',"closedBy":'
      .. P.value(h.closedBy) .. '}'
  end
  return nil
end
function P.not_for(h, agent)
  return '{"err":"handoffNotForYou","id":' .. str(h.id) .. ',"to":' .. str(h.to) .. ',"agent":' .. str(agent) .. '}'
end
-- An acceptance by an agent the offer is not for, or by its from or offeredBy (checkHandoffAccept).
function P.accept_refused(h, agent)
  if h.to ~= "any" and h.to ~= agent then return P.not_for(h, agent) end
  if h.from == agent or h.offeredBy == agent then return '{"err":"handoffOwnOffer","id":' .. str(h.id) .. '}' end
  return nil
end
-- A decline of an offer to any agent, or by an agent it is not for (checkHandoffDecline).
function P.decline_refused(h, agent)
  if h.to == "any" then return '{"err":"handoffToAny","id":' .. str(h.id) .. '}' end
  if h.to ~= agent then return P.not_for(h, agent) end
  return nil
end
-- A cancel by anyone but the offer's from or offeredBy (checkHandoffCancel).
function P.cancel_refused(h, by)
  if by ~= h.from and by ~= h.offeredBy then
    return '{"err":"handoffNotOfferer","id":' .. str(h.id) .. ',"from":' .. str(h.from) .. ',"offeredBy":'
      .. str(h.offeredBy) .. '}'
  end
  return nil
end
function P.value(v)
  if v == nil or v == cjson.null then return "null" end
  if type(v) == "string" then return str(v) end
  if type(v) == "number" then return num(v) end
  if type(v) == "boolean" then return tostring(v) end
  return cjson.encode(v)
end
-- A task in the field order of the plan scripts; fields they do not know (added by later versions) are kept.
P.TASK_FIELDS = { id = 1, title = 1, description = 1, status = 1, owner = 1, depends_on = 1, priority = 1,
  version = 1, created_at = 1, updated_at = 1 }
function P.task(t)
  local out = '{"id":' .. str(t.id) .. ',"title":' .. str(t.title) .. ',"description":' .. str(t.description)
    .. ',"status":' .. str(t.status) .. ',"owner":' .. opt_str(val(t.owner)) .. ',"depends_on":' .. strs(t.depends_on)
    .. ',"priority":' .. (val(t.priority) and num(t.priority) or "null") .. ',"version":' .. num(t.version)
    .. ',"created_at":' .. str(t.created_at) .. ',"updated_at":' .. str(t.updated_at)
  for k, v in pairs(t) do
    if not P.TASK_FIELDS[k] then out = out .. "," .. str(k) .. ":" .. P.value(v) end
  end
  return out .. "}"
end
-- An approval; the stored form also keeps expiresMs (stripped in TS) and always ends with its details, spliced
-- verbatim, so a decision rewrites the record without re-encoding what the agent sent.
function P.approval(a, details, stored)
  local out = '{"id":' .. str(a.id) .. ',"action":' .. str(a.action) .. ',"requestedBy":' .. str(a.requestedBy)
  if val(a.approvers) then out = out .. ',"approvers":' .. strs(a.approvers) end
  out = out .. ',"status":' .. str(a.status)
  if val(a.decidedBy) then out = out .. ',"decidedBy":' .. str(a.decidedBy) end
  if val(a.note) then out = out .. ',"note":' .. str(a.note) end
  out = out .. ',"created_at":' .. str(a.created_at)
  if val(a.decided_at) then out = out .. ',"decided_at":' .. str(a.decided_at) end
  out = out .. ',"expires_at":' .. str(a.expires_at)
  if stored then out = out .. ',"expiresMs":' .. num(a.expiresMs) end
  return out .. ',"details":' .. details .. '}'
end
function P.details_of(raw)
  return string.sub(raw, string.find(raw, ',"details":', 1, true) + 11, -2)
end
function P.owners_json(owners)
  local parts = {}
  for k, v in pairs(owners) do parts[#parts + 1] = str(k) .. ":" .. P.value(v) end
  return "{" .. table.concat(parts, ",") .. "}"
end
function P.handoff(h)
  local out = '{"id":' .. str(h.id) .. ',"from":' .. str(h.from) .. ',"to":' .. str(h.to) .. ',"taskIds":'
    .. strs(h.taskIds) .. ',"contextIds":' .. strs(h.contextIds) .. ',"note":' .. str(h.note) .. ',"status":'
    .. str(h.status) .. ',"offeredBy":' .. str(h.offeredBy) .. ',"owners":' .. P.owners_json(h.owners)
    .. ',"created_at":' .. str(h.created_at) .. ',"updated_at":' .. str(h.updated_at)
  if val(h.closedBy) then out = out .. ',"closedBy":' .. str(h.closedBy) end
  if val(h.reason) then out = out .. ',"reason":' .. str(h.reason) end
  if h.moved then out = out .. ',"moved":' .. strs(h.moved) end
  if h.conflicts then out = out .. ',"conflicts":' .. P.conflicts(h.conflicts) end
  return out .. "}"
end
function P.conflicts(list)
  local parts = {}
  for i, c in ipairs(list) do parts[i] = '{"taskId":' .. str(c.taskId) .. ',"owner":' .. P.value(c.owner) .. '}' end
  return "[" .. table.concat(parts, ",") .. "]"
end
-- An acceptance's moves: the offered tasks whose owner is still the one recorded at the offer move (their ids, and
-- the tasks as \`task_of\` gives them); the others are conflicts {taskId, owner} (a task gone: owner null). The rule
-- of protocol/people.ts handoffMoves.
function P.moves(h, task_of)
  local moved, conflicts, tasks = {}, {}, {}
  for _, tid in ipairs(h.taskIds) do
    local t = task_of(tid)
    local owner = t and val(t.owner)
    if t and owner == val(h.owners[tid]) then
      moved[#moved + 1] = tid
      tasks[#tasks + 1] = t
    else
      conflicts[#conflicts + 1] = { taskId = tid, owner = owner or cjson.null }
    end
  end
  return moved, conflicts, tasks
end
-- An open offer, or the refusal naming why not.
function P.open_handoff(id)
  local raw = OWNED and redis.call("HGET", K_HANDOFFS, id)
  if not raw then return nil, '{"err":"handoffNotFound","id":' .. str(id) .. '}' end
  local h = cjson.decode(raw)
  local closed = P.closed_refused(h)
  if closed then return nil, closed end
  return h, nil
end
`;
