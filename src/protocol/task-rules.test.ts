/** Tasks' rules: claim refusals in their order, who may renew a lease, revisions, and the tasks that leave their holder. */
import { describe, expect, test } from "bun:test";
import { checkLeaseHolder } from "./leases.ts";
import type { Task } from "./records.ts";
import {
  claimedTask,
  handedTask,
  newTask,
  releasedTask,
  revisedTask,
  taskChanges,
  taskClaim,
} from "./task-rules.ts";

const T = Date.parse("2030-01-01T00:00:00.000Z");
const task = (fields: Partial<Task> = {}): Task => ({
  ...newTask(1, { title: "t", description: "", priority: null }, [], T),
  ...fields,
});

describe("taskClaim", () => {
  test("refusals in order: stale version, done, another's task, any status but pending", () => {
    const refusal = (t: Task, expectedVersion?: number) => {
      try {
        taskClaim(t, { agentId: "a", expectedVersion });
        return "none";
      } catch (error) {
        return (error as Error).message.split(":")[0]?.split(" ").slice(0, 4).join(" ");
      }
    };
    expect(refusal(task({ status: "done", owner: "b" }), 7)).toBe("Version conflict");
    expect(refusal(task({ status: "done", owner: "b" }))).toBe("Task task-1 is done;");
    expect(refusal(task({ status: "in_progress", owner: "b" }))).toBe("Task task-1 is owned");
    expect(refusal(task({ status: "blocked" }))).toBe("Task task-1 is blocked;");
    expect(refusal(task())).toBe("none");
  });

  test("the caller's own work in progress is renewed; a pending task is taken", () => {
    expect(taskClaim(task({ status: "in_progress", owner: "a" }), { agentId: "a" })).toBe("renew");
    expect(taskClaim(task({ owner: "a" }), { agentId: "a" })).toBe("take");
    const taken = claimedTask(task(), "a", "2030-01-01T00:01:00.000Z", T + 5);
    expect(taken).toMatchObject({
      status: "in_progress",
      owner: "a",
      version: 2,
      lease_expires_at: "2030-01-01T00:01:00.000Z",
    });
  });
});

describe("checkLeaseHolder", () => {
  test("renew_lease names a task: only the holder of its lease passes", () => {
    const leased = task({ status: "in_progress", owner: "a", lease_expires_at: "2030-01-01T00:00:10.000Z" });
    expect(() => checkLeaseHolder(leased, "a")).not.toThrow();
    expect(() => checkLeaseHolder(leased, "b")).toThrow("Task task-1 is not leased to you (owner: a)");
    expect(() => checkLeaseHolder(task({ owner: "a" }), "a")).toThrow("not leased to you (owner: a)");
    expect(() => checkLeaseHolder(task(), "a")).toThrow("not leased to you (no owner)");
  });
});

describe("revisions", () => {
  test("the holder's own update renews its lease; another's ends it", () => {
    const leased = task({ status: "in_progress", owner: "a", lease_expires_at: "2030-01-01T00:00:10.000Z" });
    expect(revisedTask(leased, { agentId: "a", title: "u" }, [], 60_000, T).lease_expires_at).toBe(
      "2030-01-01T00:01:00.000Z",
    );
    expect(revisedTask(leased, { agentId: "b", owner: "b" }, [], null, T).lease_expires_at).toBeUndefined();
    expect(taskChanges({ title: "u", depends_on: ["x", "x"] }, ["x"])).toEqual({
      title: "u",
      depends_on: ["x"],
    });
  });

  test("a handed or released task loses its lease and moves on a version", () => {
    const leased = task({ status: "in_progress", owner: "a", lease_expires_at: "2030-01-01T00:00:10.000Z" });
    expect(handedTask(leased, "b", T)).toEqual({
      ...task({ status: "in_progress" }),
      owner: "b",
      version: 2,
    });
    expect(releasedTask(leased, T)).toEqual({ ...task(), version: 2 });
  });
});
