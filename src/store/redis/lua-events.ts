/**
 * Lua of the event operations (each is prepended with PRELUDE). Events are listed as
 * [{"e": event without read_by, "r": read_by}], which TS turns into RoomEvents.
 */
import type { JsonObject, RoomEvent } from "../../protocol/records.ts";
import type { SearchTerms, StoredEvent } from "./records.ts";
import { arg, returns, script } from "./script-decl.ts";

/** What a batch of consumed events answers (consume in lua-log.ts). */
export interface StoredBatch {
  events: StoredEvent[];
  cursor: number | null;
  remaining: number;
  trimmedBefore?: number;
}

/** postEvent. Replies {ok: event} or {err: "eventNotFound"} for an unknown replyToId. */
export const POST_EVENT = script({
  args: {
    etype: arg.text, // event type
    from: arg.text, // sender
    to: arg.text, // addressee or "all"
    payload: arg.jsonText<JsonObject>(), // payload, spliced verbatim
    replyTo: arg.textOrEmpty, // id of the event replied to, "" for none
    terms: arg.json<SearchTerms>(), // search terms {type: {token: count}, payload: {…}}
  },
  reply: returns<Omit<RoomEvent, "read_by">>(),
  body: `
if reply_to ~= "" and not (OWNED and event_seq_of(reply_to)) then
  return '{"err":"eventNotFound","id":' .. str(reply_to) .. '}'
end
if not OWNED and not CLAIM_OK then return CLAIM end
local e = append_event(etype, from, to, payload, optional(reply_to))
-- Posted by an agent: deletable (delete_event) and searchable.
local seq = redis.call("HGET", K_META, "event_seq")
W("HSET", K_POSTED, seq, "1")
IX.put("evt-" .. seq, terms)
commit()
return ok(e)
`,
});

/**
 * readEvents: walks down from the newest matching seq, never below the trimmed range. Replies {ok: {events: [{e,
 * r}…] newest first, trimmedBefore?}} (trimmedBefore when the range asked for reaches below the oldest kept event).
 */
export const READ_EVENTS = script({
  args: {
    sinceSeq: arg.number, // only seq > this (0 for all)
    sinceMs: arg.maybeNumber, // only timestamp ms > this (none for any)
    beforeSeq: arg.maybeNumber, // only seq < this (none for any)
    limit: arg.number, // max events
  },
  reply: returns<{ events: StoredEvent[]; trimmedBefore?: number }>(),
  body: `
if not OWNED then return ok('{"events":[]}') end
local top = tonumber(redis.call("HGET", K_META, "event_seq")) or 0
if before_seq then top = math.min(top, before_seq - 1) end
local trimmed = TRIM.seq()
-- The log holds every seq from the trim to the head, so no walk down needs more seqs than it holds events: that
-- bounds the walk by a count, whatever the numbers in meta say.
local floor = math.max(since_seq, trimmed, top - redis.call("HLEN", K_EVENT_IDX))
local picked = {}
local high = top
while high > floor and #picked < limit do
  local low = math.max(high - 199, floor + 1)
  local seqs = {}
  for s = high, low, -1 do seqs[#seqs + 1] = s end
  local idx = redis.call("HMGET", K_EVENT_IDX, unpack(seqs))
  for i = 1, #seqs do
    if idx[i] and #picked < limit then
      local ms = idx_parts(idx[i])
      if not since_ms or ms > since_ms then picked[#picked + 1] = seqs[i] end
    end
  end
  high = low - 1
end
local note = since_seq < trimmed and (',"trimmedBefore":' .. num(trimmed + 1)) or ""
return ok('{"events":' .. events_json(picked) .. note .. '}')
`,
});

/**
 * consumeEvents. Replies {ok: {events: [{e, r}…], cursor, remaining}}. A consume that delivers nothing keeps
 * nothing under the idempotency key, so the key stays free for the retry that delivers.
 */
export const CONSUME_EVENTS = script({
  args: {
    agent: arg.text, // consuming agent
    limit: arg.number, // max events to deliver
  },
  reply: returns<StoredBatch>(),
  body: `
if not OWNED then return ok('{"events":[],"cursor":null,"remaining":0}') end
local batch, delivered = consume(agent, limit)
if delivered == 0 then IDEM_KEY = "" end
return ok_pieces(batch)
`,
});

/** readLog: up to limit events after a seq, oldest first, and the head. Replies {ok: {events: [{e, r}…], head, exists}}. */
export const READ_LOG = script({
  args: {
    after: arg.number, // only events with a larger seq
    limit: arg.number, // max events
  },
  reply: returns<{ events: StoredEvent[]; head: number; exists: boolean }>(),
  body: `
if not OWNED then return ok('{"events":[],"head":0,"exists":false}') end
local head = tonumber(redis.call("HGET", K_META, "event_seq")) or 0
-- After older than the oldest kept event: carry on from it.
local from = math.max(after, TRIM.seq())
local seqs = {}
for s = from + 1, math.min(head, from + limit) do seqs[#seqs + 1] = s end
return ok('{"events":' .. events_json(seqs) .. ',"head":' .. num(head) .. ',"exists":true}')
`,
});

/** markEventRead: adds the agent to read_by once. Replies {ok: true} or {err: "eventNotFound"}. */
export const MARK_EVENT_READ = script({
  args: {
    id: arg.text, // event id
    agent: arg.text, // reader
  },
  reply: returns<true>(),
  body: `
local seq = OWNED and event_seq_of(id)
if not seq then return '{"err":"eventNotFound","id":' .. str(id) .. '}' end
local raw = redis.call("HGET", K_EVENT_READS, seq)
local readers = raw and cjson.decode(raw) or {}
for _, r in ipairs(readers) do
  if r == agent then
    return ok("true")
  end
end
readers[#readers + 1] = agent
W("HSET", K_EVENT_READS, seq, strs(readers))
commit()
return ok("true")
`,
});

/** getEventReads. Replies {ok: [agent…]} or {err: "eventNotFound"}. */
export const GET_EVENT_READS = script({
  args: {
    id: arg.text, // event id
  },
  reply: returns<string[]>(),
  body: `
local seq = OWNED and event_seq_of(id)
if not seq then return '{"err":"eventNotFound","id":' .. str(id) .. '}' end
return ok(redis.call("HGET", K_EVENT_READS, seq) or "[]")
`,
});

/**
 * Who may delete an event (protocol/event-rules.ts checkEventDeletion, which lua-rooms.test.ts runs beside it on
 * generated cases): deletion_refused(e, posted, by, only) refuses roomd's own events, a person's event deleted by
 * anyone else, and with \`only\` ("" for any) another author's event.
 */
export const EVENT_RULES = `
local function deletion_refused(e, posted, by, only)
  if not posted then return '{"err":"roomdEvent","id":' .. str(e.id) .. ',"type":' .. str(e.type) .. '}' end
  if string.sub(e.from, 1, 6) == "human:" and e.from ~= by then
    return '{"err":"personsEvent","id":' .. str(e.id) .. ',"from":' .. str(e.from) .. '}'
  end
  if only ~= "" and e.from ~= only then
    return '{"err":"notAuthor","id":' .. str(e.id) .. ',"from":' .. str(e.from) .. '}'
  end
  return nil
end
`;

/**
 * deleteEvent: a posted event becomes a tombstone (same header, payload {}, "deleted" {by, at}), leaves the index,
 * and event_deleted is appended. Replies {ok: {e, r}} (the tombstone) or {err: "eventNotFound" | "roomdEvent" |
 * "notAuthor"}; a tombstone is answered as it is.
 */
export const DELETE_EVENT = script({
  args: {
    id: arg.text, // event id
    by: arg.text, // who deletes it
    only: arg.textOrEmpty, // when not "": only an event whose from is this agent may be deleted
  },
  reply: returns<StoredEvent>(),
  body: `${EVENT_RULES}
local seq = OWNED and event_seq_of(id)
if not seq then return '{"err":"eventNotFound","id":' .. str(id) .. '}' end
local raw = redis.call("HGET", K_EVENTS, seq)
local e = cjson.decode(raw)
local refused = deletion_refused(e, redis.call("HGET", K_POSTED, seq) == "1", by, only)
if refused then return refused end
local readers = redis.call("HGET", K_EVENT_READS, seq) or "[]"
if e.deleted then return ok('{"e":' .. raw .. ',"r":' .. readers .. '}') end
local tomb = '{"id":' .. str(e.id) .. ',"seq":' .. num(e.seq) .. ',"type":' .. str(e.type) .. ',"from":' .. str(e.from)
  .. ',"to":' .. str(e.to) .. ',"payload":{},"timestamp":' .. str(e.timestamp)
  .. (e.reply_to_id and (',"reply_to_id":' .. str(e.reply_to_id)) or "")
  .. ',"deleted":{"by":' .. str(by) .. ',"at":' .. str(NOW_ISO) .. '}}'
W("HSET", K_EVENTS, seq, tomb)
IX.drop(id)
-- A deleted person's message is never handed over by the bridge or the summary.
if MAIL.types[e.type] then redis.call("ZREM", K_MAILBOX, e.type .. " " .. addr_member(e.to, tonumber(seq))) end
append_event("event_deleted", by, "all", '{"eventId":' .. str(id) .. ',"seq":' .. num(e.seq) .. ',"type":'
  .. str(e.type) .. '}')
commit()
return ok('{"e":' .. tomb .. ',"r":' .. readers .. '}')
`,
});
