/**
 * Lua of moving rooms (store/move-types.ts), each prepended with PRELUDE, LOG, INDEX and GUARD: a room's
 * records in one read, its log in pages, and a room written in parts. Like a fork, an import writes into a slot
 * of its own one part at a time (move-ops.ts cuts them by size); the first part claims the room and marks it with
 * a token, later parts continue only while the token is there, the last removes it. The parts are generic — hash
 * fields and sorted-set members of the room's own keys, by their place in ROOM_KEY_PARTS — because TS shapes every
 * stored record, exactly as the scripts that write them would.
 */
import type { ContextEntry, Task } from "../../protocol/records.ts";
import type { RoomSnapshot } from "../move-types.ts";
import type { StoredEvent } from "./records.ts";
import { arg, returns, script } from "./script-decl.ts";

type Version = Omit<ContextEntry, "id" | "type">;

/** What EXPORT_ROOM answers about an owned room (hashes as [field, value, …]). */
export interface StoredRoom {
  exists: boolean;
  meta: {
    createdAt: string;
    forkedFrom: RoomSnapshot["forkedFrom"];
    head: number;
    trimmed: number;
    planCreated: string | null;
    planUpdated: string | null;
    taskN: number;
    ctxN: number;
    ctxSeq: number;
    drvHolder: string | null;
    drvKind: string | null;
    drvEpoch: number;
    drvSince: string | null;
  };
  tasks: Task[];
  ctx: {
    m: Omit<ContextEntry, "payload">;
    p: ContextEntry["payload"];
    h: Version[];
    s: number[];
    c: number;
  }[];
  hashes: Record<
    | "vars"
    | "reviews"
    | "approvals"
    | "handoffs"
    | "verdicts"
    | "cursors"
    | "ctx_marks"
    | "marks"
    | "fences"
    | "claims"
    | "holdings"
    | "values",
    string[]
  >;
}

/**
 * exportRoom: every record of the room but its log, as stored (TS shapes them). Reads only. Replies {ok: {exists,
 * meta: {…}, tasks: [task…], ctx: [{m, p, h, s, c}…], hashes: {vars, reviews, approvals, handoffs, verdicts,
 * cursors, ctx_marks, marks, fences, claims, holdings, values: [field, value, …]}}}.
 */
export const EXPORT_ROOM = script({
  args: {},
  reply: returns<StoredRoom>(),
  body: `
if not OWNED then return ok('{"exists":false}') end
local m = redis.call("HMGET", K_META, "created_at", "forked_from", "event_seq", "trim_seq", "plan_created_at",
  "plan_updated_at", "task_n", "ctx_n", "ctx_seq", "drv_holder", "drv_kind", "drv_epoch", "drv_since")
local function s_or_null(v) if v then return str(v) end return "null" end
local meta = '{"createdAt":' .. s_or_null(m[1]) .. ',"forkedFrom":' .. (m[2] or "null") .. ',"head":'
  .. num(tonumber(m[3]) or 0) .. ',"trimmed":' .. num(tonumber(m[4]) or 0) .. ',"planCreated":' .. s_or_null(m[5])
  .. ',"planUpdated":' .. s_or_null(m[6]) .. ',"taskN":' .. num(tonumber(m[7]) or 0) .. ',"ctxN":'
  .. num(tonumber(m[8]) or 0) .. ',"ctxSeq":' .. num(tonumber(m[9]) or 0) .. ',"drvHolder":' .. s_or_null(m[10])
  .. ',"drvKind":' .. s_or_null(m[11]) .. ',"drvEpoch":' .. num(tonumber(m[12]) or 0) .. ',"drvSince":'
  .. s_or_null(m[13]) .. '}'
local ctx = {}
local all = redis.call("HGETALL", K_CTX)
for i = 1, #all, 2 do
  local id = all[i]
  ctx[#ctx + 1] = '{"m":' .. all[i + 1] .. ',"p":' .. redis.call("HGET", K_CTX_PAYLOAD, id) .. ',"h":'
    .. (redis.call("HGET", K_CTX_HIST, id) or "[]") .. ',"s":' .. (redis.call("HGET", K_CTX_SEQS, id) or "[]")
    .. ',"c":' .. num(tonumber(redis.call("ZSCORE", K_CTX_CHANGES, id)) or 0) .. '}'
end
local function pairs_of(key)
  local flat = redis.call("HGETALL", key)
  for i = 1, #flat do flat[i] = str(flat[i]) end
  return "[" .. table.concat(flat, ",") .. "]"
end
return ok('{"exists":true,"meta":' .. meta .. ',"tasks":[' .. table.concat(redis.call("HVALS", K_TASKS), ",")
  .. '],"ctx":[' .. table.concat(ctx, ",") .. '],"hashes":{"vars":' .. pairs_of(K_VARS) .. ',"reviews":'
  .. pairs_of(K_REVIEWS) .. ',"approvals":' .. pairs_of(K_APPROVALS) .. ',"handoffs":' .. pairs_of(K_HANDOFFS)
  .. ',"verdicts":' .. pairs_of(K_VERDICTS) .. ',"cursors":' .. pairs_of(K_CURSORS) .. ',"ctx_marks":'
  .. pairs_of(K_CTX_MARKS) .. ',"marks":' .. pairs_of(K_MARKS) .. ',"fences":' .. pairs_of(K_FENCES)
  .. ',"claims":' .. pairs_of(K_CLAIMS) .. ',"holdings":' .. pairs_of(K_HOLDINGS) .. ',"values":'
  .. pairs_of(K_VALUES) .. '}}')
`,
});

/**
 * exportLog: up to limit events after a seq (never below the trimmed range), oldest first, each with its readers,
 * whether an agent posted it, and for context events when it first reached each agent. Reads only. Replies {ok:
 * [{e, r, p, d: {agent: ms}}…]}.
 */
export const EXPORT_LOG = script({
  args: {
    after: arg.number, // only events with a larger seq
    limit: arg.number, // max events
  },
  reply: returns<(StoredEvent & { p: boolean; d: Record<string, number> })[]>(),
  body: `
if not OWNED then return ok("[]") end
local head = tonumber(redis.call("HGET", K_META, "event_seq")) or 0
local from = math.max(after, TRIM.seq())
local seqs = {}
for s = from + 1, math.min(head, from + limit) do seqs[#seqs + 1] = s end
if #seqs == 0 then return ok("[]") end
local evs = redis.call("HMGET", K_EVENTS, unpack(seqs))
local reads = redis.call("HMGET", K_EVENT_READS, unpack(seqs))
local posted = redis.call("HMGET", K_POSTED, unpack(seqs))
local agents = nil
local out = {}
for i = 1, #seqs do
  if evs[i] then
    local d = {}
    if string.find(evs[i], '^{"id":"evt%-%d+","seq":%d+,"type":"context_[au][vp]') then
      agents = agents or redis.call("HKEYS", K_CURSORS)
      for _, agent in ipairs(agents) do
        local at = redis.call("HGET", K_CTX_READS, num(seqs[i]) .. " " .. agent)
        if at then d[#d + 1] = str(agent) .. ":" .. at end
      end
    end
    out[#out + 1] = '{"e":' .. evs[i] .. ',"r":' .. (reads[i] or "[]") .. ',"p":' .. tostring(posted[i] == "1")
      .. ',"d":{' .. table.concat(d, ",") .. '}}'
  end
end
return ok("[" .. table.concat(out, ",") .. "]")
`,
});

/**
 * importWrite: one part of an import. `writes` holds `hashes` triples (key number in ROOM_KEY_PARTS, field, value),
 * then the number z of sorted-set writes and z triples (key number, score, member).
 * The first part claims the room (refused when it exists); the last unmarks it. Replies {ok: true} or {err:
 * "importTargetExists" | "importInterrupted"} (another team's room was refused by GUARD).
 */
export const IMPORT_WRITE = script({
  args: {
    token: arg.text, // marks the room while it is being built
    first: arg.flag, // the first part: claims the room
    last: arg.flag, // the last part: unmarks the room
    hashes: arg.number, // the hash writes `writes` starts with
    writes: arg.list(),
  },
  reply: returns<true>(),
  body: `
if first then
  if OWNED then return '{"err":"importTargetExists"}' end
  if not CLAIM_OK then return CLAIM end
  commit()
  W("HSET", K_META, "import_building", token)
elseif not OWNED or redis.call("HGET", K_META, "import_building") ~= token then
  return '{"err":"importInterrupted"}'
end
-- Context written here is not in the context index (lua-context.ts CTX_BY): the next filtered list builds it.
redis.call("HDEL", K_META, "ctx_by_v")
local i = writes_at
for _ = 1, hashes do
  W("HSET", KEYS[tonumber(ARGV[i])], ARGV[i + 1], ARGV[i + 2])
  i = i + 3
end
local zn = tonumber(ARGV[i])
i = i + 1
for _ = 1, zn do
  W("ZADD", KEYS[tonumber(ARGV[i])], ARGV[i + 1], ARGV[i + 2])
  i = i + 3
end
if last then redis.call("HDEL", K_META, "import_building") end
return ok("true")
`,
});
