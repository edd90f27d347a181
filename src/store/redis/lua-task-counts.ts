/**
 * The room's task counts by status, inlined into the views (lua-views.ts ROOM_STATS, ROOM_SUMMARY) and
 * get_room_info (lua-driver.ts ROOM_DETAILS). Kept apart from the script bodies (scripts.ts turns every export of a
 * lua-*.ts body module into a script).
 */

/**
 * Counts of the room's tasks by status: kept in meta (n_<status>) by the plan scripts, so O(1); counted from the
 * tasks only for a room whose plan has not been written since counts were kept (flag counted). Leases that ran
 * out but are not recorded yet count as pending, as reads show them. Sets by_status (only the statuses seen) and
 * task_count.
 */
export const TASK_COUNTS = `
local by_status = {}
local task_count = 0
if META[4] == "1" then
  local n = redis.call("HMGET", K_META, "n_pending", "n_in_progress", "n_done", "n_blocked")
  by_status = { pending = tonumber(n[1]) or 0, in_progress = tonumber(n[2]) or 0, done = tonumber(n[3]) or 0,
    blocked = tonumber(n[4]) or 0 }
  task_count = by_status.pending + by_status.in_progress + by_status.done + by_status.blocked
else
  for _, raw in ipairs(redis.call("HVALS", K_TASKS)) do
    local status = cjson.decode(raw).status
    by_status[status] = (by_status[status] or 0) + 1
    task_count = task_count + 1
  end
end
-- Leases that ran out but are not recorded yet: those tasks already read as pending (protocol/leases.ts).
for _, id in ipairs(redis.call("ZRANGEBYSCORE", K_LEASES, "-inf", NOW)) do
  local raw = redis.call("HGET", K_TASKS, id)
  local t = raw and cjson.decode(raw)
  if t and t.lease_expires_at then
    by_status[t.status] = (by_status[t.status] or 0) - 1
    by_status.pending = (by_status.pending or 0) + 1
  end
end
`;
