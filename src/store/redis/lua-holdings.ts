/**
 * Lua of what an agent holds — task leases and file claims — spliced into PRELUDE before seen(), which renews
 * them: every successful call naming the actor renews its live leases and claims in the same script. The index
 * K_HOLDINGS lists them per agent ("l:<agent>": "<task id> <lease ms>" per line; "c:<agent>": one path per
 * line; neither a task id nor a normalised path can hold a newline), so an agent holding nothing costs one HMGET.
 * Everything lives in one table, R, to keep the chunk's locals few (Lua 5.1 allows 200).
 */

/**
 * ISO 8601 (UTC, milliseconds, as JS toISOString) of a time in ms, for expiries computed inside a script: days
 * to a civil date by Howard Hinnant's algorithm. Checked against toISOString by lua-claims.test.ts.
 */
export const ISO_LUA = `
local function iso_of(ms)
  local s = math.floor(ms / 1000)
  local frac = ms - s * 1000
  local days = math.floor(s / 86400)
  local secs = s - days * 86400
  local z = days + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local d = doy - math.floor((153 * mp + 2) / 5) + 1
  local m = mp < 10 and mp + 3 or mp - 9
  local y = yoe + era * 400 + (m <= 2 and 1 or 0)
  return string.format("%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", y, m, d, math.floor(secs / 3600),
    math.floor(secs % 3600 / 60), secs % 60, frac)
end
`;

export const HOLDINGS = `${ISO_LUA}
local R = { iso = iso_of }
-- The items an agent holds of a kind ("l" leases, "c" claims), in the order first taken.
function R.items(kind, agent)
  local raw = redis.call("HGET", K_HOLDINGS, kind .. ":" .. agent)
  local out = {}
  if raw then for item in string.gmatch(raw, "[^\\n]+") do out[#out + 1] = item end end
  return out
end
function R.store(kind, agent, items)
  if #items == 0 then redis.call("HDEL", K_HOLDINGS, kind .. ":" .. agent)
  else W("HSET", K_HOLDINGS, kind .. ":" .. agent, table.concat(items, "\\n")) end
end
-- The key of an item: a lease's task id (before the space), a claim's whole path.
function R.key(kind, item)
  if kind == "l" then return string.match(item, "^(%S+)") end
  return item
end
-- Drops the item with this key from the agent's list (a no-op when absent).
function R.drop(kind, agent, key)
  local items, kept = R.items(kind, agent), {}
  for _, item in ipairs(items) do if R.key(kind, item) ~= key then kept[#kept + 1] = item end end
  if #kept ~= #items then R.store(kind, agent, kept) end
end
-- Appends (or replaces) an item.
function R.add(kind, agent, item)
  local key, kept, found = R.key(kind, item), {}, false
  for _, old in ipairs(R.items(kind, agent)) do
    if R.key(kind, old) == key then kept[#kept + 1] = item found = true else kept[#kept + 1] = old end
  end
  if not found then kept[#kept + 1] = item end
  R.store(kind, agent, kept)
end
function R.claim_json(c)
  return '{"agentId":' .. str(c.agentId) .. ',"expiresAt":' .. num(c.expiresAt) .. ',"ttl":' .. num(c.ttl)
    .. ',"claimedAt":' .. num(c.claimedAt) .. (c.reason and (',"reason":' .. str(c.reason)) or "") .. '}'
end
-- Sets a leased task's lease_expires_at (the JSON's last field, task_json in lua-plan.ts).
function R.with_lease(task, expires)
  return (string.gsub(task, ',"lease_expires_at":"[^"]*"}$', ',"lease_expires_at":"' .. R.iso(expires) .. '"}'))
end
-- Renews the agent's live leases and claims (expiry = NOW + their length), once per script. Ones that ran out
-- are left for the next write that records them.
function R.renew(agent)
  if R.renewed then return end
  R.renewed = true
  local held = redis.call("HMGET", K_HOLDINGS, "l:" .. agent, "c:" .. agent)
  if held[1] then
    for id, ms in string.gmatch(held[1], "(%S+) (%d+)") do
      local exp = tonumber(redis.call("ZSCORE", K_LEASES, id))
      local task = exp and exp > NOW and redis.call("HGET", K_TASKS, id)
      if task then
        local expires = NOW + tonumber(ms)
        W("HSET", K_TASKS, id, R.with_lease(task, expires))
        W("ZADD", K_LEASES, expires, id)
      end
    end
  end
  if held[2] then
    for path in string.gmatch(held[2], "[^\\n]+") do
      local raw = redis.call("HGET", K_CLAIMS, path)
      local c = raw and cjson.decode(raw)
      if c and c.agentId == agent and c.expiresAt > NOW then
        c.expiresAt = NOW + c.ttl
        W("HSET", K_CLAIMS, path, R.claim_json(c))
        W("ZADD", K_CLAIM_EXP, c.expiresAt, path)
      end
    end
  end
end
`;
