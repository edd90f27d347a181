/** Lua bodies of the plan operations (each is prepended with PRELUDE, which binds KEYS and ARGV[1..4]). */

/** readPlan. Replies {ok: {created_at, updated_at, tasks: [Task JSON…]}} (tasks unordered; sorted in TS). */
export const READ_PLAN = `
if not OWNED then return ok('{"created_at":null,"updated_at":null,"tasks":[]}') end
local meta = redis.call("HMGET", K_META, "plan_created_at", "plan_updated_at")
local tasks = redis.call("HVALS", K_TASKS)
touch()
return ok('{"created_at":' .. opt_str(meta[1] or nil) .. ',"updated_at":' .. opt_str(meta[2] or nil)
  .. ',"tasks":[' .. table.concat(tasks, ",") .. ']}')
`;

/** addTask. Replies {ok: Task} or {err: "planLocked"}. */
export const ADD_TASK = `
local agent = ARGV[5]           -- acting agent ("" when absent): plan-lock identity
local title = ARGV[6]           -- title
local description = ARGV[7]     -- description
local deps_json = ARGV[8]       -- depends_on as a JSON array of strings
local priority = ARGV[9]        -- priority as a number, "" for null
local from = ARGV[10]           -- the event's from (agent or "system")
if not OWNED and not CLAIM_OK then return CLAIM end
local locked = plan_locked(agent)
if locked then return locked end
local id = "task-" .. redis.call("HINCRBY", K_META, "task_n", 1)
local task = task_json({ id = id, title = title, description = description, status = "pending",
  priority = tonumber(priority), version = 1, created_at = NOW_ISO, updated_at = NOW_ISO }, deps_json)
redis.call("HSET", K_TASKS, id, task)
redis.call("HSETNX", K_META, "plan_created_at", NOW_ISO)
redis.call("HSET", K_META, "plan_updated_at", NOW_ISO)
append_event("task_added", from, "all", '{"task":' .. task .. '}')
commit()
return ok(task)
`;

/** updateTask. Replies {ok: Task} or {err: "planLocked" | "taskNotFound" | "taskVersion"}. */
export const UPDATE_TASK = `
local agent = ARGV[5]           -- acting agent ("" when absent): plan-lock identity
local id = ARGV[6]              -- task id
local expected = ARGV[7]        -- expected version, "" for any
local fields = ARGV[8]          -- JSON {status?, owner? (string or null), description?} to apply
local changes = ARGV[9]         -- JSON of the supplied fields and note, for the event
local from = ARGV[10]           -- the event's from (agent or "system")
local locked = plan_locked(agent)
if locked then return locked end
local raw = redis.call("HGET", K_TASKS, id)
if not raw then return '{"err":"taskNotFound","id":' .. str(id) .. '}' end
local t = cjson.decode(raw)
if expected ~= "" and tonumber(expected) ~= t.version then
  return '{"err":"taskVersion","id":' .. str(id) .. ',"version":' .. num(t.version) .. '}'
end
local previous = t.status
local f = cjson.decode(fields)
if f.status ~= nil then t.status = f.status end
if f.owner ~= nil then t.owner = f.owner end
if f.description ~= nil then t.description = f.description end
t.version = t.version + 1
t.updated_at = NOW_ISO
local task = task_json(t, strs(t.depends_on))
redis.call("HSET", K_TASKS, id, task)
redis.call("HSET", K_META, "plan_updated_at", NOW_ISO)
append_event("task_updated", from, "all",
  '{"task":' .. task .. ',"previousStatus":' .. str(previous) .. ',"changes":' .. changes .. '}')
commit()
return ok(task)
`;

/** getTask. Replies {ok: Task} or {err: "taskNotFound"}. */
export const GET_TASK = `
local id = ARGV[5]              -- task id
local raw = OWNED and redis.call("HGET", K_TASKS, id)
if not raw then return '{"err":"taskNotFound","id":' .. str(id) .. '}' end
touch()
return ok(raw)
`;

/**
 * summary: heartbeat (status text kept), consume like consumeEvents, count context changes since the previous
 * summary, the agent's tasks and everyone's presence. Replies
 * {ok: {tasks: [Task…], unread: {events, cursor, remaining}, newContextCount, presence: {agent: {lastSeen, statusText?}}}}.
 */
export const SUMMARY = `
local agent = ARGV[5]           -- agent asking for its summary
local limit = tonumber(ARGV[6]) -- max events to consume
if not OWNED and not CLAIM_OK then return CLAIM end
local old = redis.call("HGET", K_PRESENCE, agent)
local status = old and val(cjson.decode(old).statusText)
redis.call("HSET", K_PRESENCE, agent,
  '{"lastSeen":' .. num(NOW) .. (status and (',"statusText":' .. str(status)) or "") .. '}')
local unread = consume(agent, limit)
local mark = redis.call("HGET", K_CTX_MARKS, agent) or "0"
local fresh = redis.call("ZCOUNT", K_CTX_CHANGES, "(" .. mark, "+inf")
redis.call("HSET", K_CTX_MARKS, agent, redis.call("HGET", K_META, "ctx_seq") or "0")
local mine = {}
for _, raw in ipairs(redis.call("HVALS", K_TASKS)) do
  if cjson.decode(raw).owner == agent then mine[#mine + 1] = raw end
end
local presence = redis.call("HGETALL", K_PRESENCE)
local people = {}
for i = 1, #presence, 2 do people[#people + 1] = str(presence[i]) .. ":" .. presence[i + 1] end
commit()
return ok('{"tasks":[' .. table.concat(mine, ",") .. '],"unread":' .. unread .. ',"newContextCount":' .. fresh
  .. ',"presence":{' .. table.concat(people, ",") .. '}}')
`;
