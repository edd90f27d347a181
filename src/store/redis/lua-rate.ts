/** The sliding-window rate limiter in Lua, shared by the team scripts and resolveInvite. */

/**
 * charge(key, limit, window): a sliding-window log in a zset, one member per admitted request scored by its
 * admission time (ms, from NOW). A request counts for exactly `window` ms: members scored at or before
 * NOW - window are dropped first. A refused request is not recorded. The key expires `window` ms after the last
 * admission, so an idle bucket costs nothing. Returns a RateDecision JSON. Needs NOW and num() in scope.
 */
export const RATE_LUA = `
local function charge(key, limit, window)
  redis.call("ZREMRANGEBYSCORE", key, "-inf", NOW - window)
  local n = redis.call("ZCARD", key)
  -- When the window is full it has room again once its oldest member leaves it; never report 0 then.
  local function reset_ms()
    local oldest = tonumber(redis.call("ZRANGE", key, 0, 0, "WITHSCORES")[2]) or NOW
    return math.max(1, oldest + window - NOW)
  end
  if n >= limit then
    return '{"allowed":false,"limit":' .. num(limit) .. ',"remaining":0,"resetMs":' .. num(reset_ms()) .. '}'
  end
  -- Members are "<now>:<seq>", unique even when many requests share one instant: the first seq from n not taken
  -- (ZADD NX adds nothing, answering 0, for a member already there).
  local seq = n
  while redis.call("ZADD", key, "NX", NOW, num(NOW) .. ":" .. seq) == 0 do seq = seq + 1 end
  redis.call("PEXPIRE", key, window)
  local remaining = limit - n - 1
  return '{"allowed":true,"limit":' .. num(limit) .. ',"remaining":' .. num(remaining) .. ',"resetMs":'
    .. (remaining > 0 and "0" or num(reset_ms())) .. '}'
end
-- The reset of a full window: when its oldest member leaves it (never 0).
local function window_reset(key, window)
  local oldest = tonumber(redis.call("ZRANGE", key, 0, 0, "WITHSCORES")[2]) or NOW
  return math.max(1, oldest + window - NOW)
end
-- Records one admitted request in a window holding n members (members as charge() makes them).
local function window_add(key, n, window)
  local seq = n
  while redis.call("ZADD", key, "NX", NOW, num(NOW) .. ":" .. seq) == 0 do seq = seq + 1 end
  redis.call("PEXPIRE", key, window)
end
-- charge_pair: one request charged to the team's window (key) and its agent's (agent_key), both or neither, by the
-- rule of src/protocol/rate-pair.ts: the team's full window refuses first, then the agent's; refused, neither
-- records it ("spent" says whose); admitted, the answer is the window with fewer requests left (the agent's on a
-- tie).
local function charge_pair(key, agent_key, limit, agent_limit, window)
  redis.call("ZREMRANGEBYSCORE", key, "-inf", NOW - window)
  redis.call("ZREMRANGEBYSCORE", agent_key, "-inf", NOW - window)
  local n = redis.call("ZCARD", key)
  local m = redis.call("ZCARD", agent_key)
  if n >= limit or m >= agent_limit then
    local team = n >= limit
    return '{"allowed":false,"spent":"' .. (team and "team" or "agent") .. '","limit":'
      .. num(team and limit or agent_limit) .. ',"remaining":0,"resetMs":'
      .. num(window_reset(team and key or agent_key, window)) .. '}'
  end
  window_add(key, n, window)
  window_add(agent_key, m, window)
  local shown_key, shown_limit, shown_n = agent_key, agent_limit, m
  if limit - n < agent_limit - m then shown_key, shown_limit, shown_n = key, limit, n end
  local remaining = shown_limit - shown_n - 1
  return '{"allowed":true,"limit":' .. num(shown_limit) .. ',"remaining":' .. num(remaining) .. ',"resetMs":'
    .. (remaining > 0 and "0" or num(window_reset(shown_key, window))) .. '}'
end
`;
