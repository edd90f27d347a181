/** Lease tools (2): take a task atomically with a lease the owner's calls keep alive (protocol/leases.ts). */
import { z } from "zod";
import { LIMITS } from "../../protocol/limits.ts";
import { actingAgentId, roomId, taskId, taskShape } from "../schemas.ts";
import { defineTool } from "../tool.ts";
import { addedTask } from "./plan.ts";

const PLAN_LOCKED = "Plan is locked by <agent> until <time>; retry after it";
export const CLAIM_ERRORS = [
  "Task not found: <id>",
  "Version conflict: task <id> is at version <n> (<status>, owned by <agent>); read it again before changing it",
  "Task <id> is done; only pending tasks can be claimed",
  "Task <id> is owned by <agent> (lease until <time>); pick another task",
  "Task <id> is blocked by <id> (<status>), …; finish those first",
  PLAN_LOCKED,
];

/** claim_task's leaseSeconds. */
export const leaseSeconds = z
  .number()
  .int()
  .min(LIMITS.leaseMinSeconds)
  .max(LIMITS.leaseMaxSeconds)
  .describe(
    `Seconds the lease lasts past your last call in this room (${LIMITS.leaseMinSeconds}-${LIMITS.leaseMaxSeconds}, default ${LIMITS.leaseDefaultSeconds}); any call of yours renews it.`,
  );

export const expectedTaskVersion = z
  .number()
  .int()
  .min(1)
  .describe("The version you read; the claim is refused if the task changed since.");

export const leaseTools = [
  defineTool({
    name: "claim_task",
    title: "Claim a task",
    description:
      "Take a pending task for yourself, atomically: when several agents claim the same task exactly one wins; the others are told who owns it. The task becomes in_progress and yours, with a lease (lease_expires_at) that every call you make in this room renews; if you go silent past it, the task returns to pending for others. Refused when the task is done, owned by someone else, or blocked by unfinished dependencies. Claiming your own in-progress task again just renews the lease. Posts a task_claimed event.",
    returns: "Task (in_progress, yours, with lease_expires_at)",
    input: z.strictObject({
      roomId,
      taskId,
      agentId: actingAgentId,
      leaseSeconds: leaseSeconds.optional(),
      expectedVersion: expectedTaskVersion.optional(),
    }),
    output: taskShape,
    effect: "write",
    acting: ["agentId"],
    events: ["task_claimed", "task_lease_expired"],
    errors: CLAIM_ERRORS,
    example: async (room) => ({ taskId: (await addedTask(room)).id, agentId: "alice" }),
    handler: (a, call) =>
      call.store.claimTask(call.scope, {
        taskId: a.taskId,
        agentId: a.agentId,
        leaseMs: (a.leaseSeconds ?? LIMITS.leaseDefaultSeconds) * 1000,
        expectedVersion: a.expectedVersion,
      }),
  }),
  defineTool({
    name: "renew_lease",
    title: "Renew my leases",
    description:
      "Renew the leases of the tasks you claimed (each by its own length) and list them with their new lease_expires_at; with taskId, only that task, which must be leased to you. Any other call you make in the room renews them too, so this is only needed when you have nothing else to call.",
    returns: "Task[] (your leased tasks, in plan order)",
    input: z.strictObject({
      roomId,
      agentId: actingAgentId,
      taskId: taskId.optional().describe("Only this task (it must be leased to you)."),
    }),
    effect: "write",
    idempotent: true,
    acting: ["agentId"],
    events: ["task_lease_expired"],
    errors: [
      "Task not found: <id>",
      "Task <id> is not leased to you (owner: <agent>); claim it with claim_task",
    ],
    example: async (room) => {
      const task = await addedTask(room);
      await room.call("claim_task", { taskId: task.id, agentId: "alice" });
      return { agentId: "alice" };
    },
    handler: (a, call) => call.store.renewLeases(call.scope, a.agentId, a.taskId),
  }),
];
