/**
 * Lua of file claims (protocol/claims.ts), leave_room and the AgentRoom room state and broadcast (each body is
 * prepended with PRELUDE, LOG and GUARD). The conflict test — does some path match both patterns? — has to run
 * inside claim_files' script to be atomic, so GLOB ports protocol/path-glob.ts patternsOverlap to Lua 5.1 (the
 * port note there): lua-claims.test.ts runs both on the same random pattern pairs through a real Redis and
 * requires the same answers. The other reads return the live claims and TS computes check/list answers.
 */
import type { ClaimConflict } from "../../protocol/claims.ts";
import type { RoomEvent } from "../../protocol/records.ts";
import { PEOPLE_HELPERS } from "./lua-people-helpers.ts";
import { PLAN_HELPERS } from "./lua-plan.ts";
import type { StoredPresence } from "./records.ts";
import { arg, returns, script } from "./script-decl.ts";

/** A claim as LIST_CLAIMS returns it (times in ms). */
export interface StoredClaim {
  path: string;
  agentId: string;
  expiresAt: number;
  claimedAt: number;
  reason?: string;
}

/**
 * G.overlap(a, b): true when some concrete normalised path matches both normalised patterns — the product of
 * the two patterns' automata searched depth first, at the segment level (`**` skips or eats whole segments) and,
 * per pair of segments, at the code-point level (`*` skips or eats code points, `?` eats one; the name read so
 * far tracked as "", ".", ".." or other, since no normalised path has "", "." or ".." as a segment). Literal
 * leading segments are compared first, which settles most real pairs (different directories) at once.
 */
export const GLOB = `
local G = { parts = {}, units = {}, meets = {} }
-- Code points of a UTF-8 segment (paths are valid UTF-8: normalisePath refuses lone surrogates); a globstar
-- segment consumes one whole name, so it reads as "*". Cached for the script: claims repeat segments.
function G.chars(s)
  local out = G.units[s]
  if out then return out end
  out = {}
  if s == "**" then out[1] = "*"
  else for ch in string.gmatch(s, "[%z\\1-\\127\\194-\\244][\\128-\\191]*") do out[#out + 1] = ch end end
  G.units[s] = out
  return out
end
function G.split(p)
  local out = G.parts[p]
  if out then return out end
  out = {}
  for seg in string.gmatch(p, "[^/]+") do out[#out + 1] = seg end
  G.parts[p] = out
  return out
end
-- Is there a segment name other than "", "." and ".." that both segment globs match? States (i, j, k): the
-- code points of a and b used up, and the name read so far: 0 "", 1 ".", 2 "..", 3 anything else.
function G.seg(x, y)
  local key = x .. "/" .. y
  local v = G.meets[key]
  if v ~= nil then return v end
  local a, b = G.chars(x), G.chars(y)
  local width = #b + 2
  local seen, stack = {}, { (width + 1) * 4 }
  seen[(width + 1) * 4] = true
  v = false
  while #stack > 0 do
    local id = stack[#stack]
    stack[#stack] = nil
    local k = id % 4
    local rest = (id - k) / 4
    local j = rest % width
    local i = (rest - j) / width
    if i == #a + 1 and j == #b + 1 and k == 3 then
      v = true
      break
    end
    local ta, tb = a[i], b[j]
    local nexts = {}
    if ta == "*" then nexts[#nexts + 1] = ((i + 1) * width + j) * 4 + k end
    if tb == "*" then nexts[#nexts + 1] = (i * width + j + 1) * 4 + k end
    if ta and tb then
      local ni = ta == "*" and i or i + 1
      local nj = tb == "*" and j or j + 1
      local wa = ta == "*" or ta == "?"
      local wb = tb == "*" or tb == "?"
      if wa and wb then
        nexts[#nexts + 1] = (ni * width + nj) * 4 + 3
      elseif wa or wb or ta == tb then
        local c = wa and tb or ta
        nexts[#nexts + 1] = (ni * width + nj) * 4 + ((k == 3 or c ~= ".") and 3 or k + 1)
      end
    end
    for _, n in ipairs(nexts) do
      if not seen[n] then
        seen[n] = true
        stack[#stack + 1] = n
      end
    end
  end
  G.meets[key] = v
  return v
end
-- The literal code points a segment glob ends with (after its last wildcard).
function G.tail(seg)
  return string.match(seg, "([^*?]*)$")
end
function G.overlap(a, b)
  if a == b then return true end
  local wild_a, wild_b = string.find(a, "[*?]"), string.find(b, "[*?]")
  if not wild_a and not wild_b then return false end
  local sa, sb = G.split(a), G.split(b)
  -- Necessary conditions that settle most pairs at once. Leading literal segments must be equal (different
  -- directories); unless one ends in "**", a common path's last name matches both last segments, so their
  -- literal endings must agree (one a suffix of the other: UTF-8 keeps code point boundaries).
  for i = 1, math.min(#sa, #sb) do
    local x, y = sa[i], sb[i]
    if string.find(x, "[*?]") or string.find(y, "[*?]") then break end
    if x ~= y then return false end
  end
  local la, lb = sa[#sa], sb[#sb]
  if la ~= "**" and lb ~= "**" then
    local ta, tb = G.tail(la), G.tail(lb)
    if #tb < #ta then ta, tb = tb, ta end
    if string.sub(tb, #tb - #ta + 1) ~= ta then return false end
  end
  local width = #sb + 2
  local seen, stack = { [width + 1] = true }, { width + 1 }
  while #stack > 0 do
    local id = stack[#stack]
    stack[#stack] = nil
    local j = id % width
    local i = (id - j) / width
    if i == #sa + 1 and j == #sb + 1 then return true end
    local x, y = sa[i], sb[j]
    local n1 = x == "**" and (i + 1) * width + j
    local n2 = y == "**" and i * width + j + 1
    local n3 = x and y and G.seg(x, y) and (x == "**" and i or i + 1) * width + (y == "**" and j or j + 1)
    if n1 and not seen[n1] then seen[n1] = true stack[#stack + 1] = n1 end
    if n2 and not seen[n2] then seen[n2] = true stack[#stack + 1] = n2 end
    if n3 and not seen[n3] then seen[n3] = true stack[#stack + 1] = n3 end
  end
  return false
end
`;

/** Claim helpers: byte-order sorting, live claims, the claim decision, recording the ones that ran out. */
export const CLAIM_HELPERS = `${GLOB}
-- UTF-8 byte order (string < follows the server's collation locale, which may not be bytes).
function G.before(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end
function G.sorted(list)
  table.sort(list, G.before)
  return list
end
-- Live claims as {path = c} plus their JSON for replies ({path, agentId, expiresAt, claimedAt, reason?}).
function G.live()
  local all = OWNED and redis.call("HGETALL", K_CLAIMS) or {}
  local map, out = {}, {}
  for i = 1, #all, 2 do
    local c = cjson.decode(all[i + 1])
    if c.expiresAt > NOW then
      map[all[i]] = c
      out[#out + 1] = '{"path":' .. str(all[i]) .. ',' .. string.sub(all[i + 1], 2)
    end
  end
  return map, out
end
-- Records claims that ran out (expiry order, then path): deleted, files_claim_expired each.
function G.expire()
  local due = redis.call("ZRANGEBYSCORE", K_CLAIM_EXP, "-inf", NOW)
  for _, path in ipairs(due) do
    local raw = redis.call("HGET", K_CLAIMS, path)
    local c = raw and cjson.decode(raw)
    redis.call("ZREM", K_CLAIM_EXP, path)
    if c and c.expiresAt <= NOW then
      redis.call("HDEL", K_CLAIMS, path)
      R.drop("c", c.agentId, path)
      append_event("files_claim_expired", "system", "all", '{"path":' .. str(path) .. ',"heldBy":'
        .. str(c.agentId) .. ',"expiredAt":' .. str(R.iso(c.expiresAt)) .. '}')
    end
  end
  if #due > 0 then signal("claims") end
end
-- claim_files of \`paths\` by \`agent\` against the live claims (as G.live maps them): the conflicts (each requested
-- path against another agent's overlapping claim, unordered), else the refusal when the room would hold more than
-- \`max\` live claims; and the agent's own live claims by path. protocol/claims.ts fileClaimConflicts, which
-- lua-rooms.test.ts runs beside it on generated cases.
function G.decide(paths, live, agent, max)
  local conflicts, count, mine = {}, 0, {}
  for path, c in pairs(live) do
    count = count + 1
    if c.agentId == agent then
      mine[path] = c
    else
      for _, p in ipairs(paths) do
        if G.overlap(p, path) then
          conflicts[#conflicts + 1] = '{"path":' .. str(p) .. ',"heldBy":' .. str(c.agentId) .. ',"pattern":'
            .. str(path) .. ',"expiresAt":' .. num(c.expiresAt) .. '}'
        end
      end
    end
  end
  if #conflicts > 0 then return conflicts, nil, mine end
  for _, p in ipairs(paths) do if not mine[p] then count = count + 1 end end
  if count > max then return conflicts, '{"err":"claimLimit","max":' .. num(max) .. '}', mine end
  return conflicts, nil, mine
end
-- The agent's live claims (paths, byte order) after removing them.
function G.release_all(agent)
  local paths = {}
  for _, path in ipairs(R.items("c", agent)) do
    local raw = redis.call("HGET", K_CLAIMS, path)
    local c = raw and cjson.decode(raw)
    if c and c.agentId == agent and c.expiresAt > NOW then
      redis.call("HDEL", K_CLAIMS, path)
      redis.call("ZREM", K_CLAIM_EXP, path)
      paths[#paths + 1] = path
    end
  end
  R.store("c", agent, {})
  return G.sorted(paths)
end
`;

/**
 * claimFiles: all or nothing. Replies {ok: {claimed: [{path, expiresAt (ms)}], conflicts: [{path, heldBy,
 * pattern, expiresAt (ms)}] (unordered)}} or {err: "claimLimit"}.
 */
export const CLAIM_FILES = script({
  args: {
    agent: arg.text, // the claiming agent
    paths: arg.json<string[]>(), // normalised, distinct paths or globs
    ttl: arg.number, // ms the claims live past the holder's last call
    reason: arg.maybeText, // the claims' reason; none keeps a renewed claim's own
    max: arg.number, // most live claims a room may hold
  },
  reply: returns<{
    claimed: { path: string; expiresAt: number }[];
    conflicts: (Omit<ClaimConflict, "expiresAt"> & { expiresAt: number })[];
  }>(),
  body: `${CLAIM_HELPERS}
local conflicts, refused, mine = G.decide(paths, G.live(), agent, max)
if #conflicts > 0 then return ok('{"claimed":[],"conflicts":[' .. table.concat(conflicts, ",") .. ']}') end
if refused then return refused end
if not OWNED and not CLAIM_OK then return CLAIM end
G.expire()
local expires = NOW + ttl
local claimed = {}
for _, p in ipairs(paths) do
  local old = mine[p]
  local r = reason or (old and old.reason) or nil
  W("HSET", K_CLAIMS, p, R.claim_json({ agentId = agent, expiresAt = expires, ttl = ttl,
    claimedAt = old and old.claimedAt or NOW, reason = r }))
  W("ZADD", K_CLAIM_EXP, expires, p)
  if not old then R.add("c", agent, p) end
  claimed[#claimed + 1] = '{"path":' .. str(p) .. ',"expiresAt":' .. num(expires) .. '}'
end
append_event("files_claimed", agent, "all", '{"paths":' .. strs(paths) .. ',"expiresAt":' .. str(R.iso(expires))
  .. (reason and (',"reason":' .. str(reason)) or "") .. '}')
signal("claims")
commit()
return ok('{"claimed":[' .. table.concat(claimed, ",") .. '],"conflicts":[]}')
`,
});

/** releaseFiles. Replies {ok: {released: [path…]}} in byte order; writes nothing when nothing is released. */
export const RELEASE_FILES = script({
  args: {
    agent: arg.text, // the holder
    all: arg.flag, // every claim of the agent, or only those named in `paths`
    paths: arg.json<string[]>(), // the paths to release (when not all)
  },
  reply: returns<{ released: string[] }>(),
  body: `${CLAIM_HELPERS}
local named = {}
for _, p in ipairs(paths) do named[p] = true end
if not OWNED then return ok('{"released":[]}') end
local target = {}
for _, path in ipairs(R.items("c", agent)) do
  if all or named[path] then
    local raw = redis.call("HGET", K_CLAIMS, path)
    local c = raw and cjson.decode(raw)
    if c and c.agentId == agent and c.expiresAt > NOW then target[#target + 1] = path end
  end
end
if #target == 0 then return ok('{"released":[]}') end
G.sorted(target)
G.expire()
for _, path in ipairs(target) do
  redis.call("HDEL", K_CLAIMS, path)
  redis.call("ZREM", K_CLAIM_EXP, path)
  R.drop("c", agent, path)
end
append_event("files_released", agent, "all", '{"paths":' .. strs(target) .. '}')
signal("claims")
return ok('{"released":' .. strs(target) .. '}')
`,
});

/** listClaims / checkFiles: the live claims. Replies {ok: [{path, agentId, expiresAt, ttl, claimedAt, reason?}…]}. */
export const LIST_CLAIMS = script({
  args: {},
  reply: returns<StoredClaim[]>(),
  body: `${CLAIM_HELPERS}
local _, out = G.live()
return ok("[" .. table.concat(out, ",") .. "]")
`,
});

/** roomState. Replies {ok: {claims: [...] as LIST_CLAIMS, presence: {agent: {lastSeen, statusText?, left?}}, lastSeq}}. */
export const ROOM_STATE = script({
  args: {},
  reply: returns<{
    claims: StoredClaim[];
    presence: Record<string, StoredPresence>;
    lastSeq: number | string;
  }>(),
  body: `${CLAIM_HELPERS}
if not OWNED then return ok('{"claims":[],"presence":{},"lastSeq":0}') end
local _, out = G.live()
local all = redis.call("HGETALL", K_PRESENCE)
local people = {}
for i = 1, #all, 2 do people[#people + 1] = str(all[i]) .. ":" .. all[i + 1] end
return ok('{"claims":[' .. table.concat(out, ",") .. '],"presence":{' .. table.concat(people, ",")
  .. '},"lastSeq":' .. (redis.call("HGET", K_META, "event_seq") or "0") .. '}')
`,
});

/** broadcast: event broadcast {message, status?} and, with a status, the sender's status text. Replies {ok: event}. */
export const BROADCAST = script({
  args: {
    agent: arg.text, // the sender
    message: arg.text, // the message
    status: arg.maybeText, // the sender's new status text, none to keep it
  },
  reply: returns<Omit<RoomEvent, "read_by">>(),
  body: `
if not OWNED and not CLAIM_OK then return CLAIM end
local e = append_event("broadcast", agent, "all", '{"message":' .. str(message)
  .. (status and (',"status":' .. str(status)) or "") .. '}')
if status then
  W("HSET", K_PRESENCE, agent, '{"lastSeen":' .. num(NOW) .. ',"statusText":' .. str(status) .. '}')
  signal("presence")
end
commit()
return ok(e)
`,
});

/** release_holdings(agent), shared by LEAVE_ROOM and SUSPEND_AGENT (lua-suspensions.ts). */
export const RELEASE_HOLDINGS = `
-- Releases everything the agent holds at once: its live leases (tasks back to pending, unowned), file claims
-- (files_released), locks and the wheel (driver_changed). leave_room and a suspension (lua-suspensions.ts) end with it.
-- Needs PLAN_HELPERS, CLAIM_HELPERS and PEOPLE_HELPERS before it. Returns the lists tasks, paths, locks.
local function release_holdings(agent)
  ensure_counts()
  leases_due()
  record_leases()
  G.expire()
  local tasks = {}
  for _, item in ipairs(R.items("l", agent)) do
    local id = R.key("l", item)
    local raw = redis.call("HGET", K_TASKS, id)
    local t = raw and cjson.decode(raw)
    redis.call("ZREM", K_LEASES, id)
    if t and val(t.owner) == agent and t.lease_expires_at then
      local previous = t.status
      t.status, t.owner, t.lease_expires_at = "pending", nil, nil
      t.version = t.version + 1
      t.updated_at = NOW_ISO
      W("HSET", K_TASKS, id, task_json(t, strs(t.depends_on)))
      moved(previous, "pending")
      tasks[#tasks + 1] = id
    end
  end
  R.store("l", agent, {})
  if #tasks > 0 then W("HSET", K_META, "plan_updated_at", NOW_ISO) end
  table.sort(tasks, function(a, b) return tonumber(string.match(a, "(%d+)$")) < tonumber(string.match(b, "(%d+)$")) end)
  local paths = G.release_all(agent)
  local locks = {}
  local held = redis.call("HGETALL", K_LOCKS)
  for i = 1, #held, 2 do
    local lock = cjson.decode(held[i + 1])
    if lock.holder == agent and lock.expiresAt > NOW then
      redis.call("HDEL", K_LOCKS, held[i])
      locks[#locks + 1] = held[i]
    end
  end
  G.sorted(locks)
  if #paths > 0 then
    append_event("files_released", agent, "all", '{"paths":' .. strs(paths) .. '}')
    signal("claims")
  end
  if #locks > 0 then signal("locks") end
  -- Driving the room (claim_driver): an agent that left or was suspended can steer nothing, so the wheel goes too.
  local d = P.driver()
  if d.holder == agent then P.change(d, nil, nil, "released", agent) end
  return tasks, paths, locks
end
`;

/**
 * leaveRoom: presence "left" (status text cleared); the agent's live leases (tasks back to pending), claims and locks released, and the
 * wheel when it drives the room (driver_changed, reason released, before agent_left).
 * Replies {ok: {exists, tasks, paths, locks}}; on a room not owned yet it writes nothing.
 */
export const LEAVE_ROOM = script({
  args: {
    agent: arg.text, // the agent leaving
  },
  reply: returns<{ exists: boolean; tasks: string[]; paths: string[]; locks: string[] }>(),
  body: `${PLAN_HELPERS}${CLAIM_HELPERS}${PEOPLE_HELPERS}${RELEASE_HOLDINGS}
if not OWNED then return ok('{"exists":false,"tasks":[],"paths":[],"locks":[]}') end
local refused = suspended_reply(agent)
if refused then return refused end
local tasks, paths, locks = release_holdings(agent)
-- The status text goes: it said what the agent was doing, and that is over.
W("HSET", K_PRESENCE, agent, '{"lastSeen":' .. num(NOW) .. ',"left":true}')
signal("presence")
local released = '"tasks":' .. strs(tasks) .. ',"paths":' .. strs(paths) .. ',"locks":' .. strs(locks)
append_event("agent_left", agent, "all", '{"agentId":' .. str(agent) .. ',' .. released .. '}')
return ok('{"exists":true,' .. released .. '}')
`,
});
