/**
 * Lua bodies of people's operations (humans.md), each prepended with PRELUDE, LOG and GUARD: the driver (fields
 * drv_* of meta, so the epoch check and the append of a steer are one script), approvals, handoffs and verdicts
 * (one hash each, record JSON by id), the room's description and the bridge's exchange. Records are built by
 * concatenation (like every script) so user JSON (approval details) is spliced in verbatim. Refusals name their
 * kind; people-refusals.ts turns them into the RoomErrors the other drivers throw.
 */

/** Helpers, grouped in one table so they cost one Lua local. */
const PEOPLE_HELPERS = `
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
    .. ',"status":' .. str(a.status)
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
-- An open offer, or the refusal naming why not.
function P.open_handoff(id)
  local raw = OWNED and redis.call("HGET", K_HANDOFFS, id)
  if not raw then return nil, '{"err":"handoffNotFound","id":' .. str(id) .. '}' end
  local h = cjson.decode(raw)
  if h.status ~= "offered" then
    return nil, '{"err":"handoffClosed","id":' .. str(id) .. ',"status":' .. str(h.status) .. ',"closedBy":' .. P.value(h.closedBy) .. '}'
  end
  return h, nil
end
-- ms since the epoch as ISO 8601 UTC with milliseconds, exactly like JavaScript's toISOString (civil-from-days).
function P.iso(ms)
  local secs = math.floor(ms / 1000)
  local milli = ms - secs * 1000
  local days = math.floor(secs / 86400)
  local rest = secs - days * 86400
  local z = days + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local day = doy - math.floor((153 * mp + 2) / 5) + 1
  local month = mp < 10 and mp + 3 or mp - 9
  local year = yoe + era * 400 + (month <= 2 and 1 or 0)
  return string.format("%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", year, month, day, math.floor(rest / 3600),
    math.floor((rest % 3600) / 60), rest % 60, milli)
end
function P.plan_locked(agent)
  local raw = redis.call("HGET", K_LOCKS, "plan")
  if not raw then return nil end
  local lock = cjson.decode(raw)
  if lock.expiresAt > NOW and lock.holder ~= agent then
    return '{"err":"planLocked","holder":' .. str(lock.holder) .. ',"expiresAt":' .. num(lock.expiresAt) .. '}'
  end
  return nil
end
`;

/** getDriver. Replies {ok: DriverState}. */
export const GET_DRIVER = `${PEOPLE_HELPERS}
if not OWNED then return ok('{"holder":null,"holderKind":null,"epoch":0,"since":null}') end
return ok(P.driver_json(P.driver()))
`;

/** takeDriver. Replies {ok: DriverState} or {err: "driverHeld" | "driverTaken", driver}. */
export const TAKE_DRIVER = `${PEOPLE_HELPERS}
local holder = ARGV[5]          -- the taker, as events name it
local kind = ARGV[6]            -- "human" or "agent"
local force = ARGV[7] == "1"    -- an operator's force: take it from another person too
local d = OWNED and P.driver() or { epoch = 0 }
if d.holder == holder then return ok(P.driver_json(d)) end
local reason
if not d.holder then
  reason = kind == "agent" and "claimed" or "taken"
elseif kind == "agent" then
  return P.refuse("driverTaken", d)
elseif d.kind == "agent" then
  reason = "taken_from_agent"
elseif force then
  reason = "forced"
else
  return P.refuse("driverHeld", d)
end
if not OWNED and not CLAIM_OK then return CLAIM end
local now_driver = P.change(d, holder, kind, reason, holder)
commit()
return ok(P.driver_json(now_driver))
`;

/** releaseDriver. Replies {ok: DriverState} or {err: "staleEpoch" | "notDriver", driver}. */
export const RELEASE_DRIVER = `${PEOPLE_HELPERS}
local holder = ARGV[5]          -- who releases: must hold the wheel
local epoch = tonumber(ARGV[6]) -- the epoch they saw: must be current
local d = OWNED and P.driver() or { epoch = 0 }
if epoch ~= d.epoch then return P.refuse("staleEpoch", d, ',"given":' .. num(epoch)) end
if d.holder ~= holder then return P.refuse("notDriver", d, ',"action":"release the wheel"') end
local now_driver = P.change(d, nil, nil, "released", holder)
commit()
return ok(P.driver_json(now_driver))
`;

/** driverAct: the epoch check and the append, one script. Replies {ok: event} or {err: "staleEpoch" | "notDriver"}. */
export const DRIVER_ACT = `${PEOPLE_HELPERS}
local etype = ARGV[5]           -- "steer" or "interrupt"
local by = ARGV[6]              -- who acts: must hold the wheel
local epoch = tonumber(ARGV[7]) -- the epoch they saw: must be current (checked first)
local to = ARGV[8]              -- the agent addressed
local text = ARGV[9]            -- the steer's text or the interrupt's reason
local d = OWNED and P.driver() or { epoch = 0 }
if epoch ~= d.epoch then return P.refuse("staleEpoch", d, ',"given":' .. num(epoch)) end
if d.holder ~= by then return P.refuse("notDriver", d, ',"action":' .. str(etype)) end
local field = etype == "steer" and "text" or "reason"
local e = append_event(etype, by, to, '{"' .. field .. '":' .. str(text) .. ',"epoch":' .. num(d.epoch) .. '}')
commit()
return ok(e)
`;

/** requestApproval. Replies {ok: approval as stored}. */
export const REQUEST_APPROVAL = `${PEOPLE_HELPERS}
local by = ARGV[5]              -- requesting agent
local action = ARGV[6]          -- what it asks to do
local details = ARGV[7]         -- details JSON object, spliced verbatim
local ttl = tonumber(ARGV[8])   -- lifetime in ms
if not OWNED and not CLAIM_OK then return CLAIM end
local a = { id = "apr-" .. W("HINCRBY", K_META, "approval_n", 1), action = action, requestedBy = by,
  status = "pending", created_at = NOW_ISO, expiresMs = NOW + ttl, expires_at = P.iso(NOW + ttl) }
W("HSET", K_APPROVALS, a.id, P.approval(a, details, true))
append_event("approval_requested", by, "all", '{"approval":' .. P.approval(a, details, false) .. '}')
commit()
return ok(P.approval(a, details, true))
`;

/** getApproval. Replies {ok: approval as stored} or {err: "approvalNotFound"}. */
export const GET_APPROVAL = `
local id = ARGV[5]              -- approval id
local raw = OWNED and redis.call("HGET", K_APPROVALS, id)
if not raw then return '{"err":"approvalNotFound","id":' .. str(id) .. '}' end
return ok(raw)
`;

/** listApprovals. Replies {ok: [approval as stored…]} (unordered; sorted and filtered in TS). */
export const LIST_APPROVALS = `
if not OWNED then return ok("[]") end
return ok("[" .. table.concat(redis.call("HVALS", K_APPROVALS), ",") .. "]")
`;

/**
 * decideApproval: exactly once. Replies {ok: approval as stored} or {err: "approvalNotFound" | "approvalExpired" |
 * "approvalDecided"}.
 */
export const DECIDE_APPROVAL = `${PEOPLE_HELPERS}
local id = ARGV[5]              -- approval id
local by = ARGV[6]              -- the person deciding
local decision = ARGV[7]        -- "approve" or "reject"
local note = ARGV[8]            -- note, used when ARGV[9] is "1"
local has_note = ARGV[9] == "1"
local raw = OWNED and redis.call("HGET", K_APPROVALS, id)
if not raw then return '{"err":"approvalNotFound","id":' .. str(id) .. '}' end
local a = cjson.decode(raw)
if a.status == "pending" and a.expiresMs <= NOW then
  return '{"err":"approvalExpired","id":' .. str(id) .. ',"expires_at":' .. str(a.expires_at) .. '}'
end
if a.status ~= "pending" then
  return '{"err":"approvalDecided","id":' .. str(id) .. ',"status":' .. str(a.status) .. ',"decidedBy":'
    .. str(a.decidedBy) .. ',"decided_at":' .. str(a.decided_at) .. '}'
end
local details = P.details_of(raw)
a.status = decision == "approve" and "approved" or "rejected"
a.decidedBy = by
a.decided_at = NOW_ISO
if has_note then a.note = note end
local stored = P.approval(a, details, true)
W("HSET", K_APPROVALS, id, stored)
append_event("approval_decided", by, a.requestedBy, '{"approvalId":' .. str(id) .. ',"action":' .. str(a.action)
  .. ',"decision":' .. str(decision) .. ',"decidedBy":' .. str(by) .. (has_note and (',"note":' .. str(note)) or "") .. '}')
commit()
return ok(stored)
`;

/**
 * offerHandoff. Replies {ok: handoff} or {err: "taskNotFound" | "taskNotYours" | "contextNotFound"}.
 */
export const OFFER_HANDOFF = `${PEOPLE_HELPERS}
local from = ARGV[5]            -- whose work is handed on
local to = ARGV[6]              -- an agent, or "any"
local task_ids = cjson.decode(ARGV[7]) -- JSON array of distinct task ids
local ctx_ids = cjson.decode(ARGV[8])  -- JSON array of distinct context ids
local note = ARGV[9]            -- the offer's note
local by = ARGV[10]             -- who offers (from, or a person on its behalf)
local agent_offer = ARGV[11] == "1" -- from is an agent: only its own or unowned tasks
local owners = {}
for _, tid in ipairs(task_ids) do
  local raw = OWNED and redis.call("HGET", K_TASKS, tid)
  if not raw then return '{"err":"taskNotFound","id":' .. str(tid) .. '}' end
  local owner = val(cjson.decode(raw).owner)
  if agent_offer and owner and owner ~= from then
    return '{"err":"taskNotYours","id":' .. str(tid) .. ',"owner":' .. str(owner) .. '}'
  end
  owners[tid] = owner or cjson.null
end
for _, cid in ipairs(ctx_ids) do
  if not (OWNED and redis.call("HEXISTS", K_CTX, cid) == 1) then
    return '{"err":"contextNotFound","id":' .. str(cid) .. '}'
  end
end
if not OWNED and not CLAIM_OK then return CLAIM end
local h = { id = "hof-" .. W("HINCRBY", K_META, "handoff_n", 1), from = from, to = to, taskIds = task_ids,
  contextIds = ctx_ids, note = note, status = "offered", offeredBy = by, owners = owners, created_at = NOW_ISO,
  updated_at = NOW_ISO }
local json = P.handoff(h)
W("HSET", K_HANDOFFS, h.id, json)
append_event("handoff_offered", by, to == "any" and "all" or to, '{"handoff":' .. json .. '}')
commit()
return ok(json)
`;

/**
 * acceptHandoff: the decision and the moves, one script. Replies {ok: handoff} or {err: "handoffNotFound" |
 * "handoffClosed" | "handoffNotForYou" | "handoffOwnOffer" | "planLocked"}.
 */
export const ACCEPT_HANDOFF = `${PEOPLE_HELPERS}
local id = ARGV[5]              -- handoff id
local agent = ARGV[6]           -- the acceptor
local h, refused = P.open_handoff(id)
if not h then return refused end
if h.to ~= "any" and h.to ~= agent then
  return '{"err":"handoffNotForYou","id":' .. str(id) .. ',"to":' .. str(h.to) .. ',"agent":' .. str(agent) .. '}'
end
if h.from == agent or h.offeredBy == agent then return '{"err":"handoffOwnOffer","id":' .. str(id) .. '}' end
if #h.taskIds > 0 then
  local locked = P.plan_locked(agent)
  if locked then return locked end
end
local moved, conflicts, tasks = {}, {}, {}
for _, tid in ipairs(h.taskIds) do
  local raw = redis.call("HGET", K_TASKS, tid)
  local t = raw and cjson.decode(raw)
  local owner = t and val(t.owner)
  if t and owner == val(h.owners[tid]) then
    moved[#moved + 1] = tid
    tasks[#tasks + 1] = t
  else
    conflicts[#conflicts + 1] = { taskId = tid, owner = owner or cjson.null }
  end
end
for _, t in ipairs(tasks) do
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
`;

/** declineHandoff. Replies {ok: handoff} or {err: "handoffNotFound" | "handoffClosed" | "handoffToAny" | "handoffNotForYou"}. */
export const DECLINE_HANDOFF = `${PEOPLE_HELPERS}
local id = ARGV[5]              -- handoff id
local agent = ARGV[6]           -- the addressee declining
local reason = ARGV[7]          -- why
local h, refused = P.open_handoff(id)
if not h then return refused end
if h.to == "any" then return '{"err":"handoffToAny","id":' .. str(id) .. '}' end
if h.to ~= agent then
  return '{"err":"handoffNotForYou","id":' .. str(id) .. ',"to":' .. str(h.to) .. ',"agent":' .. str(agent) .. '}'
end
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
`;

/** cancelHandoff. Replies {ok: handoff} or {err: "handoffNotFound" | "handoffClosed" | "handoffNotOfferer"}. */
export const CANCEL_HANDOFF = `${PEOPLE_HELPERS}
local id = ARGV[5]              -- handoff id
local by = ARGV[6]              -- must be the offer's from or offeredBy
local h, refused = P.open_handoff(id)
if not h then return refused end
if by ~= h.from and by ~= h.offeredBy then
  return '{"err":"handoffNotOfferer","id":' .. str(id) .. ',"from":' .. str(h.from) .. ',"offeredBy":' .. str(h.offeredBy) .. '}'
end
h.status = "cancelled"
h.closedBy = by
h.updated_at = NOW_ISO
local json = P.handoff(h)
W("HSET", K_HANDOFFS, id, json)
append_event("handoff_cancelled", by, h.to == "any" and "all" or h.to, '{"handoffId":' .. str(id) .. ',"by":' .. str(by) .. '}')
commit()
return ok(json)
`;

/** listHandoffs. Replies {ok: [handoff…]} (unordered; sorted and filtered in TS). */
export const LIST_HANDOFFS = `
if not OWNED then return ok("[]") end
return ok("[" .. table.concat(redis.call("HVALS", K_HANDOFFS), ",") .. "]")
`;

/** recordVerdict: kept and announced, nothing else touched. Replies {ok: verdict}. */
export const RECORD_VERDICT = `
local by = ARGV[5]              -- the reviewer
local verdict = ARGV[6]         -- pass, fail or neutral
local summary = ARGV[7]         -- one paragraph
local details = ARGV[8]         -- markdown
local ref = ARGV[9]             -- a URL, used when ARGV[10] is "1"
local has_ref = ARGV[10] == "1"
if not OWNED and not CLAIM_OK then return CLAIM end
local id = "vrd-" .. W("HINCRBY", K_META, "verdict_n", 1)
local json = '{"id":' .. str(id) .. ',"verdict":' .. str(verdict) .. ',"summary":' .. str(summary) .. ',"details":'
  .. str(details) .. ',"ref":' .. (has_ref and str(ref) or "null") .. ',"by":' .. str(by) .. ',"created_at":'
  .. str(NOW_ISO) .. '}'
W("HSET", K_VERDICTS, id, json)
append_event("verdict_recorded", by, "all", '{"verdict":' .. json .. '}')
commit()
return ok(json)
`;

/** listVerdicts. Replies {ok: [verdict…]} (unordered; sorted newest first in TS). */
export const LIST_VERDICTS = `
if not OWNED then return ok("[]") end
return ok("[" .. table.concat(redis.call("HVALS", K_VERDICTS), ",") .. "]")
`;

/**
 * roomDetails (get_room_info). Replies {ok: {exists: false}} or {ok: {exists, createdAt, lastUsed, byStatus,
 * contextCount, eventCount, agentCount, driver, forkedFrom}}.
 */
export const ROOM_DETAILS = `${PEOPLE_HELPERS}
if not OWNED then return ok('{"exists":false}') end
local m = redis.call("HMGET", K_META, "created_at", "last_used", "event_seq", "forked_from", "n_pending",
  "n_in_progress", "n_done", "n_blocked")
local n = { pending = tonumber(m[5]) or 0, in_progress = tonumber(m[6]) or 0, done = tonumber(m[7]) or 0,
  blocked = tonumber(m[8]) or 0 }
if META[4] ~= "1" then
  n = { pending = 0, in_progress = 0, done = 0, blocked = 0 }
  for _, raw in ipairs(redis.call("HVALS", K_TASKS)) do
    local s = cjson.decode(raw).status
    n[s] = (n[s] or 0) + 1
  end
end
return ok('{"exists":true,"createdAt":' .. opt_str(m[1] or nil) .. ',"lastUsed":' .. (m[2] or "null")
  .. ',"byStatus":{"pending":' .. n.pending .. ',"in_progress":' .. n.in_progress .. ',"done":' .. n.done
  .. ',"blocked":' .. n.blocked .. '},"contextCount":' .. redis.call("HLEN", K_CTX) .. ',"eventCount":'
  .. (m[3] or "0") .. ',"agentCount":' .. redis.call("HLEN", K_PRESENCE) .. ',"driver":' .. P.driver_json(P.driver())
  .. ',"forkedFrom":' .. (m[4] or "null") .. '}')
`;

/**
 * bridge: one hook call of an agent's harness. Records its presence with a status text, appends agent_step
 * (PostToolUse), and takes what waits for it, moving its marks: interrupts (PreToolUse), steers (PostToolUse),
 * people's messages (SessionStart, UserPromptSubmit, Stop), and on SessionStart the digest. Replies {ok: {exists,
 * driver, interrupts?, steers?, messages?, tasks?, unread?}} (events as stored; TS picks and shapes).
 */
export const BRIDGE = `${PEOPLE_HELPERS}
local agent = ARGV[5]           -- the agent the harness runs
local hook = ARGV[6]            -- SessionStart, PreToolUse, PostToolUse, UserPromptSubmit or Stop
local step = ARGV[7]            -- PostToolUse: agent_step payload JSON {tool, target, ok}, "" for none
local status = ARGV[8]          -- the agent's status text
local take_max = tonumber(ARGV[9]) -- most steers or interrupts taken in one call
local msg_max = tonumber(ARGV[10]) -- most messages delivered in one call
if not OWNED then return ok('{"exists":false}') end
W("HSET", K_PRESENCE, agent, '{"lastSeen":' .. num(NOW) .. ',"statusText":' .. str(status) .. '}')
signal("presence")
local out = '{"exists":true,"driver":' .. P.driver_json(P.driver())
if hook == "PreToolUse" then
  out = out .. ',"interrupts":' .. MAIL.events(MAIL.take("interrupt", agent, take_max))
elseif hook == "PostToolUse" then
  if step ~= "" then append_event("agent_step", agent, "all", step) end
  out = out .. ',"steers":' .. MAIL.events(MAIL.take("steer", agent, take_max))
else
  out = out .. ',"messages":' .. MAIL.events(MAIL.take("human_message", agent, msg_max))
  if hook == "SessionStart" then
    local mine = {}
    for _, raw in ipairs(redis.call("HVALS", K_TASKS)) do
      if cjson.decode(raw).owner == agent then mine[#mine + 1] = raw end
    end
    ensure_index()
    local cursor = tonumber(redis.call("HGET", K_CURSORS, agent)) or 0
    local unread = addressed_count("all", cursor) + (agent ~= "all" and addressed_count(agent, cursor) or 0)
    out = out .. ',"tasks":[' .. table.concat(mine, ",") .. '],"unread":' .. unread
  end
end
commit()
return ok(out .. '}')
`;
