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
`;
