/**
 * The compact profile (?profile=compact, the one roomd prints): the canonical workflow in few tools with terse
 * descriptions, over the same store operations as the full profile. roomId and agentId may be left out when the
 * X-Roomd-Room / X-Roomd-Agent headers, an invite or a bound key give them (context "optional"). Locks and file
 * claims are one tool each, with an action. The steps involving someone else (ask, handoff, leave) are in
 * compact-people.ts; test/instructions.test.ts holds the list to its token budget.
 */
import { z } from "zod";
import { RoomError } from "../../protocol/errors.ts";
import { agentIdSchema, roomIdSchema } from "../../protocol/ids.ts";
import { LIMITS } from "../../protocol/limits.ts";
import { validatePayload } from "../../protocol/payloads.ts";
import { FIELDS } from "../../protocol/record-fields.ts";
import { BROADCAST } from "../../protocol/records.ts";
import { jsonObject } from "../../protocol/validation.ts";
import {
  contextId,
  contextType,
  eventPayload,
  otherAgentId,
  postableEventType,
  taskId,
  taskStatus,
} from "../schemas.ts";
import { defineTool, type Profile } from "../tool.ts";
import { claimPaths, claimReason, claimTtl, distinct } from "./claims.ts";
import { waitFor } from "./events.ts";
import { leaseSeconds } from "./leases.ts";
import { addedTask, mySummary, unblockedTasks } from "./plan.ts";

const COMPACT: readonly Profile[] = ["compact"];
const room = roomIdSchema.describe("Room; default: X-Roomd-Room header or your invite's room.");
const me = agentIdSchema.describe("You; default: X-Roomd-Agent header or your key's agent.");
const common = { context: "optional", profiles: COMPACT, terse: true } as const;

const invalid = (message: string) => new RoomError("invalid", `Invalid arguments: ${message}`);

export const compactTools = [
  defineTool({
    ...common,
    name: "summary",
    title: "My summary",
    description:
      "Start each session here: your tasks, your unread events (consumed), new context count, who is online.",
    returns: "{myTasks, unreadEvents, newContextCount, presence, cursor}",
    input: z.strictObject({
      roomId: room,
      agentId: me,
      limit: z.number().int().min(1).max(LIMITS.unreadMax).optional().describe("Max events (default 20)."),
    }),
    effect: "write",
    acting: ["agentId"],
    example: async () => ({ agentId: "alice" }),
    handler: mySummary,
  }),
  defineTool({
    ...common,
    name: "wait",
    title: "Wait for my next events",
    description:
      "Between turns: returns your unread events (consumed) at once, or waits up to timeoutSeconds for the next one addressed to you or all; timedOut true when none came.",
    returns: "{events, cursor, count, remaining, timedOut}",
    input: z.strictObject({
      roomId: room,
      agentId: me,
      timeoutSeconds: z
        .number()
        .int()
        .min(0)
        .max(LIMITS.waitSecondsMax)
        .optional()
        .describe(`Default ${LIMITS.waitSecondsDefault}.`),
      limit: z.number().int().min(1).max(LIMITS.unreadMax).optional().describe("Max events (default 50)."),
    }),
    effect: "write",
    acting: ["agentId"],
    example: async (r) => {
      await addedTask(r);
      return { agentId: "alice", timeoutSeconds: 0 };
    },
    handler: waitFor,
  }),
  defineTool({
    ...common,
    name: "plan",
    title: "Read the plan",
    description:
      "The room's tasks (status, owner, depends_on, version); ready=true: only those you can claim now.",
    returns: "Plan, or Task[] with ready",
    input: z.strictObject({
      roomId: room,
      ready: z.boolean().optional().describe("Only pending tasks whose dependencies are done."),
    }),
    effect: "read",
    example: async (r) => {
      await addedTask(r);
      return { ready: true };
    },
    handler: async (a, call) => {
      const plan = await call.store.readPlan(call.scope);
      return a.ready ? unblockedTasks(plan.tasks) : plan;
    },
  }),
  defineTool({
    ...common,
    name: "claim",
    title: "Claim a task",
    description:
      "Take a pending task atomically (one winner; others are told the owner). Your calls keep its lease alive.",
    returns: "Task",
    input: z.strictObject({ roomId: room, agentId: me, taskId, leaseSeconds: leaseSeconds.optional() }),
    effect: "write",
    acting: ["agentId"],
    events: ["task_claimed"],
    example: async (r) => ({ agentId: "alice", taskId: (await addedTask(r)).id }),
    handler: (a, call) =>
      call.store.claimTask(call.scope, {
        taskId: a.taskId,
        agentId: a.agentId,
        leaseMs: (a.leaseSeconds ?? LIMITS.leaseDefaultSeconds) * 1000,
      }),
  }),
  defineTool({
    ...common,
    name: "update",
    title: "Update my task",
    description:
      "Set a task's status and/or add a progress note; status pending gives the task back (no owner).",
    returns: "Task",
    input: z.strictObject({
      roomId: room,
      agentId: me,
      taskId,
      status: taskStatus.optional().describe("New status."),
      note: FIELDS.taskNote.optional().describe("Progress note (in the event)."),
      expectedVersion: z.number().int().min(1).optional().describe("Refuse if the task changed since."),
    }),
    effect: "write",
    acting: ["agentId"],
    events: ["task_updated"],
    example: async (r) => {
      const task = await addedTask(r);
      await r.call("claim_task", { taskId: task.id, agentId: "alice" });
      return { agentId: "alice", taskId: task.id, status: "done", note: "shipped" };
    },
    handler: (a, call) => {
      if (a.status === undefined && a.note === undefined) throw invalid("arguments: give status or note");
      return call.store.updateTask(call.scope, {
        taskId: a.taskId,
        status: a.status,
        ...(a.status === "pending" ? { owner: null } : {}),
        note: a.note,
        agentId: a.agentId,
        expectedVersion: a.expectedVersion,
      });
    },
  }),
  defineTool({
    ...common,
    name: "context_write",
    title: "Publish context",
    description:
      "Publish a typed entry others build on (api_contract, arch_decision, task, change_request, note); consuming_agents are notified.",
    returns: "ContextEntry",
    input: z.strictObject({
      roomId: room,
      agentId: me,
      type: contextType.describe("Entry type."),
      summary: FIELDS.contextSummary.describe("One or two sentences."),
      payload: jsonObject.describe("Content; shape per type, as write_context documents (note: {text})."),
      consuming_agents: z
        .array(otherAgentId)
        .max(LIMITS.consumingAgentsMax)
        .optional()
        .describe("Agents to notify."),
    }),
    effect: "write",
    acting: ["agentId"],
    addressees: ["consuming_agents"],
    events: ["context_available"],
    example: async () => ({
      agentId: "alice",
      type: "note",
      summary: "Staging uses port 8080",
      payload: { text: "Staging listens on port 8080." },
    }),
    handler: (a, call) => {
      validatePayload(a.type, a.payload);
      return call.store.writeContext(call.scope, {
        type: a.type,
        summary: a.summary,
        consuming_agents: a.consuming_agents ?? [],
        payload: a.payload,
        author: a.agentId,
      });
    },
  }),
  defineTool({
    ...common,
    name: "context_read",
    title: "Read context",
    description:
      "Read one context entry by id, or list the entries (optionally of one type) when id is omitted.",
    returns: "ContextEntry, or ContextEntry[]",
    input: z.strictObject({
      roomId: room,
      id: contextId.optional(),
      type: contextType.optional().describe("When listing: only this type."),
    }),
    effect: "read",
    example: async (r) => {
      await r.call("write_context", {
        type: "note",
        summary: "s",
        consuming_agents: [],
        payload: { text: "t" },
        author: "alice",
      });
      return {};
    },
    handler: (a, call) =>
      a.id !== undefined
        ? call.store.readContext(call.scope, a.id)
        : call.store.listContext(call.scope, a.type === undefined ? {} : { type: a.type }),
  }),
  defineTool({
    ...common,
    name: "post",
    title: "Post an event",
    description: "Post an event to everyone (default) or one agent, e.g. type task_blocked or question.",
    returns: "Event",
    input: z.strictObject({
      roomId: room,
      agentId: me,
      type: postableEventType(FIELDS.eventType).describe("Event type."),
      to: otherAgentId.optional().describe('One agent, or "all" (default).'),
      payload: eventPayload.optional().describe("JSON object (default {})."),
    }),
    effect: "write",
    acting: ["agentId"],
    addressees: ["to"],
    events: ["<type>"],
    example: async () => ({ agentId: "alice", type: "task_blocked", payload: { taskId: "task-1" } }),
    handler: (a, call) =>
      call.store.postEvent(call.scope, {
        type: a.type,
        from: a.agentId,
        to: a.to ?? BROADCAST,
        payload: a.payload ?? {},
      }),
  }),
  defineTool({
    ...common,
    name: "lock",
    title: "Locks",
    description:
      'acquire (never waits; acquired=false names the holder; the holder renews), release, or list locks. "plan" guards plan writes.',
    returns: "LockState | {released} | Lock[]",
    input: z.strictObject({
      roomId: room,
      agentId: me,
      action: z.enum(["acquire", "release", "list"]).describe("What to do."),
      resource: FIELDS.lockResource.optional().describe("What the lock guards (acquire, release)."),
      ttlSeconds: z.number().int().min(1).max(LIMITS.lockTtlMaxSeconds).optional().describe("Default 30."),
    }),
    effect: "write",
    acting: ["agentId"],
    example: async () => ({ agentId: "alice", action: "acquire", resource: "db/schema" }),
    handler: (a, call) => {
      if (a.action === "list") return call.store.listLocks(call.readScope);
      if (a.resource === undefined) throw invalid(`resource: required to ${a.action}`);
      return a.action === "acquire"
        ? call.store.acquireLock(
            call.scope,
            a.resource,
            a.agentId,
            (a.ttlSeconds ?? LIMITS.lockTtlDefaultSeconds) * 1000,
          )
        : call.store.releaseLock(call.scope, a.resource, a.agentId);
    },
  }),
  defineTool({
    ...common,
    name: "files",
    title: "File claims",
    description:
      "claim files before editing (all or nothing; conflicts name the holder), release them, check them (free/mine/held), or list claims.",
    returns: "{claimed, conflicts} | {released} | [{path, state}] | FileClaim[]",
    input: z.strictObject({
      roomId: room,
      agentId: me,
      action: z.enum(["claim", "release", "check", "list"]).describe("What to do."),
      paths: claimPaths
        .optional()
        .describe("Paths or globs (src/a.ts, src/**); release: omit for all yours."),
      ttlSeconds: claimTtl.optional(),
      reason: claimReason.optional(),
    }),
    effect: "write",
    acting: ["agentId"],
    events: ["files_claimed", "files_released"],
    example: async () => ({ agentId: "alice", action: "claim", paths: ["src/auth/**"] }),
    handler: (a, call) => {
      const paths = a.paths === undefined ? undefined : distinct(a.paths);
      switch (a.action) {
        case "list":
          return call.store.listClaims(call.readScope, {});
        case "release":
          return call.store.releaseFiles(call.scope, a.agentId, paths);
        default: {
          if (paths === undefined) throw invalid(`paths: required to ${a.action}`);
          if (a.action === "check") return call.store.checkFiles(call.readScope, a.agentId, paths);
          return call.store.claimFiles(call.scope, {
            agentId: a.agentId,
            paths,
            ttlMs: (a.ttlSeconds ?? LIMITS.claimTtlDefaultSeconds) * 1000,
            reason: a.reason,
          });
        }
      }
    },
  }),
];
