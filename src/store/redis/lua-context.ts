/**
 * Lua bodies of the context operations (each is prepended with PRELUDE). An entry is stored as its JSON without
 * the payload (in ctx) plus the payload verbatim (in ctx_payload); replies pair them as {"m": entry, "p": payload}.
 */

/** Lua helpers of the context scripts: entry JSON, context event, change counter. */
const CONTEXT_HELPERS = `
local function entry_json(m, agents_json)
  return '{"id":' .. str(m.id) .. ',"type":' .. str(m.type) .. ',"author":' .. str(m.author)
    .. ',"timestamp":' .. str(m.timestamp) .. ',"summary":' .. str(m.summary)
    .. ',"consuming_agents":' .. agents_json .. ',"version":' .. str(m.version) .. '}'
end
-- One consumer gets the event addressed to it; several get it addressed to "all"; none get no event.
local function notify(etype, author, agents, payload)
  if #agents == 0 then return end
  append_event(etype, author, #agents == 1 and agents[1] or "all", payload)
end
local function changed(id)
  W("ZADD", K_CTX_CHANGES, W("HINCRBY", K_META, "ctx_seq", 1), id)
end
-- The log head at which the entry's new version became current (forks rebuild context at any seq); the list is
-- aligned to the end of the entry's versions, so entries written before it was kept have nulls in front.
local function placed(id)
  local head = redis.call("HGET", K_META, "event_seq") or "0"
  local old = redis.call("HGET", K_CTX_SEQS, id)
  W("HSET", K_CTX_SEQS, id, old and (string.sub(old, 1, -2) .. "," .. head .. "]") or ("[" .. head .. "]"))
end
`;

/** writeContext. Replies {ok: {m, p}}. */
export const WRITE_CONTEXT = `${CONTEXT_HELPERS}
local ctype = ARGV[5]           -- context type
local author = ARGV[6]          -- author
local summary = ARGV[7]         -- summary
local agents_json = ARGV[8]     -- consuming_agents as a JSON array of strings
local payload = ARGV[9]         -- payload JSON, validated by the caller
local terms = ARGV[10]          -- search terms, JSON {summary: {token: count}, payload: {…}}
if not OWNED and not CLAIM_OK then return CLAIM end
local id = "ctx-" .. W("HINCRBY", K_META, "ctx_n", 1)
local entry = entry_json({ id = id, type = ctype, author = author, timestamp = NOW_ISO, summary = summary,
  version = "1.0" }, agents_json)
W("HSET", K_CTX, id, entry)
W("HSET", K_CTX_PAYLOAD, id, payload)
IX.put(id, cjson.decode(terms))
changed(id)
notify("context_available", author, cjson.decode(agents_json), '{"contextId":' .. str(id) .. ',"contextType":'
  .. str(ctype) .. ',"summary":' .. str(summary) .. ',"consuming_agents":' .. agents_json .. '}')
placed(id)
commit()
return ok('{"m":' .. entry .. ',"p":' .. payload .. '}')
`;

/** readContext. Replies {ok: {m, p}} or {err: "contextNotFound"}. */
export const READ_CONTEXT = `
local id = ARGV[5]              -- context id
local entry = OWNED and redis.call("HGET", K_CTX, id)
if not entry then return '{"err":"contextNotFound","id":' .. str(id) .. '}' end
return ok('{"m":' .. entry .. ',"p":' .. redis.call("HGET", K_CTX_PAYLOAD, id) .. '}')
`;

/** contextHistory. Replies {ok: [ContextVersion…]} oldest first, or {err: "contextNotFound"}. */
export const CONTEXT_HISTORY = `
local id = ARGV[5]              -- context id
if not (OWNED and redis.call("HEXISTS", K_CTX, id) == 1) then
  return '{"err":"contextNotFound","id":' .. str(id) .. '}'
end
return ok(redis.call("HGET", K_CTX_HIST, id) or "[]")
`;

/** listContext. Replies {ok: [{m, p}…]} (unordered; sorted in TS). */
export const LIST_CONTEXT = `
local ctype = ARGV[5]           -- exact type to keep, "" for any
local author = ARGV[6]          -- exact current author to keep, "" for any
if not OWNED then return ok("[]") end
local all = redis.call("HGETALL", K_CTX)
local ids, entries = {}, {}
-- An entry whose text does not contain the filter's JSON string cannot match it, so only the entries that do are
-- decoded. Only for a value no JSON encoder escapes (no backslash in its encoding): then every writer encodes it
-- the same way.
local function needle(v)
  if v == "" then return nil end
  local enc = str(v)
  if string.find(enc, "\\\\", 1, true) then return nil end
  return enc
end
local must = needle(ctype) or needle(author)
for i = 1, #all, 2 do
  local m = (must == nil or string.find(all[i + 1], must, 1, true)) and cjson.decode(all[i + 1])
  if m and (ctype == "" or m.type == ctype) and (author == "" or m.author == author) then
    ids[#ids + 1] = all[i]
    entries[#entries + 1] = all[i + 1]
  end
end
local out = {}
if #ids > 0 then
  local payloads = redis.call("HMGET", K_CTX_PAYLOAD, unpack(ids))
  for i = 1, #ids do out[i] = '{"m":' .. entries[i] .. ',"p":' .. payloads[i] .. '}' end
end
return ok("[" .. table.concat(out, ",") .. "]")
`;

/**
 * updateContext. Replies {ok: {m, p}} or {err: "contextNotFound" | "contextVersion" | "payload"}; "payload"
 * carries the entry's type so TS can produce validatePayload's exact message.
 */
export const UPDATE_CONTEXT = `${CONTEXT_HELPERS}
local id = ARGV[5]              -- context id
local author = ARGV[6]          -- the updater, new author
local fields = ARGV[7]          -- JSON {summary?, consuming_agents?} to apply
local payload = ARGV[8]         -- new payload JSON, "" to keep the current one
local valid_for = ARGV[9]       -- " "-separated context types the new payload is valid for (when given)
local expected = ARGV[10]       -- expected version "1.N", "" for any
local terms = ARGV[11]          -- search terms of the changed summary/payload, JSON {field: {token: count}}, "" for none
local raw = OWNED and redis.call("HGET", K_CTX, id)
if not raw then return '{"err":"contextNotFound","id":' .. str(id) .. '}' end
local m = cjson.decode(raw)
if expected ~= "" and expected ~= m.version then
  return '{"err":"contextVersion","id":' .. str(id) .. ',"version":' .. str(m.version) .. ',"author":' .. str(m.author) .. '}'
end
if payload ~= "" and not string.find(" " .. valid_for .. " ", " " .. m.type .. " ", 1, true) then
  return '{"err":"payload","type":' .. str(m.type) .. '}'
end
local old_payload = redis.call("HGET", K_CTX_PAYLOAD, id)
local earlier = '{"author":' .. str(m.author) .. ',"timestamp":' .. str(m.timestamp) .. ',"summary":'
  .. str(m.summary) .. ',"consuming_agents":' .. strs(m.consuming_agents) .. ',"payload":' .. old_payload
  .. ',"version":' .. str(m.version) .. '}'
local hist = redis.call("HGET", K_CTX_HIST, id)
W("HSET", K_CTX_HIST, id, hist and (string.sub(hist, 1, -2) .. "," .. earlier .. "]") or ("[" .. earlier .. "]"))
local f = cjson.decode(fields)
if f.summary ~= nil then m.summary = f.summary end
if f.consuming_agents ~= nil then m.consuming_agents = f.consuming_agents end
local previous = m.version
local major, minor = string.match(previous, "^(%d+)%.(%d+)$")
m.version = major .. "." .. (tonumber(minor) + 1)
m.author = author
m.timestamp = NOW_ISO
local entry = entry_json(m, strs(m.consuming_agents))
if payload == "" then payload = old_payload end
W("HSET", K_CTX, id, entry)
W("HSET", K_CTX_PAYLOAD, id, payload)
if terms ~= "" then IX.put(id, cjson.decode(terms)) end
changed(id)
notify("context_updated", author, m.consuming_agents, '{"contextId":' .. str(id) .. ',"contextType":'
  .. str(m.type) .. ',"summary":' .. str(m.summary) .. ',"previousVersion":' .. str(previous)
  .. ',"version":' .. str(m.version) .. ',"consuming_agents":' .. strs(m.consuming_agents) .. '}')
placed(id)
commit()
return ok('{"m":' .. entry .. ',"p":' .. payload .. '}')
`;

/**
 * deleteContext: the entry, its payload and history, out of the index. Replies {ok: {m, p}} (as it was) or
 * {err: "contextNotFound" | "contextVersion"}.
 */
export const DELETE_CONTEXT = `
local id = ARGV[5]              -- context id
local agent = ARGV[6]           -- who deletes it (the event's from)
local expected = ARGV[7]        -- expected version "1.N", "" for any
local raw = OWNED and redis.call("HGET", K_CTX, id)
if not raw then return '{"err":"contextNotFound","id":' .. str(id) .. '}' end
local m = cjson.decode(raw)
if expected ~= "" and expected ~= m.version then
  return '{"err":"contextVersion","id":' .. str(id) .. ',"version":' .. str(m.version) .. ',"author":' .. str(m.author) .. '}'
end
local payload = redis.call("HGET", K_CTX_PAYLOAD, id)
redis.call("HDEL", K_CTX, id)
redis.call("HDEL", K_CTX_PAYLOAD, id)
redis.call("HDEL", K_CTX_HIST, id)
redis.call("ZREM", K_CTX_CHANGES, id)
IX.drop(id)
local agents = m.consuming_agents
append_event("context_deleted", agent, #agents == 1 and agents[1] or "all", '{"contextId":' .. str(id)
  .. ',"entry":' .. string.sub(raw, 1, -2) .. ',"payload":' .. payload .. '}}')
commit()
return ok('{"m":' .. raw .. ',"p":' .. payload .. '}')
`;

/** contextVersions: the entry and its earlier versions at once. Replies {ok: {m, p, h}} or {err: "contextNotFound"}. */
export const CONTEXT_VERSIONS = `
local id = ARGV[5]              -- context id
local entry = OWNED and redis.call("HGET", K_CTX, id)
if not entry then return '{"err":"contextNotFound","id":' .. str(id) .. '}' end
return ok('{"m":' .. entry .. ',"p":' .. redis.call("HGET", K_CTX_PAYLOAD, id) .. ',"h":'
  .. (redis.call("HGET", K_CTX_HIST, id) or "[]") .. '}')
`;
