/**
 * Lua of reviews, search and the analytics read (each prepended with PRELUDE, LOG, INDEX and GUARD).
 */
import type { ContextEntry, Review, RoomEvent, Task } from "../../protocol/records.ts";
import type { StoredEntry, StoredEvent } from "./records.ts";
import { arg, returns, script } from "./script-decl.ts";

/** A search hit as SEARCH answers it: the document, its length and term counts, and its record. */
export interface StoredHit {
  id: string;
  len: number;
  tf: number[];
  r: Task | StoredEntry | StoredEvent;
}

/** An event of ANALYTICS_LOG: whole, or its header and time only. */
export type StoredLogEvent =
  | { e: Omit<RoomEvent, "read_by"> }
  | { h: Omit<RoomEvent, "read_by" | "payload" | "timestamp">; ms: number };

/**
 * The JSON of a review from its decoded fields (the builder's field order is the records' own), and the rule of a
 * decision (protocol/reviews.ts decidedReview, run beside it by lua-people.test.ts).
 */
export const REVIEW_JSON = `
local function review_json(r)
  return '{"id":' .. str(r.id) .. ',"status":' .. str(r.status) .. ',"requester":' .. str(r.requester)
    .. ',"reviewer":' .. str(r.reviewer) .. ',"subject":' .. str(r.subject) .. ',"details":' .. str(r.details)
    .. ',"task_id":' .. opt_str(val(r.task_id)) .. ',"context_id":' .. opt_str(val(r.context_id))
    .. ',"context_version":' .. opt_str(val(r.context_version)) .. ',"comment":' .. opt_str(val(r.comment))
    .. ',"created_at":' .. str(r.created_at) .. ',"decided_at":' .. opt_str(val(r.decided_at)) .. '}'
end
-- A decision by another agent than the reviewer, or on a review decided already.
local function review_refused(r, agent)
  if r.reviewer ~= agent then
    return '{"err":"notReviewer","id":' .. str(r.id) .. ',"reviewer":' .. str(r.reviewer) .. '}'
  end
  if r.status ~= "pending" then
    return '{"err":"reviewDecided","id":' .. str(r.id) .. ',"status":' .. str(r.status) .. ',"by":' .. str(r.reviewer)
      .. ',"at":' .. str(r.decided_at) .. '}'
  end
  return nil
end
`;

/** requestReview. Replies {ok: Review} or {err: "taskNotFound" | "contextNotFound"}. */
export const REQUEST_REVIEW = script({
  args: {
    requester: arg.text, // the requesting agent
    reviewer: arg.text, // the one agent who may decide
    subject: arg.text, // what to review, one line
    details: arg.text, // more about it ("" for none)
    taskId: arg.textOrEmpty, // task under review, "" for none
    ctxId: arg.textOrEmpty, // context entry under review, "" for none
  },
  reply: returns<Review>(),
  body: `${REVIEW_JSON}
if task_id ~= "" and not (OWNED and redis.call("HEXISTS", K_TASKS, task_id) == 1) then
  return '{"err":"taskNotFound","id":' .. str(task_id) .. '}'
end
local version = nil
if ctx_id ~= "" then
  local raw = OWNED and redis.call("HGET", K_CTX, ctx_id)
  if not raw then return '{"err":"contextNotFound","id":' .. str(ctx_id) .. '}' end
  version = cjson.decode(raw).version
end
if not OWNED and not CLAIM_OK then return CLAIM end
local id = "rev-" .. num(W("HINCRBY", K_META, "review_n", 1))
local review = review_json({ id = id, status = "pending", requester = requester, reviewer = reviewer,
  subject = subject, details = details, task_id = optional(task_id), context_id = optional(ctx_id),
  context_version = version, created_at = NOW_ISO })
W("HSET", K_REVIEWS, id, review)
append_event("review_requested", requester, reviewer, '{"review":' .. review .. '}')
commit()
return ok(review)
`,
});

/** decideReview. Replies {ok: Review} or {err: "reviewNotFound" | "notReviewer" | "reviewDecided"}. */
export const DECIDE_REVIEW = script({
  args: {
    id: arg.text, // review id
    agent: arg.text, // the deciding agent
    status: arg.text, // "approved" or "rejected"
    comment: arg.maybeText, // the comment, none for null
  },
  reply: returns<Review>(),
  body: `${REVIEW_JSON}
local raw = OWNED and redis.call("HGET", K_REVIEWS, id)
if not raw then return '{"err":"reviewNotFound","id":' .. str(id) .. '}' end
local r = cjson.decode(raw)
local refused = review_refused(r, agent)
if refused then return refused end
r.status = status
r.comment = comment
r.decided_at = NOW_ISO
local review = review_json(r)
W("HSET", K_REVIEWS, id, review)
append_event("review_decided", r.reviewer, r.requester, '{"review":' .. review .. '}')
commit()
return ok(review)
`,
});

/** listReviews. Replies {ok: [Review…]} (unordered; sorted and filtered in TS). */
export const LIST_REVIEWS = script({
  args: {},
  reply: returns<Review[]>(),
  body: `
if not OWNED then return ok("[]") end
return ok("[" .. table.concat(redis.call("HVALS", K_REVIEWS), ",") .. "]")
`,
});

/**
 * FTS5's bm25 of one document holding every query term, negated (higher is better), on the room's own statistics:
 * protocol/search.ts score, which lua-rooms.test.ts runs beside it on generated corpora. \`df\` and \`tf\` per term.
 */
export const SEARCH_SCORE = `
local function bm25(n, avgdl, df, tf, len)
  local s = 0
  for i = 1, #tf do
    local w = math.log((n - df[i] + 0.5) / (df[i] + 0.5))
    if w <= 0 then w = 1e-6 end
    s = s + w * (tf[i] * 2.2) / (tf[i] + 1.2 * (0.25 + 0.75 * len / avgdl))
  end
  return s
end
`;

/**
 * search: documents holding every term, scored with FTS5's bm25 formula on the room's own statistics and sorted
 * (score, then id); the best `limit` are returned with their records — plus any within 1e-9 (relative) of the
 * last one, so TS, which recomputes every score with protocol/search.ts, always has its own best `limit` even
 * where Lua's and JS's logarithms differ in the last bit. Replies {ok: {n, tokens, df: [..], hits: [{id, len,
 * tf: [..], r: record}]}} (record: Task, {m, p} or {e, r}). Cost: O(Σ postings of the terms + c log c) for c
 * candidates, plus the records of the returned hits.
 */
export const SEARCH = script({
  args: {
    terms: arg.json<string[]>(), // distinct tokens, every one must occur
    kinds: arg.text, // " task context event ": the kinds to return, space-delimited
    limit: arg.number, // hits wanted
  },
  reply: returns<{ n: number; tokens: number; df: number[]; hits: StoredHit[] }>(),
  body: `${SEARCH_SCORE}
if not OWNED or #terms == 0 then return ok('{"n":0,"tokens":0,"df":[],"hits":[]}') end
local n = redis.call("HLEN", K_SEARCH_LEN)
local tokens = tonumber(redis.call("HGET", K_META, "search_tokens")) or 0
local df, postings = {}, {}
for i, tok in ipairs(terms) do
  local members = redis.call("ZRANGEBYLEX", K_SEARCH_POST, "[" .. tok .. " ", "(" .. tok .. "!")
  local p = {}
  for _, m in ipairs(members) do
    local doc, count = string.match(m, " (%S+) (%d+)$")
    p[doc] = tonumber(count)
  end
  df[i] = #members
  postings[i] = p
end
local smallest = 1
for i = 2, #terms do if df[i] < df[smallest] then smallest = i end end
local cands = {}
for doc in pairs(postings[smallest]) do
  local all = string.find(kinds, " " .. IX.kind(doc) .. " ", 1, true) ~= nil
  for i = 1, #terms do
    if not all then break end
    all = postings[i][doc] ~= nil
  end
  if all then cands[#cands + 1] = { id = doc } end
end
local avgdl = n > 0 and tokens / n or 1
for i = 1, #cands, 500 do
  local ids = {}
  for j = i, math.min(i + 499, #cands) do ids[#ids + 1] = cands[j].id end
  local lens = redis.call("HMGET", K_SEARCH_LEN, unpack(ids))
  for j = 1, #ids do cands[i + j - 1].len = tonumber(lens[j]) or 0 end
end
for _, c in ipairs(cands) do
  c.tf = {}
  for i = 1, #terms do c.tf[i] = postings[i][c.id] end
  c.score = bm25(n, avgdl, df, c.tf, c.len)
end
table.sort(cands, function(a, b)
  if a.score ~= b.score then return a.score > b.score end
  return a.id < b.id
end)
local take = math.min(limit, #cands)
if take > 0 then
  local floor = cands[take].score - 1e-9 * math.max(1, math.abs(cands[take].score))
  while take < #cands and cands[take + 1].score >= floor do take = take + 1 end
end
local hits = {}
for k = 1, take do
  local c = cands[k]
  local kind, record = IX.kind(c.id), nil
  if kind == "task" then
    record = redis.call("HGET", K_TASKS, c.id)
  elseif kind == "context" then
    record = '{"m":' .. redis.call("HGET", K_CTX, c.id) .. ',"p":' .. redis.call("HGET", K_CTX_PAYLOAD, c.id) .. '}'
  else
    local seq = string.sub(c.id, 5)
    record = '{"e":' .. redis.call("HGET", K_EVENTS, seq) .. ',"r":[]}'
  end
  local tf = {}
  for i = 1, #terms do tf[i] = num(c.tf[i]) end
  hits[k] = '{"id":' .. str(c.id) .. ',"len":' .. num(c.len) .. ',"tf":[' .. table.concat(tf, ",") .. '],"r":' .. record .. '}'
end
local dfs = {}
for i = 1, #terms do dfs[i] = num(df[i]) end
return ok('{"n":' .. n .. ',"tokens":' .. num(tokens) .. ',"df":[' .. table.concat(dfs, ",") .. '],"hits":['
  .. table.concat(hits, ",") .. ']}')
`,
});

/**
 * analyticsLog, one page per call: the events of seqs `from`…`from + count - 1` that the room holds (payloads only
 * for task_* and context_* events, agent_left, agent_suspended and room_forked, the others cut before their payload like the room
 * summary's headers, with their time from event_idx), the log's head, and — on the page that reaches the head — the seqs of
 * events agents posted, the tasks, the context entries (without payloads) and the context deliveries, read at the
 * same instant as that last page, and where the next page starts. A page is bounded by `count`, so the read never holds the server for a whole
 * long log (tool-ops.ts pages through it). Replies {ok: {top, next, events: [{e: event} | {h: header, ms}…], last: null
 * | {posted: [seq…], tasks: [Task…], contexts: [entry…], reads: ["<seq> <agent>", ms, …]}}}.
 */
export const ANALYTICS_LOG = script({
  args: {
    from: arg.number, // the first seq of the page; 0 = from the oldest event the room holds
    count: arg.number, // seqs per page
  },
  reply: returns<{
    top: number;
    /** Where the next page starts. */
    next: number;
    events: StoredLogEvent[];
    last: null | {
      posted: number[];
      tasks: Task[];
      contexts: Omit<ContextEntry, "payload">[];
      reads: (string | number)[];
    };
  }>(),
  body: `
if not OWNED then return ok('{"top":0,"next":1,"events":[],"last":{"posted":[],"tasks":[],"contexts":[],"reads":[]}}') end
local top = tonumber(redis.call("HGET", K_META, "event_seq")) or 0
local out = {}
-- From the trim, or from as far down as the events the room holds reach (a count bound on the walk).
local low = math.max(from, TRIM.seq() + 1, top - redis.call("HLEN", K_EVENT_IDX) + 1)
local high = math.min(top, low + count - 1)
for page = low, high, 200 do
  local seqs = {}
  for s = page, math.min(high, page + 199) do seqs[#seqs + 1] = s end
  local evs = redis.call("HMGET", K_EVENTS, unpack(seqs))
  local idx = redis.call("HMGET", K_EVENT_IDX, unpack(seqs))
  for i = 1, #seqs do
    local ev = evs[i]
    if ev then
      if string.find(ev, '^{"id":"evt%-%d+","seq":%d+,"type":"task_') or string.find(ev, '^{"id":"evt%-%d+","seq":%d+,"type":"context_')
        or string.find(ev, '^{"id":"evt%-%d+","seq":%d+,"type":"agent_left"')
        or string.find(ev, '^{"id":"evt%-%d+","seq":%d+,"type":"agent_suspended"')
        or string.find(ev, '^{"id":"evt%-%d+","seq":%d+,"type":"room_forked"') then
        out[#out + 1] = '{"e":' .. ev .. '}'
      else
        local cut = string.find(ev, ',"payload":', 1, true)
        out[#out + 1] = '{"h":' .. string.sub(ev, 1, cut - 1) .. '},"ms":' .. num(idx_parts(idx[i])) .. '}'
      end
    end
  end
end
local last = "null"
if high >= top then
  local reads = redis.call("HGETALL", K_CTX_READS)
  for i = 1, #reads do reads[i] = str(reads[i]) end
  last = '{"posted":[' .. table.concat(redis.call("HKEYS", K_POSTED), ",")
    .. '],"tasks":[' .. table.concat(redis.call("HVALS", K_TASKS), ",")
    .. '],"contexts":[' .. table.concat(redis.call("HVALS", K_CTX), ",") .. '],"reads":[' .. table.concat(reads, ",")
    .. ']}'
end
return ok('{"top":' .. top .. ',"next":' .. (high + 1) .. ',"events":[' .. table.concat(out, ",") .. '],"last":' .. last .. '}')
`,
});
