/**
 * Lua of the room's wheel (docs/people.md, The driver), the room's description and the bridge's exchange, each prepended
 * with PRELUDE, LOG and GUARD. The driver lives in meta (drv_*), so the epoch check and the append of a steer or an
 * interrupt are one script. Refusals name their kind; people-refusals.ts turns them into RoomErrors.
 */
import type { DriverState, RoomInfo } from "../../protocol/people.ts";
import type { RoomEvent, Task, TaskStatus } from "../../protocol/records.ts";
import { PEOPLE_HELPERS } from "./lua-people-helpers.ts";
import { TASK_COUNTS } from "./lua-task-counts.ts";
import { arg, returns, script } from "./script-decl.ts";

type StoredEvent = Omit<RoomEvent, "read_by">;

/** What BRIDGE answers (events as stored; TS picks and shapes). */
export interface StoredBridge {
  exists: boolean;
  driver?: DriverState;
  interrupts?: StoredEvent[];
  steers?: StoredEvent[];
  messages?: StoredEvent[];
  tasks?: Task[];
  unread?: number;
}

/** What ROOM_DETAILS answers (every field but `exists` only on a room the team owns). */
export interface StoredDetails {
  exists: boolean;
  createdAt?: string | null;
  lastUsed?: number | null;
  byStatus?: Record<TaskStatus, number>;
  contextCount?: number;
  eventCount?: number;
  agentCount?: number;
  driver?: DriverState;
  forkedFrom?: RoomInfo["forkedFrom"];
}

/** getDriver. Replies {ok: DriverState}. */
export const GET_DRIVER = script({
  args: {},
  reply: returns<DriverState>(),
  body: `${PEOPLE_HELPERS}
if not OWNED then return ok('{"holder":null,"holderKind":null,"epoch":0,"since":null}') end
return ok(P.driver_json(P.driver()))
`,
});

/** takeDriver. Replies {ok: DriverState} or {err: "driverHeld" | "driverTaken", driver}. */
export const TAKE_DRIVER = script({
  args: {
    holder: arg.text, // the taker, as events name it
    kind: arg.text, // "human" or "agent"
    force: arg.flag, // an operator's force: take it from another person too
  },
  reply: returns<DriverState>(),
  body: `${PEOPLE_HELPERS}
local d = OWNED and P.driver() or { epoch = 0 }
if d.holder == holder then return ok(P.driver_json(d)) end
local reason, refused = P.take_reason(d, kind, force)
if refused then return refused end
if not OWNED and not CLAIM_OK then return CLAIM end
local now_driver = P.change(d, holder, kind, reason, holder)
commit()
return ok(P.driver_json(now_driver))
`,
});

/** releaseDriver. Replies {ok: DriverState} or {err: "staleEpoch" | "notDriver", driver}. */
export const RELEASE_DRIVER = script({
  args: {
    holder: arg.text, // who releases: must hold the wheel
    epoch: arg.number, // the epoch they saw: must be current
  },
  reply: returns<DriverState>(),
  body: `${PEOPLE_HELPERS}
local d = OWNED and P.driver() or { epoch = 0 }
local refused = P.act_refused(d, holder, epoch, "release the wheel")
if refused then return refused end
local now_driver = P.change(d, nil, nil, "released", holder)
commit()
return ok(P.driver_json(now_driver))
`,
});

/** driverAct: the epoch check and the append, one script. Replies {ok: event} or {err: "staleEpoch" | "notDriver"}. */
export const DRIVER_ACT = script({
  args: {
    etype: arg.text, // "steer" or "interrupt"
    by: arg.text, // who acts: must hold the wheel
    epoch: arg.number, // the epoch they saw: must be current (checked first)
    to: arg.text, // the agent addressed
    text: arg.text, // the steer's text or the interrupt's reason
  },
  reply: returns<StoredEvent>(),
  body: `${PEOPLE_HELPERS}
local d = OWNED and P.driver() or { epoch = 0 }
local refused = P.act_refused(d, by, epoch, etype)
if refused then return refused end
local field = etype == "steer" and "text" or "reason"
local e = append_event(etype, by, to, '{"' .. field .. '":' .. str(text) .. ',"epoch":' .. num(d.epoch) .. '}')
commit()
return ok(e)
`,
});

/**
 * roomDetails (get_room_info), task counts as reads show them. Replies {ok: {exists: false}} or {ok: {exists,
 * createdAt, lastUsed, byStatus, contextCount, eventCount, agentCount, driver, forkedFrom}}.
 */
export const ROOM_DETAILS = script({
  args: {},
  reply: returns<StoredDetails>(),
  body: `${PEOPLE_HELPERS}
if not OWNED then return ok('{"exists":false}') end
local m = redis.call("HMGET", K_META, "created_at", "last_used", "event_seq", "forked_from")
${TASK_COUNTS}
return ok('{"exists":true,"createdAt":' .. opt_str(m[1] or nil) .. ',"lastUsed":' .. (m[2] or "null")
  .. ',"byStatus":{"pending":' .. (by_status.pending or 0) .. ',"in_progress":' .. (by_status.in_progress or 0)
  .. ',"done":' .. (by_status.done or 0) .. ',"blocked":' .. (by_status.blocked or 0) .. '},"contextCount":'
  .. redis.call("HLEN", K_CTX) .. ',"eventCount":'
  .. (m[3] or "0") .. ',"agentCount":' .. redis.call("HLEN", K_PRESENCE) .. ',"driver":' .. P.driver_json(P.driver())
  .. ',"forkedFrom":' .. (m[4] or "null") .. '}')
`,
});

/**
 * bridge: one hook call of an agent's harness. Records its presence with a status text, appends agent_step
 * (PostToolUse), and takes what waits for it, moving its marks: interrupts (PreToolUse), steers (PostToolUse),
 * people's messages (SessionStart, UserPromptSubmit, Stop), and on SessionStart the digest. Replies {ok: {exists,
 * driver, interrupts?, steers?, messages?, tasks?, unread?}} (events as stored; TS picks and shapes).
 */
export const BRIDGE = script({
  args: {
    agent: arg.text, // the agent the harness runs
    hook: arg.text, // SessionStart, PreToolUse, PostToolUse, UserPromptSubmit or Stop
    step: arg.maybeJsonText<{ tool: string; target: string; ok: boolean }>(), // PostToolUse: agent_step payload, "" for none
    status: arg.text, // the agent's status text
    takeMax: arg.number, // most steers or interrupts taken in one call
    msgMax: arg.number, // most messages delivered in one call
  },
  reply: returns<StoredBridge>(),
  body: `${PEOPLE_HELPERS}
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
`,
});
