/**
 * Lua of the event log, shared by every room script after PRELUDE: appending (with the addressee index kept in
 * the same script) and consuming by cursor in O(log n + k) for k delivered events, whatever the backlog.
 *
 * The addressee index (K_EVENT_ADDR) holds one member per event, "<to> <seq as 12 digits>", all with score 0, so a
 * lex range finds an addressee's events after a seq and ZLEXCOUNT counts them — both O(log n). Rooms written
 * before the index existed get it built once, on their first log operation (flag addr_v in meta).
 *
 * Every append also fills the webhook outbox in the same script (lua-webhooks.ts WEBHOOK_ENQUEUE): one HLEN on a
 * room without webhooks.
 *
 * Retention (store/move-types.ts EventRetention; TRIM is bound by PRELUDE): every append then trims the room's
 * oldest events — at most TRIM_PER_APPEND, of which TRIM_INDEXED_PER_APPEND searchable — with their index
 * entries, read receipts, mailbox entries, first-delivery times and search documents; meta trim_seq is the last
 * seq trimmed. Queued webhook deliveries of trimmed events are dropped by the next claim (the event is gone).
 */
import { TRIM_INDEXED_PER_APPEND, TRIM_PER_APPEND } from "../move-types.ts";
import { WEBHOOK_ENQUEUE } from "./lua-webhooks.ts";

export const LOG = `${WEBHOOK_ENQUEUE}
-- People's messages, steers and interrupts are also indexed by type (mailbox), so the bridge and get_my_summary
-- find what waits for an agent without walking the log; MAIL holds the helpers (one local). unindex drops a search
-- document (INDEX sets it to IX.drop).
local MAIL = { types = { human_message = true, steer = true, interrupt = true }, unindex = function() end }
local function addr_member(to, seq) return to .. " " .. string.format("%012d", seq) end
-- One past the last member of an addressee: ":" sorts after every digit.
local function addr_end(to) return "(" .. to .. " :" end
local function ensure_index()
  if META[3] == "1" then return end
  local all = redis.call("HGETALL", K_EVENT_IDX)
  for i = 1, #all, 2 do
    local sp = string.find(all[i + 1], " ", 1, true)
    W("ZADD", K_EVENT_ADDR, 0, addr_member(string.sub(all[i + 1], sp + 1), tonumber(all[i])))
  end
  W("HSET", K_META, "addr_v", "1")
  META[3] = "1"
end

-- The last seq retention trimmed (0: none).
function TRIM.seq() return tonumber(redis.call("HGET", K_META, "trim_seq")) or 0 end
-- The oldest kept seq after a trim, as results report it, or nil when nothing was trimmed.
function TRIM.before() local t = TRIM.seq() if t > 0 then return t + 1 end return nil end
-- Trims what retention allows now that event head was appended (never head itself).
function TRIM.run(head)
  if TRIM.max == 0 and TRIM.ms == 0 then return end
  local from = TRIM.seq()
  local last, indexed, agents = from, 0, nil
  while last < head - 1 and last - from < ${TRIM_PER_APPEND} do
    local s = last + 1
    local x = redis.call("HGET", K_EVENT_IDX, s)
    if not x then break end
    local sp = string.find(x, " ", 1, true)
    local ms, to = tonumber(string.sub(x, 1, sp - 1)), string.sub(x, sp + 1)
    if not ((TRIM.max > 0 and head - s >= TRIM.max) or (TRIM.ms > 0 and ms < NOW - TRIM.ms)) then break end
    local doc = "evt-" .. num(s)
    local searchable = redis.call("HEXISTS", K_SEARCH_FIELDS, doc) == 1
    if searchable and indexed >= ${TRIM_INDEXED_PER_APPEND} then break end
    local ev = redis.call("HGET", K_EVENTS, s) or ""
    local etype = string.match(ev, '^{"id":"evt%-%d+","seq":%d+,"type":"([%w_]+)"')
    if searchable then
      indexed = indexed + 1
      MAIL.unindex(doc)
    end
    if MAIL.types[etype] then redis.call("ZREM", K_MAILBOX, etype .. " " .. addr_member(to, s)) end
    if etype == "context_available" or etype == "context_updated" then
      agents = agents or redis.call("HKEYS", K_CURSORS)
      for _, agent in ipairs(agents) do redis.call("HDEL", K_CTX_READS, num(s) .. " " .. agent) end
    end
    redis.call("HDEL", K_EVENTS, s)
    redis.call("HDEL", K_EVENT_IDX, s)
    redis.call("HDEL", K_EVENT_READS, s)
    redis.call("HDEL", K_POSTED, s)
    redis.call("ZREM", K_EVENT_ADDR, addr_member(to, s))
    last = s
  end
  if last > from then W("HSET", K_META, "trim_seq", last) end
end

local function event_seq_of(id)
  local seq = string.match(id, "^evt%-(%d+)$")
  if seq and redis.call("HEXISTS", K_EVENTS, seq) == 1 then return seq end
  return nil
end
local function append_event(etype, from, to, payload, reply_to)
  ensure_index()
  local seq = W("HINCRBY", K_META, "event_seq", 1)
  local e = '{"id":"evt-' .. num(seq) .. '","seq":' .. num(seq) .. ',"type":' .. str(etype) .. ',"from":' .. str(from)
    .. ',"to":' .. str(to) .. ',"payload":' .. payload .. ',"timestamp":' .. str(NOW_ISO)
  if reply_to then e = e .. ',"reply_to_id":' .. str(reply_to) end
  e = e .. '}'
  W("HSET", K_EVENTS, seq, e)
  W("HSET", K_EVENT_IDX, seq, num(NOW) .. " " .. to)
  W("ZADD", K_EVENT_ADDR, 0, addr_member(to, seq))
  WH.enqueue(seq, etype)
  if MAIL.types[etype] then W("ZADD", K_MAILBOX, 0, etype .. " " .. addr_member(to, seq)) end
  TRIM.run(seq)
  publish(num(seq))
  return e
end
-- Seqs of up to limit events of this type addressed to "to" after seq "after", ascending.
function MAIL.range(etype, to, after, limit)
  local prefix = etype .. " " .. to .. " "
  local members = redis.call("ZRANGEBYLEX", K_MAILBOX, "(" .. prefix .. string.format("%012d", after), "(" .. prefix .. ":", "LIMIT", 0, limit)
  for i = 1, #members do members[i] = tonumber(string.sub(members[i], #prefix + 1)) end
  return members
end
-- The first limit seqs of two ascending lists (events to all and to one agent: no seq is in both), ascending.
function MAIL.merge(a, b, limit)
  local picked, i, j = {}, 1, 1
  while #picked < limit and (i <= #a or j <= #b) do
    if j > #b or (i <= #a and a[i] < b[j]) then
      picked[#picked + 1] = a[i]
      i = i + 1
    else
      picked[#picked + 1] = b[j]
      j = j + 1
    end
  end
  return picked
end
-- Takes up to limit events of this type waiting for the agent (to it or to all) after its mark — for messages also
-- after its cursor, which delivered them already; in a fork, after its copied prefix, which was meant for the
-- source's agents — and moves the mark past them. Returns their seqs, ascending.
function MAIL.take(etype, agent, limit)
  local mark = etype .. " " .. agent
  local after = tonumber(redis.call("HGET", K_MARKS, mark)) or 0
  local forked = redis.call("HGET", K_META, "forked_from")
  if forked then after = math.max(after, cjson.decode(forked).seq) end
  if etype == "human_message" then after = math.max(after, tonumber(redis.call("HGET", K_CURSORS, agent)) or 0) end
  local picked = MAIL.merge(MAIL.range(etype, "all", after, limit),
    agent ~= "all" and MAIL.range(etype, agent, after, limit) or {}, limit)
  if #picked > 0 then W("HSET", K_MARKS, mark, picked[#picked]) end
  return picked
end
-- The stored events of the given seqs as a JSON array.
function MAIL.events(seqs)
  if #seqs == 0 then return "[]" end
  return "[" .. table.concat(redis.call("HMGET", K_EVENTS, unpack(seqs)), ",") .. "]"
end
-- Events of the given seqs as [{"e": event, "r": read_by}], in the given order; evs: their stored JSON when the
-- caller already read it.
local function event_items(seqs, evs)
  if #seqs == 0 then return {} end
  evs = evs or redis.call("HMGET", K_EVENTS, unpack(seqs))
  local reads = redis.call("HMGET", K_EVENT_READS, unpack(seqs))
  local out = {}
  for i = 1, #seqs do out[i] = '{"e":' .. evs[i] .. ',"r":' .. (reads[i] or "[]") .. '}' end
  return out
end
local function events_json(seqs, evs) return "[" .. table.concat(event_items(seqs, evs), ",") .. "]" end
local function idx_parts(v)
  local sp = string.find(v, " ", 1, true)
  return tonumber(string.sub(v, 1, sp - 1)), string.sub(v, sp + 1)
end
-- Seqs of up to limit events addressed to "to" after seq "after", ascending.
local function addressed(to, after, limit)
  local members = redis.call("ZRANGEBYLEX", K_EVENT_ADDR, "(" .. addr_member(to, after), addr_end(to), "LIMIT", 0, limit)
  for i = 1, #members do members[i] = tonumber(string.sub(members[i], #to + 2)) end
  return members
end
local function addressed_count(to, after)
  return redis.call("ZLEXCOUNT", K_EVENT_ADDR, "(" .. addr_member(to, after), addr_end(to))
end
-- When context events reach an agent (the analytics time contract reads): the first delivery of each, kept in
-- ctx_reads as "<seq> <agent>" → ms. The type is read from the event's header, before its payload.
local function note_reads(agent, seqs, evs)
  if #seqs == 0 then return end
  for i = 1, #seqs do
    if evs[i] and string.find(evs[i], '^{"id":"evt%-%d+","seq":%d+,"type":"context_[au][vp]') then
      W("HSETNX", K_CTX_READS, num(seqs[i]) .. " " .. agent, num(NOW))
    end
  end
end
-- Delivers up to limit events addressed to "all" or the agent after its cursor (two index ranges merged by
-- seq), moves the cursor to the last one, and counts what is left. One script, so delivery is exactly once.
-- Returns the batch {events, cursor, remaining, trimmedBefore?} in pieces (PRELUDE ok_pieces) and the count.
local function consume(agent, limit)
  ensure_index()
  local cursor = tonumber(redis.call("HGET", K_CURSORS, agent))
  local after = cursor or 0
  local picked = MAIL.merge(addressed("all", after, limit), agent ~= "all" and addressed(agent, after, limit) or {},
    limit)
  -- The delivered events, read once for the context-read marks and the reply.
  local evs = #picked > 0 and redis.call("HMGET", K_EVENTS, unpack(picked)) or {}
  if #picked > 0 then
    cursor = picked[#picked]
    W("HSET", K_CURSORS, agent, cursor)
    note_reads(agent, picked, evs)
  end
  local last = cursor or 0
  local remaining = addressed_count("all", last) + (agent ~= "all" and addressed_count(agent, last) or 0)
  -- A cursor that was behind the trimmed range carried on from the oldest kept event: say so.
  local trimmed = after < TRIM.seq() and (',"trimmedBefore":' .. num(TRIM.seq() + 1)) or ""
  return { '{"events":[', event_items(picked, evs), '],"cursor":' .. (cursor and num(cursor) or "null")
    .. ',"remaining":' .. num(remaining) .. trimmed .. '}' }, #picked
end
`;
