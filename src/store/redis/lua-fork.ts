/**
 * Lua of a fork (docs/people.md, Forks). The source and the fork live in different slots (a Redis Cluster cannot run
 * one script over both), so a fork is one read of the source — one atomic snapshot — and then the fork's writes:
 * one script when the log is small, or a few in a row for a long log (fork-ops.ts cuts them by size). The first
 * claims the new room and marks it with a token; the others continue only while the token is there.
 */
import type { ForkedFrom } from "../../protocol/people.ts";
import type { ContextEntry, JsonObject, Review, RoomEvent, Task } from "../../protocol/records.ts";
import { arg, returns, script } from "./script-decl.ts";

type Version = Omit<ContextEntry, "id" | "type">;

/** What FORK_SOURCE answers. */
export interface Snapshot {
  head: number;
  atSeq: number;
  nextMs: number | null;
  events: Omit<RoomEvent, "read_by">[];
  /** "<ms> <to>" per event, as event_idx keeps it. */
  idx: string[];
  /** Seqs of the events agents posted. */
  posted: number[];
  ctx: { m: Omit<ContextEntry, "payload">; p: JsonObject; h: Version[]; s: number[] }[];
  /** The room's small values as [field, value, …] (keys.ts part `values`: "<kind> <key>" → JSON text). */
  values: string[];
  /** Set when retention trimmed the source's log (forked at its head only): its last trimmed seq and its state. */
  trimmed?: number;
  tasks?: Task[];
  taskN?: number;
  ctxN?: number;
  planCreated?: string | null;
  planUpdated?: string | null;
  reviews?: Review[];
  /** Ids of the source's handoffs, approvals and verdicts. */
  recordIds?: string[];
}

/** The new room's counters and origin, repeated in every part of FORK_WRITE (scalars only). */
export interface ForkSetup {
  eventSeq: number;
  taskN: number;
  ctxN: number;
  ctxSeq: number;
  pending: number;
  inProgress: number;
  done: number;
  blocked: number;
  planCreated: string | null;
  planUpdated: string | null;
  driver: string | null;
  by: string;
  handoffN: number;
  approvalN: number;
  verdictN: number;
  reviewN: number;
  /** The source's last trimmed seq, 0 for none. */
  trimmed: number;
}

/**
 * forkSource: the prefix seq ≤ atSeq of the log, each event with its index entry and the seqs of those agents
 * posted, the instant of the event after atSeq, every context entry with its payload, history and version heads,
 * and the room's small values. A room whose log retention trimmed is forked only at its head, from its current
 * state: then also trimmed (the last seq trimmed), tasks, taskN, ctxN, planCreated, planUpdated, reviews and
 * recordIds (the ids of its handoffs, approvals and verdicts). Reads only. Replies {ok: {head, atSeq, nextMs,
 * events: [event…], idx: ["<ms> <to>"…], posted: [seq…], ctx: [{m, p, h, s}…], values: [field, value, …],
 * trimmed?…}} or {err: "denied" | "forkPastHead" | "forkTrimmed"}.
 */
export const FORK_SOURCE = script({
  args: {
    at: arg.maybeNumber, // the seq to fork at, none for the head
  },
  reply: returns<Snapshot>(),
  body: `
if not OWNED then return '{"err":"denied"}' end
local head = tonumber(redis.call("HGET", K_META, "event_seq")) or 0
local at_seq = at or head
if at_seq > head then
  return '{"err":"forkPastHead","atSeq":' .. num(at_seq) .. ',"head":' .. num(head) .. '}'
end
local trimmed = TRIM.seq()
if trimmed > 0 and at_seq < head then
  return '{"err":"forkTrimmed","atSeq":' .. num(at_seq) .. ',"head":' .. num(head) .. ',"trimmedBefore":'
    .. num(trimmed + 1) .. '}'
end
local evs, idx, posted = {}, {}, {}
-- From the trim, or from as far down as the events the room holds reach (a count bound on the walk).
for low = math.max(trimmed, head - redis.call("HLEN", K_EVENT_IDX)) + 1, at_seq, 500 do
  local seqs = {}
  for s = low, math.min(at_seq, low + 499) do seqs[#seqs + 1] = s end
  local e = redis.call("HMGET", K_EVENTS, unpack(seqs))
  local x = redis.call("HMGET", K_EVENT_IDX, unpack(seqs))
  local p = redis.call("HMGET", K_POSTED, unpack(seqs))
  for i = 1, #seqs do
    if e[i] and x[i] then
      evs[#evs + 1] = e[i]
      idx[#idx + 1] = str(x[i])
      if p[i] == "1" then posted[#posted + 1] = seqs[i] end
    end
  end
end
local next_ms = "null"
if at_seq < head then
  local x = redis.call("HGET", K_EVENT_IDX, at_seq + 1)
  if x then next_ms = num(idx_parts(x)) end
end
local ctx = {}
local all = redis.call("HGETALL", K_CTX)
for i = 1, #all, 2 do
  local id = all[i]
  ctx[#ctx + 1] = '{"m":' .. all[i + 1] .. ',"p":' .. redis.call("HGET", K_CTX_PAYLOAD, id) .. ',"h":'
    .. (redis.call("HGET", K_CTX_HIST, id) or "[]") .. ',"s":' .. (redis.call("HGET", K_CTX_SEQS, id) or "[]") .. '}'
end
local function pairs_of(key)
  local flat = redis.call("HGETALL", key)
  for i = 1, #flat do flat[i] = str(flat[i]) end
  return "[" .. table.concat(flat, ",") .. "]"
end
local plan = ""
if trimmed > 0 then
  local m = redis.call("HMGET", K_META, "task_n", "ctx_n", "plan_created_at", "plan_updated_at")
  local ids = {}
  for _, key in ipairs({ K_HANDOFFS, K_APPROVALS, K_VERDICTS }) do
    for _, id in ipairs(redis.call("HKEYS", key)) do ids[#ids + 1] = id end
  end
  plan = ',"trimmed":' .. num(trimmed) .. ',"tasks":[' .. table.concat(redis.call("HVALS", K_TASKS), ",")
    .. '],"taskN":' .. num(tonumber(m[1]) or 0) .. ',"ctxN":' .. num(tonumber(m[2]) or 0) .. ',"planCreated":'
    .. (m[3] and str(m[3]) or "null") .. ',"planUpdated":' .. (m[4] and str(m[4]) or "null")
    .. ',"reviews":[' .. table.concat(redis.call("HVALS", K_REVIEWS), ",") .. '],"recordIds":' .. strs(ids)
end
return ok('{"head":' .. num(head) .. ',"atSeq":' .. num(at_seq) .. ',"nextMs":' .. next_ms .. ',"events":['
  .. table.concat(evs, ",") .. '],"idx":[' .. table.concat(idx, ",") .. '],"posted":[' .. table.concat(posted, ",")
  .. '],"ctx":[' .. table.concat(ctx, ",") .. '],"values":' .. pairs_of(K_VALUES) .. plan .. '}')
`,
});

/**
 * forkWrite: one part of a fork's writes. `records` holds the part's `events` triples (event JSON, "<seq> <ms> <to>
 * <type>", mark: "" when roomd appended it, "-" for a tombstone an agent posted, else the search terms of an event
 * an agent posted), then (last part) the number of tasks t and t triples (id, task JSON, search terms), the number
 * of entries c and c septets (id, entry JSON without payload, payload JSON, history JSON, version heads JSON, change
 * counter, search terms), the number of reviews r and r pairs (id, review JSON), the number of small values v and v
 * pairs (field, value JSON) of the part `values`.
 * The last part appends room_forked {from} and unmarks the room. Replies {ok: true} or {err: "forkTargetExists" |
 * "forkInterrupted"} (another team's room was refused by GUARD).
 */
export const FORK_WRITE = script({
  args: {
    token: arg.text, // marks the room while it is being built
    first: arg.flag, // the first part: claims the room
    last: arg.flag, // the last part: plan, context and reviews, then room_forked
    setup: arg.json<ForkSetup>(),
    forked: arg.jsonText<ForkedFrom>(), // the origin, spliced verbatim
    events: arg.number, // the event triples `records` starts with
    records: arg.list(),
  },
  reply: returns<true>(),
  body: `
if first then
  if OWNED then return '{"err":"forkTargetExists"}' end
  if not CLAIM_OK then return CLAIM end
  commit()
  W("HSET", K_META, "event_seq", setup.eventSeq, "forked_from", forked, "fork_building", token, "addr_v", "1",
    "counted", "1", "task_n", setup.taskN, "ctx_n", setup.ctxN, "ctx_seq", setup.ctxSeq, "n_pending", setup.pending,
    "n_in_progress", setup.inProgress, "n_done", setup.done, "n_blocked", setup.blocked, "handoff_n", setup.handoffN,
    "approval_n", setup.approvalN, "verdict_n", setup.verdictN, "review_n", setup.reviewN)
  if (tonumber(setup.trimmed) or 0) > 0 then W("HSET", K_META, "trim_seq", setup.trimmed) end
  META[3] = "1"
  META[4] = "1"
elseif not OWNED or redis.call("HGET", K_META, "fork_building") ~= token then
  return '{"err":"forkInterrupted"}'
end
local i = records_at
for _ = 1, events do
  local line = ARGV[i + 1]
  local seq, ms, to, etype = string.match(line, "^(%d+) (%d+) (%S+) (.*)$")
  seq = tonumber(seq)
  W("HSET", K_EVENTS, seq, ARGV[i])
  W("HSET", K_EVENT_IDX, seq, ms .. " " .. to)
  W("ZADD", K_EVENT_ADDR, 0, addr_member(to, seq))
  if MAIL.types[etype] then W("ZADD", K_MAILBOX, 0, etype .. " " .. addr_member(to, seq)) end
  local mark = ARGV[i + 2]
  if mark ~= "" then W("HSET", K_POSTED, seq, "1") end
  if mark ~= "" and mark ~= "-" then IX.put("evt-" .. num(seq), cjson.decode(mark)) end
  i = i + 3
end
if not last then return ok("true") end
local tasks = tonumber(ARGV[i])
i = i + 1
for _ = 1, tasks do
  W("HSET", K_TASKS, ARGV[i], ARGV[i + 1])
  IX.put(ARGV[i], cjson.decode(ARGV[i + 2]))
  i = i + 3
end
if setup.planCreated ~= cjson.null then
  W("HSET", K_META, "plan_created_at", setup.planCreated, "plan_updated_at", setup.planUpdated)
end
local entries = tonumber(ARGV[i])
i = i + 1
-- Entries written here are not in the context index (lua-context.ts CTX_BY): the next filtered list builds it.
redis.call("HDEL", K_META, "ctx_by_v")
for _ = 1, entries do
  local id = ARGV[i]
  W("HSET", K_CTX, id, ARGV[i + 1])
  W("HSET", K_CTX_PAYLOAD, id, ARGV[i + 2])
  if ARGV[i + 3] ~= "[]" then W("HSET", K_CTX_HIST, id, ARGV[i + 3]) end
  if ARGV[i + 4] ~= "[]" then W("HSET", K_CTX_SEQS, id, ARGV[i + 4]) end
  W("ZADD", K_CTX_CHANGES, tonumber(ARGV[i + 5]), id)
  IX.put(id, cjson.decode(ARGV[i + 6]))
  i = i + 7
end
local reviews = tonumber(ARGV[i])
i = i + 1
for _ = 1, reviews do
  W("HSET", K_REVIEWS, ARGV[i], ARGV[i + 1])
  i = i + 2
end
local values = tonumber(ARGV[i])
i = i + 1
for _ = 1, values do
  W("HSET", K_VALUES, ARGV[i], ARGV[i + 1])
  i = i + 2
end
if setup.driver ~= cjson.null then
  W("HSET", K_META, "drv_holder", setup.driver, "drv_kind", "human", "drv_epoch", 1, "drv_since", NOW_ISO)
end
append_event("room_forked", setup.by, "all", '{"from":' .. forked .. '}')
redis.call("HDEL", K_META, "fork_building")
return ok("true")
`,
});
