/**
 * Lua bodies of the room's wheel (humans.md §2), the room's description and the bridge's exchange, each prepended
 * with PRELUDE, LOG and GUARD. The driver lives in meta (drv_*), so the epoch check and the append of a steer or an
 * interrupt are one script. Refusals name their kind; people-refusals.ts turns them into RoomErrors.
 */
import { PEOPLE_HELPERS } from "./lua-people-helpers.ts";
import { TASK_COUNTS } from "./lua-task-counts.ts";

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

/**
 * roomDetails (get_room_info), task counts as reads show them. Replies {ok: {exists: false}} or {ok: {exists,
 * createdAt, lastUsed, byStatus, contextCount, eventCount, agentCount, driver, forkedFrom}}.
 */
export const ROOM_DETAILS = `${PEOPLE_HELPERS}
if not OWNED then return ok('{"exists":false}') end
local m = redis.call("HMGET", K_META, "created_at", "last_used", "event_seq", "forked_from")
${TASK_COUNTS}
return ok('{"exists":true,"createdAt":' .. opt_str(m[1] or nil) .. ',"lastUsed":' .. (m[2] or "null")
  .. ',"byStatus":{"pending":' .. (by_status.pending or 0) .. ',"in_progress":' .. (by_status.in_progress or 0)
  .. ',"done":' .. (by_status.done or 0) .. ',"blocked":' .. (by_status.blocked or 0) .. '},"contextCount":'
  .. redis.call("HLEN", K_CTX) .. ',"eventCount":'
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
-- A hook of the agent's running harness is a call naming it: its live leases and claims are renewed.
R.renew(agent)
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
