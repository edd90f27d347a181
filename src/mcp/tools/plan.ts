/** Plan tools (9): the task list with dependencies, owners and versions, and the session-start summary. */
import { z } from "zod";
import { LIMITS } from "../../protocol/limits.ts";
import { FIELDS } from "../../protocol/record-fields.ts";
import type { Task } from "../../protocol/records.ts";
import { toolErrors } from "../../protocol/tool-errors.ts";
import { missingRoomHint } from "../room-typo.ts";
import {
  actingAgentId,
  otherAgentId,
  planShape,
  presenceShape,
  roomId,
  taskId,
  taskShape,
  taskStatus,
  unreadShape,
} from "../schemas.ts";
import { defineTool, type ExampleRoom, type RoomToolCall } from "../tool.ts";

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

/** The optional version check every task change takes; `what` names the refused change in its description. */
const expectedVersion = (what: string) =>
  z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`The version you read; the ${what} is refused if the task changed since.`);

const PLAN_LOCKED = "Plan is locked by <agent> until <time>; retry after it";
const DEPENDENCY_ERRORS = [
  "Unknown task in depends_on: <id>; read_plan lists the task ids of this room",
  "Dependency cycle: <id> → … → <id>",
];
const UPDATE_ERRORS = [
  "Task not found: <id>",
  "Version conflict: task <id> is at version <n> (<status>, owned by <agent>); read it again before changing it",
  "Task <id> is owned by <agent>; pass expectedVersion (the version you read) to change it anyway",
  "Task <id> is blocked by <id> (<status>), …; finish those first",
  ...DEPENDENCY_ERRORS,
  PLAN_LOCKED,
];
const title = FIELDS.taskTitle.describe("Short imperative title, e.g. 'Add POST /login'.");
const dependsOn = z
  .array(taskId)
  .max(LIMITS.dependsOnMax)
  .describe("Ids of tasks that must be done before this one can start (tasks of this room, no cycles).");
const priority = FIELDS.taskPriority.describe("Lower runs first.");
/** For examples: a task alice added to the room (the tools acting on a task need one). */
export const addedTask = (room: ExampleRoom) =>
  room.call("add_task", { title: "Write the login endpoint", agentId: "alice" });

/** get_my_summary and the compact profile's summary: the store's summary, with a hint when the room is new. */
export async function mySummary(a: { roomId: string; agentId: string; limit?: number }, call: RoomToolCall) {
  const summary = await call.store.summary(call.scope, a.agentId, a.limit ?? 20);
  return summary.roomExists ? summary : { ...summary, hint: await missingRoomHint(a.roomId, call) };
}

/** The fields of update_task that change something (one at least). */
const CHANGES = ["status", "owner", "title", "description", "depends_on", "priority", "note"] as const;

export const planTools = [
  defineTool({
    name: "read_plan",
    title: "Read the plan",
    description:
      "Read the room's whole plan: every task with status, owner, dependencies, priority and version, in plan order. An empty plan is returned for a room with none.",
    returns: "Plan",
    input: z.strictObject({ roomId }),
    output: planShape,
    effect: "read",
    example: async () => ({}),
    handler: (_a, call) => call.store.readPlan(call.scope),
  }),
  defineTool({
    name: "add_task",
    title: "Add a task",
    description:
      "Add a task to the plan (status pending, no owner). Use depends_on to name tasks that must be done first. Posts a task_added event. Fails fast if another agent holds the 'plan' lock.",
    returns: "Task (the new one)",
    input: z.strictObject({
      roomId,
      title,
      description: FIELDS.taskDescription.optional().describe("Details; default empty."),
      depends_on: dependsOn.optional(),
      priority: priority.optional(),
      agentId: actingAgentId.optional(),
    }),
    output: taskShape,
    effect: "write",
    acting: ["agentId"],
    events: ["task_added"],
    errors: [...DEPENDENCY_ERRORS, PLAN_LOCKED],
    example: async () => ({ title: "Write the login page", agentId: "alice" }),
    handler: (a, call) =>
      call.store.addTask(call.scope, {
        title: a.title,
        description: a.description ?? "",
        depends_on: a.depends_on ?? [],
        priority: a.priority ?? null,
        agentId: a.agentId,
      }),
  }),
  defineTool({
    name: "update_task",
    title: "Update a task",
    description:
      "Change a task's status, owner (null to unassign), title, description, dependencies or priority, optionally with a progress note (kept in the event, not in the task). To take a task use claim_task (it gives you a lease your calls keep alive, and returns the task to the plan when you go silent); update_task with owner=<you>, status=in_progress, expectedVersion=<version you read> also takes it, but without a lease. in_progress and done need every dependency done; another agent's task needs expectedVersion (a deliberate take-over). Posts a task_updated event.",
    returns: "Task (as updated)",
    input: z
      .strictObject({
        roomId,
        taskId,
        status: taskStatus.optional().describe("New status."),
        owner: otherAgentId
          .nullable()
          .optional()
          .describe("New owner: your own agent id to take the task, null to unassign."),
        title: title.optional().describe("New title."),
        description: FIELDS.taskDescription.optional().describe("New description."),
        depends_on: dependsOn
          .optional()
          .describe("New dependencies, replacing the old ones (tasks of this room, no cycles)."),
        priority: priority
          .nullable()
          .optional()
          .describe("New priority (lower runs first), null to clear it."),
        note: FIELDS.taskNote.optional().describe("Progress note, kept in the task_updated event."),
        agentId: actingAgentId.optional(),
        expectedVersion: expectedVersion("update"),
      })
      .refine((a) => CHANGES.some((field) => a[field] !== undefined), {
        error: `give at least one of ${CHANGES.join(", ")}`,
      }),
    output: taskShape,
    effect: "write",
    // A bound key may assign a task only to its own agent (or unassign it).
    acting: ["agentId", "owner"],
    events: ["task_updated"],
    errors: UPDATE_ERRORS,
    example: async (room) => {
      const task = await addedTask(room);
      return { taskId: task.id, status: "in_progress", owner: "alice", agentId: "alice" };
    },
    handler: (a, call) =>
      call.store.updateTask(call.scope, {
        taskId: a.taskId,
        status: a.status,
        owner: a.owner,
        title: a.title,
        description: a.description,
        depends_on: a.depends_on,
        priority: a.priority,
        note: a.note,
        agentId: a.agentId,
        expectedVersion: a.expectedVersion,
      }),
  }),
  defineTool({
    name: "set_task_priority",
    title: "Set a task's priority",
    description:
      "Set a task's priority: lower runs first in get_unblocked_tasks; null clears it (runs after every prioritised task). Same rules as update_task: another agent's task needs expectedVersion. Posts a task_updated event.",
    returns: "Task (as updated)",
    input: z.strictObject({
      roomId,
      taskId,
      priority: priority.nullable().describe("The new priority (lower runs first), or null to clear it."),
      agentId: actingAgentId.optional(),
      expectedVersion: expectedVersion("change"),
    }),
    output: taskShape,
    effect: "write",
    idempotent: true,
    acting: ["agentId"],
    events: ["task_updated"],
    errors: UPDATE_ERRORS,
    example: async (room) => ({ taskId: (await addedTask(room)).id, priority: 1, agentId: "alice" }),
    handler: (a, call) =>
      call.store.updateTask(call.scope, {
        taskId: a.taskId,
        priority: a.priority,
        agentId: a.agentId,
        expectedVersion: a.expectedVersion,
      }),
  }),
  defineTool({
    name: "delete_task",
    title: "Delete a task",
    description:
      "Delete a task from the plan. Refused while other tasks depend on it, unless force=true (their dependency then counts as unmet: fix them with update_task). Same rules as update_task: another agent's task needs expectedVersion. Posts a task_deleted event holding the task as it was.",
    returns: "Task (as it was before the deletion)",
    input: z.strictObject({
      roomId,
      taskId,
      force: z.boolean().optional().describe("Delete even while other tasks depend on it (default false)."),
      agentId: actingAgentId.optional(),
      expectedVersion: expectedVersion("deletion"),
    }),
    output: taskShape,
    effect: "destructive",
    acting: ["agentId"],
    events: ["task_deleted"],
    errors: [
      "Task not found: <id>",
      "Version conflict: task <id> is at version <n> (<status>, owned by <agent>); read it again before changing it",
      "Task <id> is owned by <agent>; pass expectedVersion (the version you read) to change it anyway",
      toolErrors.hasDependents("<id>", ["<id>", "…"]).message,
      PLAN_LOCKED,
    ],
    example: async (room) => ({ taskId: (await addedTask(room)).id, agentId: "alice" }),
    handler: (a, call) =>
      call.store.deleteTask(call.scope, {
        taskId: a.taskId,
        agentId: a.agentId,
        force: a.force,
        expectedVersion: a.expectedVersion,
      }),
  }),
  defineTool({
    name: "add_dependency",
    title: "Add a dependency",
    description:
      "Make a task depend on another one (appended to its depends_on; nothing changes if it is already there). The other task must exist and no cycle may form; an in_progress or done task may only gain a done dependency. Same rules as update_task: another agent's task needs expectedVersion. Posts a task_updated event.",
    returns: "Task (as updated)",
    input: z.strictObject({
      roomId,
      taskId,
      dependsOn: taskId.describe("The task that must be done first (e.g. task-2)."),
      agentId: actingAgentId.optional(),
      expectedVersion: expectedVersion("change"),
    }),
    output: taskShape,
    effect: "write",
    idempotent: true,
    acting: ["agentId"],
    events: ["task_updated"],
    errors: UPDATE_ERRORS,
    example: async (room) => {
      const first = await addedTask(room);
      const second = await room.call("add_task", { title: "Style the login page", agentId: "alice" });
      return { taskId: second.id, dependsOn: first.id, agentId: "alice" };
    },
    handler: (a, call) =>
      call.store.addDependency(call.scope, {
        taskId: a.taskId,
        dependsOn: a.dependsOn,
        agentId: a.agentId,
        expectedVersion: a.expectedVersion,
      }),
  }),
  defineTool({
    name: "get_task",
    title: "Read a task",
    description: "Read one task by id: its status, owner, dependencies, priority and version.",
    returns: "Task",
    input: z.strictObject({ roomId, taskId }),
    output: taskShape,
    effect: "read",
    errors: ["Task not found: <id>"],
    example: async (room) => ({ taskId: (await addedTask(room)).id }),
    handler: (a, call) => call.store.getTask(call.scope, a.taskId),
  }),
  defineTool({
    name: "get_unblocked_tasks",
    title: "List tasks ready to start",
    description:
      "List pending tasks you can start now: every dependency exists and is done (a dependency on a missing task counts as unmet). With agentId, only unowned tasks and that agent's own. Ordered by priority (lower first, none last), then plan order.",
    returns: "Task[], by priority then plan order",
    input: z.strictObject({
      roomId,
      agentId: otherAgentId
        .optional()
        .describe("Only tasks this agent may take: unowned ones and its own (usually your agent id)."),
    }),
    effect: "read",
    filters: ["agentId"],
    example: async (room) => {
      await addedTask(room);
      return { agentId: "alice" };
    },
    handler: async (a, call) => unblockedTasks((await call.store.readPlan(call.scope)).tasks, a.agentId),
  }),
  defineTool({
    name: "get_my_tasks",
    title: "List my tasks",
    description:
      "List the tasks you own (owner = your agent id), in plan order, with their status and version.",
    returns: "Task[], in plan order",
    input: z.strictObject({ roomId, agentId: actingAgentId }),
    effect: "read",
    acting: ["agentId"],
    example: async () => ({ agentId: "alice" }),
    handler: async (a, call) =>
      (await call.store.readPlan(call.scope)).tasks.filter((t) => t.owner === a.agentId),
  }),
  defineTool({
    name: "get_my_summary",
    title: "Start a session: my summary",
    description:
      "Start every session with this one call: messages people sent you (first, whatever your backlog), your tasks, your unread events (consumed, exactly as get_unread_events), how many context entries were written or updated since your previous summary, and who is online. Also records a heartbeat for you. A room with no state yet answers roomExists=false with a hint (check the room id) and is not created.",
    returns: "{agentId, roomId, messages, myTasks, unreadEvents, newContextCount, presence, cursor}",
    input: z.strictObject({
      roomId,
      agentId: actingAgentId,
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
      roomExists: z.boolean().describe("false when the room has no state yet (a summary never creates one)."),
      hint: z.string().optional(),
      messages: z
        .array(
          z.object({
            id: z.string(),
            seq: z.number().int(),
            from: z.string(),
            to: z.string(),
            text: z.string(),
            timestamp: z.string(),
          }),
        )
        .describe(
          "People's messages to you (or to all) you have not seen yet, oldest first. Act on them first.",
        ),
      myTasks: z.array(taskShape),
      unreadEvents: unreadShape,
      newContextCount: z.number().int(),
      presence: z.array(presenceShape),
      cursor: z.number().int().nullable(),
    }),
    effect: "write",
    acting: ["agentId"],
    example: async () => ({ agentId: "alice" }),
    handler: mySummary,
  }),
];
