/**
 * Lua of the context operations (each is prepended with PRELUDE). An entry is stored as its JSON without the
 * payload (in ctx) plus the payload verbatim (in ctx_payload); replies pair them as {"m": entry, "p": payload}.
 */
import type { JsonObject } from "../../protocol/records.ts";
import type { ContextVersion } from "../types.ts";
import type { SearchTerms, StoredEntry } from "./records.ts";
import { arg, returns, script } from "./script-decl.ts";

/**
 * The context entries by type and by author (K_CTX_BY), so a filtered list_context reads only the entries it
 * returns: one member "t<type as JSON> <id>" and one "a<author as JSON> <id>" per entry (score 0; a filter is the lex
 * range of its prefix). It is valid while meta ctx_by_v is "1": write, update and delete keep it; a room without it
 * (written before it existed, or filled by a seed, a fork or an import) gets it built by its first filtered list.
 */
const CTX_BY = `
local CTX_BY = {}
function CTX_BY.ready() return redis.call("HGET", K_META, "ctx_by_v") == "1" end
function CTX_BY.member(kind, value, id) return kind .. str(value) .. " " .. id end
function CTX_BY.add(id, ctype, author)
  W("ZADD", K_CTX_BY, 0, CTX_BY.member("t", ctype, id), 0, CTX_BY.member("a", author, id))
end
function CTX_BY.build()
  redis.call("DEL", K_CTX_BY)
  local all = redis.call("HGETALL", K_CTX)
  for i = 1, #all, 2 do
    local m = cjson.decode(all[i + 1])
    CTX_BY.add(all[i], m.type, m.author)
  end
  W("HSET", K_META, "ctx_by_v", "1")
end
-- Ids of the entries whose type ("t") or author ("a") is value.
function CTX_BY.ids(kind, value)
  local prefix = kind .. str(value) .. " "
  local members = redis.call("ZRANGEBYLEX", K_CTX_BY, "[" .. prefix, "(" .. prefix .. "\\255")
  for i = 1, #members do members[i] = string.sub(members[i], #prefix + 1) end
  return members
end
`;

/**
 * The rules of a context write (protocol/context-rules.ts checkContextVersion, the version revisedContextEntry
 * gives, and addressee, which lua-rooms.test.ts runs beside them on generated cases).
 */
export const CTX_RULES = `
-- An expected version ("" expects none) other than the entry's.
local function ctx_version_refused(m, expected)
  if expected ~= "" and expected ~= m.version then
    return '{"err":"contextVersion","id":' .. str(m.id) .. ',"version":' .. str(m.version) .. ',"author":'
      .. str(m.author) .. '}'
  end
  return nil
end
-- The version after "1.N": "1.<N + 1>" (the minor number counts updates).
local function next_version(v)
  local major, minor = string.match(v, "^(%d+)%.(%d+)$")
  return major .. "." .. num(tonumber(minor) + 1)
end
-- A context event goes to the one consumer, to "all" for several, to nobody (nil) for none.
local function addressee(agents)
  if #agents == 0 then return nil end
  return #agents == 1 and agents[1] or "all"
end
`;

/** Lua helpers of the context scripts: entry JSON, context event, change counter. */
const CONTEXT_HELPERS = `${CTX_BY}${CTX_RULES}
local function entry_json(m, agents_json)
  return '{"id":' .. str(m.id) .. ',"type":' .. str(m.type) .. ',"author":' .. str(m.author)
    .. ',"timestamp":' .. str(m.timestamp) .. ',"summary":' .. str(m.summary)
    .. ',"consuming_agents":' .. agents_json .. ',"version":' .. str(m.version) .. '}'
end
-- One consumer gets the event addressed to it; several get it addressed to "all"; none get no event.
local function notify(etype, author, agents, payload)
  local to = addressee(agents)
  if to then append_event(etype, author, to, payload) end
end
local function changed(id)
  W("ZADD", K_CTX_CHANGES, W("HINCRBY", K_META, "ctx_seq", 1), id)
end
-- The log head at which the entry's new version became current (forks rebuild context at any seq); the list is
-- aligned to the end of the entry's versions, so entries written before it was kept have nulls in front.
local function placed(id)
  local head = redis.call("HGET", K_META, "event_seq") or "0"
  local old = redis.call("HGET", K_CTX_SEQS, id)
  W("HSET", K_CTX_SEQS, id, old and (string.sub(old, 1, -2) .. "," .. num(head) .. "]") or ("[" .. num(head) .. "]"))
end
`;

/** writeContext. Replies {ok: {m, p}}. */
export const WRITE_CONTEXT = script({
  args: {
    ctype: arg.text, // context type
    author: arg.text, // author
    summary: arg.text, // summary
    agentsJson: arg.jsonText<string[]>(), // consuming_agents
    payload: arg.jsonText<JsonObject>(), // payload, validated by the caller, kept verbatim
    terms: arg.json<SearchTerms>(), // search terms {summary: {token: count}, payload: {…}}
  },
  reply: returns<StoredEntry>(),
  body: `${CONTEXT_HELPERS}
if not OWNED and not CLAIM_OK then return CLAIM end
local id = "ctx-" .. num(W("HINCRBY", K_META, "ctx_n", 1))
local entry = entry_json({ id = id, type = ctype, author = author, timestamp = NOW_ISO, summary = summary,
  version = "1.0" }, agents_json)
W("HSET", K_CTX, id, entry)
W("HSET", K_CTX_PAYLOAD, id, payload)
if CTX_BY.ready() then CTX_BY.add(id, ctype, author) end
IX.put(id, terms)
changed(id)
notify("context_available", author, cjson.decode(agents_json), '{"contextId":' .. str(id) .. ',"contextType":'
  .. str(ctype) .. ',"summary":' .. str(summary) .. ',"consuming_agents":' .. agents_json .. '}')
placed(id)
commit()
return ok('{"m":' .. entry .. ',"p":' .. payload .. '}')
`,
});

/** readContext. Replies {ok: {m, p}} or {err: "contextNotFound"}. */
export const READ_CONTEXT = script({
  args: {
    id: arg.text, // context id
  },
  reply: returns<StoredEntry>(),
  body: `
local entry = OWNED and redis.call("HGET", K_CTX, id)
if not entry then return '{"err":"contextNotFound","id":' .. str(id) .. '}' end
return ok('{"m":' .. entry .. ',"p":' .. redis.call("HGET", K_CTX_PAYLOAD, id) .. '}')
`,
});

/** contextHistory. Replies {ok: [ContextVersion…]} oldest first, or {err: "contextNotFound"}. */
export const CONTEXT_HISTORY = script({
  args: {
    id: arg.text, // context id
  },
  reply: returns<ContextVersion[]>(),
  body: `
if not (OWNED and redis.call("HEXISTS", K_CTX, id) == 1) then
  return '{"err":"contextNotFound","id":' .. str(id) .. '}'
end
return ok(redis.call("HGET", K_CTX_HIST, id) or "[]")
`,
});

/**
 * listContext. Replies {ok: [{m, p}…]} (unordered; sorted in TS). With a type or author filter it reads only the
 * entries the index (CTX_BY) lists for it, and checks each against both filters.
 */
export const LIST_CONTEXT = script({
  args: {
    ctype: arg.textOrEmpty, // exact type to keep, "" for any
    author: arg.textOrEmpty, // exact current author to keep, "" for any
  },
  reply: returns<StoredEntry[]>(),
  body: `${CTX_BY}
if not OWNED then return ok("[]") end
local ids, entries = {}, {}
if ctype == "" and author == "" then
  local all = redis.call("HGETALL", K_CTX)
  for i = 1, #all, 2 do
    ids[#ids + 1] = all[i]
    entries[#entries + 1] = all[i + 1]
  end
else
  if not CTX_BY.ready() then CTX_BY.build() end
  local listed = ctype ~= "" and CTX_BY.ids("t", ctype) or CTX_BY.ids("a", author)
  local raws = #listed > 0 and redis.call("HMGET", K_CTX, unpack(listed)) or {}
  for i = 1, #listed do
    local m = raws[i] and cjson.decode(raws[i])
    if m and (ctype == "" or m.type == ctype) and (author == "" or m.author == author) then
      ids[#ids + 1] = listed[i]
      entries[#entries + 1] = raws[i]
    end
  end
end
local out = {}
if #ids > 0 then
  local payloads = redis.call("HMGET", K_CTX_PAYLOAD, unpack(ids))
  for i = 1, #ids do out[i] = '{"m":' .. entries[i] .. ',"p":' .. payloads[i] .. '}' end
end
return ok_pieces({ "[", out, "]" })
`,
});

/**
 * updateContext. Replies {ok: {m, p}} or {err: "contextNotFound" | "contextVersion" | "payload"}; "payload"
 * carries the entry's type so TS can produce validatePayload's exact message.
 */
export const UPDATE_CONTEXT = script({
  args: {
    id: arg.text, // context id
    author: arg.text, // the updater, new author
    fields: arg.json<{ summary?: string; consuming_agents?: string[] }>(), // the changes to apply
    payload: arg.maybeJsonText<JsonObject>(), // the new payload, "" to keep the current one
    validFor: arg.text, // " "-separated context types the new payload is valid for (when given)
    expected: arg.textOrEmpty, // expected version "1.N", "" for any
    terms: arg.maybeJson<SearchTerms>(), // search terms of the changed summary or payload (none: neither)
  },
  reply: returns<StoredEntry>(),
  body: `${CONTEXT_HELPERS}
local raw = OWNED and redis.call("HGET", K_CTX, id)
if not raw then return '{"err":"contextNotFound","id":' .. str(id) .. '}' end
local m = cjson.decode(raw)
local stale = ctx_version_refused(m, expected)
if stale then return stale end
if payload ~= "" and not string.find(" " .. valid_for .. " ", " " .. m.type .. " ", 1, true) then
  return '{"err":"payload","type":' .. str(m.type) .. '}'
end
local old_payload = redis.call("HGET", K_CTX_PAYLOAD, id)
local earlier = '{"author":' .. str(m.author) .. ',"timestamp":' .. str(m.timestamp) .. ',"summary":'
  .. str(m.summary) .. ',"consuming_agents":' .. strs(m.consuming_agents) .. ',"payload":' .. old_payload
  .. ',"version":' .. str(m.version) .. '}'
local hist = redis.call("HGET", K_CTX_HIST, id)
W("HSET", K_CTX_HIST, id, hist and (string.sub(hist, 1, -2) .. "," .. earlier .. "]") or ("[" .. earlier .. "]"))
local f = fields
if f.summary ~= nil then m.summary = f.summary end
if f.consuming_agents ~= nil then m.consuming_agents = f.consuming_agents end
local previous = m.version
m.version = next_version(previous)
if m.author ~= author and CTX_BY.ready() then
  redis.call("ZREM", K_CTX_BY, CTX_BY.member("a", m.author, id))
  CTX_BY.add(id, m.type, author)
end
m.author = author
m.timestamp = NOW_ISO
local entry = entry_json(m, strs(m.consuming_agents))
if payload == "" then payload = old_payload end
W("HSET", K_CTX, id, entry)
W("HSET", K_CTX_PAYLOAD, id, payload)
if terms then IX.put(id, terms) end
changed(id)
notify("context_updated", author, m.consuming_agents, '{"contextId":' .. str(id) .. ',"contextType":'
  .. str(m.type) .. ',"summary":' .. str(m.summary) .. ',"previousVersion":' .. str(previous)
  .. ',"version":' .. str(m.version) .. ',"consuming_agents":' .. strs(m.consuming_agents) .. '}')
placed(id)
commit()
return ok('{"m":' .. entry .. ',"p":' .. payload .. '}')
`,
});

/**
 * deleteContext: the entry, its payload and history, out of the index. Replies {ok: {m, p}} (as it was) or
 * {err: "contextNotFound" | "contextVersion"}.
 */
export const DELETE_CONTEXT = script({
  args: {
    id: arg.text, // context id
    agent: arg.text, // who deletes it (the event's from)
    expected: arg.textOrEmpty, // expected version "1.N", "" for any
  },
  reply: returns<StoredEntry>(),
  body: `${CTX_BY}${CTX_RULES}
local raw = OWNED and redis.call("HGET", K_CTX, id)
if not raw then return '{"err":"contextNotFound","id":' .. str(id) .. '}' end
local m = cjson.decode(raw)
local stale = ctx_version_refused(m, expected)
if stale then return stale end
local payload = redis.call("HGET", K_CTX_PAYLOAD, id)
redis.call("HDEL", K_CTX, id)
redis.call("HDEL", K_CTX_PAYLOAD, id)
redis.call("HDEL", K_CTX_HIST, id)
redis.call("ZREM", K_CTX_CHANGES, id)
if CTX_BY.ready() then
  redis.call("ZREM", K_CTX_BY, CTX_BY.member("t", m.type, id), CTX_BY.member("a", m.author, id))
end
IX.drop(id)
append_event("context_deleted", agent, addressee(m.consuming_agents) or "all", '{"contextId":' .. str(id)
  .. ',"entry":' .. string.sub(raw, 1, -2) .. ',"payload":' .. payload .. '}}')
commit()
return ok('{"m":' .. raw .. ',"p":' .. payload .. '}')
`,
});

/** contextVersions: the entry and its earlier versions at once. Replies {ok: {m, p, h}} or {err: "contextNotFound"}. */
export const CONTEXT_VERSIONS = script({
  args: {
    id: arg.text, // context id
  },
  reply: returns<StoredEntry & { h: ContextVersion[] }>(),
  body: `
local entry = OWNED and redis.call("HGET", K_CTX, id)
if not entry then return '{"err":"contextNotFound","id":' .. str(id) .. '}' end
return ok('{"m":' .. entry .. ',"p":' .. redis.call("HGET", K_CTX_PAYLOAD, id) .. ',"h":'
  .. (redis.call("HGET", K_CTX_HIST, id) or "[]") .. '}')
`,
});
