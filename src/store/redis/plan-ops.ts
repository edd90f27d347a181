/** Plan operations and the summary of the Redis store. */
import { effectiveTask } from "../../protocol/leases.ts";
import { PEOPLE_LIMITS } from "../../protocol/people.ts";
import { uniqueDependencies } from "../../protocol/plan-rules.ts";
import type { Summary } from "../../protocol/records.ts";
import { fieldTerms, type SearchFields, taskFields } from "../../protocol/search.ts";
import type { RoomStore, TaskUpdate } from "../types.ts";
import type { Call } from "./call.ts";
import type { TaskFields } from "./lua-plan.ts";
import { toMessage } from "./people-ops.ts";
import { type SearchTerms, sortTasks, toEvent, toPresenceList } from "./records.ts";

type PlanOps = Pick<RoomStore, "readPlan" | "addTask" | "updateTask" | "getTask" | "summary">;

/** The fields of a TaskUpdate that change the task, and those the task_updated event reports as `changes`. */
function updateFields(input: TaskUpdate) {
  const fields: TaskFields = {};
  if (input.status !== undefined) fields.status = input.status;
  if (input.owner !== undefined) fields.owner = input.owner;
  if (input.title !== undefined) fields.title = input.title;
  if (input.description !== undefined) fields.description = input.description;
  if (input.depends_on !== undefined) fields.depends_on = uniqueDependencies(input.depends_on);
  if (input.priority !== undefined) fields.priority = input.priority;
  const changes = input.note === undefined ? fields : { ...fields, note: input.note };
  return { fields, changes };
}

/** Search terms of the title and description an update changes, none when it changes neither. */
function changedTerms(input: TaskUpdate): SearchTerms | undefined {
  const fields: SearchFields = [];
  if (input.title !== undefined) fields.push(["title", input.title]);
  if (input.description !== undefined) fields.push(["description", input.description]);
  return fields.length === 0 ? undefined : fieldTerms(fields);
}

export function planOps(call: Call): PlanOps {
  return {
    async readPlan(scope) {
      const { value, now } = await call(scope, "READ_PLAN", {});
      return {
        project: scope.roomId,
        created_at: value.created_at,
        updated_at: value.updated_at,
        tasks: sortTasks(value.tasks).map((task) => effectiveTask(task, now)),
      };
    },

    async addTask(scope, input) {
      const { value } = await call(scope, "ADD_TASK", {
        agent: input.agentId,
        title: input.title,
        description: input.description,
        depsJson: uniqueDependencies(input.depends_on),
        priority: input.priority,
        from: input.agentId ?? "system",
        terms: fieldTerms(taskFields(input)),
      });
      return value;
    },

    async updateTask(scope, input) {
      const { fields, changes } = updateFields(input);
      const { value } = await call(scope, "UPDATE_TASK", {
        agent: input.agentId,
        id: input.taskId,
        expected: input.expectedVersion,
        fields,
        changes,
        from: input.agentId ?? "system",
        terms: changedTerms(input),
      });
      return value;
    },

    async getTask(scope, taskId) {
      const { value, now } = await call(scope, "GET_TASK", { id: taskId });
      return effectiveTask(value, now);
    },

    async summary(scope, agentId, limit) {
      const { value, now } = await call(scope, "SUMMARY", {
        agent: agentId,
        limit,
        msgMax: PEOPLE_LIMITS.messagesPerCall,
      });
      const events = value.unread.events.map(toEvent);
      const cursor = value.unread.cursor;
      return {
        agentId,
        roomId: scope.roomId,
        roomExists: value.exists,
        messages: value.messages.map(toMessage),
        // A lease that ran out makes the task nobody's (protocol/leases.ts).
        myTasks: sortTasks(value.tasks)
          .map((task) => effectiveTask(task, now))
          .filter((task) => task.owner === agentId),
        unreadEvents: {
          events,
          cursor,
          count: events.length,
          remaining: value.unread.remaining,
          ...(value.unread.trimmedBefore === undefined ? {} : { trimmedBefore: value.unread.trimmedBefore }),
        },
        newContextCount: value.newContextCount,
        presence: toPresenceList(value.presence, now),
        cursor,
      } satisfies Summary;
    },
  };
}
