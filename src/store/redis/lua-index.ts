/**
 * Lua of the search index, shared by every room script that acts for a team (after PRELUDE and LOG): the write
 * scripts keep the index in their own script, so it is never out of step with the records.
 *
 * Per room: `search_post` holds one member "<token> <doc id> <count>" (score 0) per distinct token of each
 * document, so a token's postings are one lex range (ZRANGEBYLEX "[<token> " "(<token>!": tokens never contain a
 * space or a "!", and both sort below every token character); `search_len` the document's length in tokens;
 * `search_fields` its per-field counts, so a write that changes one field (a task's title) replaces that field
 * only; meta `search_tokens` the room's total length. Tokens are computed in TS (protocol/search.ts) and passed
 * as JSON {field: {token: count}}: Lua never tokenizes.
 *
 * Costs: indexing a document is O(t log n) for its t distinct tokens (changed ones only on a re-index), in the
 * write's own round trip. One local (IX) whatever the number of helpers, for Lua's 200-locals limit.
 */
export const INDEX = `
local IX = {}
-- A document's kind from its id (ids are minted: task-<n>, ctx-<n>, evt-<seq>).
function IX.kind(doc)
  if string.sub(doc, 1, 5) == "task-" then return "task" end
  if string.sub(doc, 1, 4) == "ctx-" then return "context" end
  return "event"
end
-- {field: {token: count}} → {token: count}, total length.
function IX.merge(fields)
  local tf, len = {}, 0
  for _, counts in pairs(fields) do
    for tok, n in pairs(counts) do
      tf[tok] = (tf[tok] or 0) + n
      len = len + n
    end
  end
  return tf, len
end
-- ZADD/ZREM in chunks (unpack has a limit).
function IX.batch(cmd, members)
  for i = 1, #members, 500 do
    local args = {}
    for j = i, math.min(i + 499, #members) do
      if cmd == "ZADD" then args[#args + 1] = 0 end
      args[#args + 1] = members[j]
    end
    if cmd == "ZADD" then W("ZADD", K_SEARCH_POST, unpack(args)) else redis.call("ZREM", K_SEARCH_POST, unpack(args)) end
  end
end
-- Indexes the given fields of a document (a table {field: {token: count}}), keeping its other fields.
function IX.put(doc, given)
  if next(given) == nil and redis.call("HEXISTS", K_SEARCH_LEN, doc) == 1 then return end
  local raw = redis.call("HGET", K_SEARCH_FIELDS, doc)
  local fields = raw and cjson.decode(raw) or {}
  local old_tf, old_len = IX.merge(fields)
  for name, counts in pairs(given) do fields[name] = counts end
  local tf, len = IX.merge(fields)
  local gone, added = {}, {}
  for tok, n in pairs(old_tf) do if tf[tok] ~= n then gone[#gone + 1] = tok .. " " .. doc .. " " .. n end end
  for tok, n in pairs(tf) do if old_tf[tok] ~= n then added[#added + 1] = tok .. " " .. doc .. " " .. n end end
  IX.batch("ZREM", gone)
  IX.batch("ZADD", added)
  W("HSET", K_SEARCH_FIELDS, doc, cjson.encode(fields))
  W("HSET", K_SEARCH_LEN, doc, len)
  W("HINCRBY", K_META, "search_tokens", len - old_len)
end
-- Removes a document from the index (absent: nothing).
function IX.drop(doc)
  local raw = redis.call("HGET", K_SEARCH_FIELDS, doc)
  if not raw then return end
  local tf, len = IX.merge(cjson.decode(raw))
  local gone = {}
  for tok, n in pairs(tf) do gone[#gone + 1] = tok .. " " .. doc .. " " .. n end
  IX.batch("ZREM", gone)
  redis.call("HDEL", K_SEARCH_FIELDS, doc)
  redis.call("HDEL", K_SEARCH_LEN, doc)
  W("HINCRBY", K_META, "search_tokens", -len)
end
-- Retention's trim (lua-log.ts TRIM) drops the documents of the posted events it trims.
MAIL.unindex = IX.drop
`;
