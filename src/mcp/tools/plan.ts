/** Plan tools (spec §3, 7 tools): the task list with dependencies, owners and versions. */
import { z } from "zod";
import { LIMITS } from "../../protocol/limits.ts";
import type { Task } from "../../protocol/records.ts";
import { actingAgent, scope } from "../identity.ts";
import { agentId, eventShape, planShape, presenceShape, roomId, taskShape, taskStatus } from "../schemas.ts";
import { defineTool } from "../tool.ts";

const taskId = z.string().min(1).max(100).describe("Task id, as returned by add_task or read_plan.");
const readOnly = { readOnlyHint: true } as const;

/** Pending tasks whose every dependency exists and is done, by priority (null last) then plan order. */
export function unblockedTasks(tasks: Task[], agent?: string): Task[] {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const ready = tasks.filter(
    (t) =>
      t.status === "pending" &&
      t.depends_on.every((dep) => byId.get(dep)?.status === "done") &&
      (agent === undefined || t.owner === null || t.owner === agent),
  );
  const rank = (t: Task) => t.priority ?? Number.POSITIVE_INFINITY;
  return ready
    .map((task, order) => ({ task, order }))
    .sort((a, b) => rank(a.task) - rank(b.task) || a.order - b.order)
    .map((x) => x.task);
}

export const planTools = [
  defineTool({
    name: "read_plan",
    description:
      "Read the room's whole plan: every task with status, owner, dependencies, priority and version, in plan order. An empty plan is returned for a room with none.",
    input: z.strictObject({ roomId }),
    output: planShape,
    annotations: readOnly,
    handler: (a, ctx) => ctx.store.readPlan(scope(ctx, a.roomId)),
  }),
  defineTool({
    name: "add_task",
    description:
      "Add a task to the plan (status pending, no owner). Use depends_on to name tasks that must be done first. Posts a task_added event. Fails fast if another agent holds the 'plan' lock.",
    input: z.strictObject({
      roomId,
      title: z.string().min(1).max(LIMITS.titleMax),
      description: z.string().max(LIMITS.descriptionMax).optional(),
      depends_on: z.array(taskId).max(LIMITS.dependsOnMax).optional(),
      priority: z.number().int().min(-1_000_000).max(1_000_000).optional().describe("Lower runs first."),
      agentId: agentId.optional(),
    }),
    output: taskShape,
    handler: (a, ctx) =>
      ctx.store.addTask(scope(ctx, a.roomId), {
        title: a.title,
        description: a.description ?? "",
        depends_on: a.depends_on ?? [],
        priority: a.priority ?? null,
        agentId: actingAgent(ctx, a.agentId),
      }),
  }),
  defineTool({
    name: "update_task",
    description:
      "Change a task's status, owner (null to unassign) or description, optionally with a progress note (kept in the event, not in the task). To take a task: owner=<you>, status=in_progress, expectedVersion=<version you read>; a stale version fails with a version conflict so two agents never take the same task. Posts a task_updated event.",
    input: z
      .strictObject({
        roomId,
        taskId,
        status: taskStatus.optional(),
        owner: agentId.nullable().optional(),
        description: z.string().max(LIMITS.descriptionMax).optional(),
        note: z.string().min(1).max(LIMITS.noteMax).optional(),
        agentId: agentId.optional(),
        expectedVersion: z.number().int().min(1).optional(),
      })
      .refine(
        (a) =>
          a.status !== undefined ||
          a.owner !== undefined ||
          a.description !== undefined ||
          a.note !== undefined,
        { error: "give at least one of status, owner, description or note" },
      ),
    output: taskShape,
    handler: (a, ctx) => {
      const agent = actingAgent(ctx, a.agentId);
      // A bound key may only assign tasks to its own agent (or unassign).
      if (a.owner !== undefined && a.owner !== null) actingAgent(ctx, a.owner);
      return ctx.store.updateTask(scope(ctx, a.roomId), {
        taskId: a.taskId,
        status: a.status,
        owner: a.owner,
        description: a.description,
        note: a.note,
        agentId: agent,
        expectedVersion: a.expectedVersion,
      });
    },
  }),
  defineTool({
    name: "get_task",
    description: "Read one task by id: its status, owner, dependencies, priority and version.",
    input: z.strictObject({ roomId, taskId }),
    output: taskShape,
    annotations: readOnly,
    handler: (a, ctx) => ctx.store.getTask(scope(ctx, a.roomId), a.taskId),
  }),
  defineTool({
    name: "get_unblocked_tasks",
    description:
      "List pending tasks you can start now: every dependency exists and is done (a dependency on a missing task counts as unmet). With agentId, only unowned tasks and your own. Ordered by priority (lower first, none last), then plan order.",
    input: z.strictObject({ roomId, agentId: agentId.optional() }),
    annotations: readOnly,
    handler: async (a, ctx) => {
      const plan = await ctx.store.readPlan(scope(ctx, a.roomId));
      return unblockedTasks(plan.tasks, a.agentId);
    },
  }),
  defineTool({
    name: "get_my_tasks",
    description: "List the tasks owned by agentId, in plan order.",
    input: z.strictObject({ roomId, agentId }),
    annotations: readOnly,
    handler: async (a, ctx) => {
      const plan = await ctx.store.readPlan(scope(ctx, a.roomId));
      return plan.tasks.filter((t) => t.owner === a.agentId);
    },
  }),
  defineTool({
    name: "get_my_summary",
    description:
      "Start every session with this one call: your tasks, your unread events (consumed, exactly as get_unread_events), how many context entries were written or updated since your previous summary, and who is online. Also records a heartbeat for you.",
    input: z.strictObject({
      roomId,
      agentId,
      limit: z
        .number()
        .int()
        .min(1)
        .max(LIMITS.unreadMax)
        .optional()
        .describe("Max unread events (default 20)."),
    }),
    output: z.object({
      agentId: z.string(),
      roomId: z.string(),
      myTasks: z.array(taskShape),
      unreadEvents: z.object({
        events: z.array(eventShape),
        cursor: z.number().int().nullable(),
        count: z.number().int(),
        remaining: z.number().int(),
      }),
      newContextCount: z.number().int(),
      presence: z.array(presenceShape),
      cursor: z.number().int().nullable(),
    }),
    handler: (a, ctx) => ctx.store.summary(scope(ctx, a.roomId), actingAgent(ctx, a.agentId), a.limit ?? 20),
  }),
];
