/**
 * The plan's rules in Lua (lua-plan.ts PLAN_HELPERS, lua-task-checks.ts) give the answers of their TypeScript
 * (protocol/task-rules.ts, plan-rules.ts, leases.ts, locks.ts checkPlanLock) on the same generated rooms, run by a
 * real redis-server the way the scripts run them: the plan lock, a task as reads show it once its lease ran out, the
 * expected version and ownership, claiming a task, renewing a lease, dependencies (unknown, cycles), blockers and
 * when a lease is kept. A refusal is compared as the RoomError each side produces (kind and message).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import {
  type Answer,
  luaAnswer,
  luaRule,
  runLuaRule,
  tsAnswer as ts,
} from "../../../test/support/lua-rules.ts";
import { below, pick, prng } from "../../../test/support/prng.ts";
import { sharedRedis } from "../../../test/support/redis-server.ts";
import { errors } from "../../protocol/errors.ts";
import { checkLeaseHolder, effectiveTask, keepsLease } from "../../protocol/leases.ts";
import { checkPlanLock, type LockHolding } from "../../protocol/locks.ts";
import { checkDependencies, checkOwnership, checkStatus } from "../../protocol/plan-rules.ts";
import { TASK_STATUSES, type Task, type TaskStatus } from "../../protocol/records.ts";
import { checkTaskVersion, taskClaim } from "../../protocol/task-rules.ts";
import { iso } from "../../protocol/time.ts";
import { roomKeys } from "./keys.ts";
import { PLAN_HELPERS } from "./lua-plan.ts";
import { PLAN_WRITE_CHECKS, TASK_CHECKS } from "./lua-task-checks.ts";

let redis: RedisClient;
beforeAll(async () => {
  redis = new RedisClient((await sharedRedis()).url);
});
afterAll(() => redis.close());

const NOW = 1_750_000_000_000;
const AGENTS = ["ann", "bob", "cy"];

/** A generated room: its tasks (stored form), the plan lock, and the seqs of a task's id. */
interface Room {
  tasks: Task[];
  lock: LockHolding | null;
}

/** A room of up to 7 tasks: random statuses, owners, versions, leases (run out or not), dependencies and lock. */
function room(rnd: () => number): Room {
  const tasks: Task[] = [];
  const n = 1 + below(rnd, 7);
  for (let i = 1; i <= n; i++) {
    const status = pick(rnd, TASK_STATUSES);
    const owner = rnd() < 0.6 ? pick(rnd, AGENTS) : null;
    const deps = new Set<string>();
    for (let k = below(rnd, 3); k > 0; k--)
      deps.add(rnd() < 0.85 && i > 1 ? `task-${1 + below(rnd, i - 1)}` : "task-9");
    const task: Task = {
      id: `task-${i}`,
      title: `t${i}`,
      description: "",
      status,
      owner,
      depends_on: [...deps],
      priority: rnd() < 0.5 ? null : below(rnd, 5),
      version: 1 + below(rnd, 4),
      created_at: iso(NOW - 600_000),
      updated_at: iso(NOW - 500_000 + i),
    };
    // A lease, run out or live, on some owned tasks in progress or blocked.
    if (owner !== null && (status === "in_progress" || status === "blocked") && rnd() < 0.7) {
      task.lease_expires_at = iso(
        NOW + pick(rnd, [-1, 0, 1, -1 - below(rnd, 60_000), 1 + below(rnd, 60_000)]),
      );
    }
    tasks.push(task);
  }
  // No lock, or one live, run out or ending at NOW.
  const lock =
    rnd() < 0.5 ? null : { holder: pick(rnd, AGENTS), expiresAt: NOW + pick(rnd, [30_000, -30_000, 0, 1]) };
  return { tasks, lock };
}

/** Writes the room as the scripts keep it: owner, tasks, the leases index, the plan lock. */
async function seed(roomId: string, r: Room): Promise<void> {
  const key = (part: string) => roomKeys(roomId).find((k) => k.endsWith(`}:${part}`)) as string;
  await redis.send("HSET", [key("meta"), "owner", "team-a", "created_at", iso(NOW - 600_000)]);
  await redis.send("HSET", [key("tasks"), ...r.tasks.flatMap((t) => [t.id, JSON.stringify(t)])]);
  const leased = r.tasks.filter((t) => t.lease_expires_at !== undefined);
  if (leased.length > 0) {
    await redis.send("ZADD", [
      key("leases"),
      ...leased.flatMap((t) => [String(Date.parse(t.lease_expires_at as string)), t.id]),
    ]);
  }
  if (r.lock) await redis.send("HSET", [key("locks"), "plan", JSON.stringify(r.lock)]);
}

/** Runs `body` (with the plan helpers) on a seeded room, per case. */
async function onRoom(body: string, r: Room, input: unknown): Promise<Answer> {
  const roomId = `plan-${crypto.randomUUID()}`;
  await seed(roomId, r);
  const rule = luaRule("PLAN_RULE", `${PLAN_HELPERS}\n${body}`);
  return luaAnswer(await runLuaRule(redis, rule, input, { roomId, teamId: "team-a", now: NOW }));
}

/** Every task as reads show it at NOW, by id. */
function shown(r: Room): Map<string, Task> {
  return new Map(r.tasks.map((t) => [t.id, effectiveTask(t, NOW)]));
}

/** The task an operation names, as reads show it, after the plan lock: the order of every plan write. */
function found(r: Room, agent: string | undefined, id: string): Task {
  checkPlanLock(r.lock, agent, NOW);
  const task = shown(r).get(id);
  if (!task) throw errors.taskNotFound(id);
  return task;
}

/** The case's arguments as the scripts bind them (agent "" for none, expected nil for any). */
const ARGS = `
local agent = input.agent
local id = input.id
local expected = input.expected ~= cjson.null and input.expected or nil
`;

interface Case {
  agent: string | undefined;
  id: string;
  expected: number | undefined;
}

function aCase(rnd: () => number, r: Room): Case {
  return {
    agent: rnd() < 0.15 ? undefined : pick(rnd, AGENTS),
    id: rnd() < 0.1 ? "task-9" : pick(rnd, r.tasks).id,
    expected: rnd() < 0.5 ? undefined : 1 + below(rnd, 5),
  };
}
const input = (c: Case) => ({ agent: c.agent ?? "", id: c.id, expected: c.expected ?? null });

describe("task writes: Lua and TS agree on generated rooms (real redis-server)", () => {
  test("plan lock, the task as reads show it (a lease that ran out undone), version and ownership", async () => {
    const rnd = prng(181);
    const body = `${ARGS}local function check()
${PLAN_WRITE_CHECKS}return '{"ok":' .. raw .. '}'
end
return check()`;
    const disagree: unknown[] = [];
    for (let i = 0; i < 250; i++) {
      const r = room(rnd);
      const c = aCase(rnd, r);
      const want = ts(() => {
        const task = found(r, c.agent, c.id);
        checkTaskVersion(task, c.expected);
        checkOwnership(task, c.agent, c.expected);
        return task;
      });
      const got = await onRoom(body, r, input(c));
      if (JSON.stringify(got) !== JSON.stringify(want)) disagree.push({ r, c, want, got });
    }
    expect(disagree).toEqual([]);
  });

  test("claim_task: renew, claim, or the refusal (version, done, another's, not pending, blocked)", async () => {
    const rnd = prng(182);
    const body = `${ARGS}local function check()
${TASK_CHECKS}local refused, renewing = claim_refused(t, agent)
if refused then return refused end
return '{"ok":"' .. (renewing and "renew" or "claim") .. '"}'
end
return check()`;
    const disagree: unknown[] = [];
    const answers: string[] = [];
    for (let i = 0; i < 300; i++) {
      const r = room(rnd);
      const c = { ...aCase(rnd, r), agent: pick(rnd, AGENTS) };
      const tasks = shown(r);
      // claim_task as the SQL bodies apply it: taskClaim's refusals, then a take needs its dependencies done.
      const want = ts(() => {
        const task = found(r, c.agent, c.id);
        if (taskClaim(task, { agentId: c.agent, expectedVersion: c.expected }) === "renew") return "renew";
        checkStatus(task, "in_progress", (id) => tasks.get(id)?.status);
        return "claim";
      });
      const got = await onRoom(body, r, input(c));
      answers.push("ok" in want ? String(want.ok) : want.message);
      if (JSON.stringify(got) !== JSON.stringify(want)) disagree.push({ r, c, want, got });
    }
    expect(disagree).toEqual([]);
    // The cases reach every answer: both outcomes and each refusal.
    const reached = [
      /^renew$/,
      /^claim$/,
      /^Version conflict/,
      /is done;/,
      /is owned by/,
      /is (in_progress|blocked);/,
    ];
    expect(reached.filter((answer) => !answers.some((a) => answer.test(a)))).toEqual([]);
    expect(answers.some((a) => / is blocked by /.test(a))).toBe(true);
  });

  test("renew_lease naming a task: refused unless the caller holds its live lease", async () => {
    const rnd = prng(183);
    const body = `${ARGS}leases_due()
local raw = task_raw(id)
if not raw then return '{"err":"taskNotFound","id":' .. str(id) .. '}' end
return lease_refused(cjson.decode(raw), agent) or '{"ok":true}'`;
    const disagree: unknown[] = [];
    for (let i = 0; i < 200; i++) {
      const r = { ...room(rnd), lock: null };
      const c = { ...aCase(rnd, r), agent: pick(rnd, AGENTS) };
      const want = ts(() => {
        checkLeaseHolder(found(r, c.agent, c.id), c.agent);
        return true;
      });
      const got = await onRoom(body, r, input(c));
      if (JSON.stringify(got) !== JSON.stringify(want)) disagree.push({ r, c, want, got });
    }
    expect(disagree).toEqual([]);
  });

  test("new dependencies: unknown tasks, then a cycle through the task, reported as the same path", async () => {
    const rnd = prng(184);
    const body = `${ARGS}local deps = input.deps
return unknown_dep(deps, id) or cycle_through(id, deps) or '{"ok":true}'`;
    const disagree: unknown[] = [];
    let cycles = 0;
    for (let i = 0; i < 250; i++) {
      const r = { ...room(rnd), lock: null };
      const id = pick(rnd, r.tasks).id;
      const deps = [...new Set(Array.from({ length: 1 + below(rnd, 3) }, () => pick(rnd, r.tasks).id))];
      if (rnd() < 0.1) deps.push("task-9");
      const byId = new Map(r.tasks.map((t) => [t.id, t.depends_on]));
      const want = ts(() => {
        checkDependencies(id, deps, (dep) => byId.get(dep));
        return true;
      });
      if ("message" in want && want.message.startsWith("Dependency cycle")) cycles++;
      const got = await onRoom(body, r, { agent: "", id, expected: null, deps });
      if (JSON.stringify(got) !== JSON.stringify(want)) disagree.push({ r, id, deps, want, got });
    }
    expect(disagree).toEqual([]);
    expect(cycles).toBeGreaterThan(20);
  });

  test("a move to in_progress or done needs every dependency done (as reads show them)", async () => {
    const rnd = prng(185);
    const body = `${ARGS}leases_due()
return blocked(id, input.status, input.deps) or '{"ok":true}'`;
    const disagree: unknown[] = [];
    for (let i = 0; i < 250; i++) {
      const r = { ...room(rnd), lock: null };
      const id = pick(rnd, r.tasks).id;
      const status: TaskStatus = pick(rnd, TASK_STATUSES);
      const deps = [
        ...new Set(Array.from({ length: below(rnd, 4) }, () => pick(rnd, [...r.tasks, { id: "task-9" }]).id)),
      ];
      const tasks = shown(r);
      const want = ts(() => {
        checkStatus({ id, depends_on: deps }, status, (dep) => tasks.get(dep)?.status);
        return true;
      });
      const got = await onRoom(body, r, { agent: "", id, expected: null, status, deps });
      if (JSON.stringify(got) !== JSON.stringify(want)) disagree.push({ r, id, status, deps, want, got });
    }
    expect(disagree).toEqual([]);
  });

  test("an update keeps the lease only for the same owner, still in_progress or blocked", async () => {
    const owners = [null, ...AGENTS.slice(0, 2)];
    const cases = owners.flatMap((before) =>
      owners.flatMap((owner) => TASK_STATUSES.map((status) => ({ before, owner, status }))),
    );
    const body = `
local out = {}
for i, c in ipairs(input) do
  out[i] = keeps_lease(val(c.before), val(c.owner), c.status)
end
return cjson.encode(out)`;
    const roomId = `plan-${crypto.randomUUID()}`;
    const got = await runLuaRule<boolean[]>(redis, luaRule("KEEPS", `${PLAN_HELPERS}\n${body}`), cases, {
      roomId,
      now: NOW,
    });
    expect(got).toEqual(cases.map((c) => keepsLease({ owner: c.before }, c.owner, c.status)));
  });
});
