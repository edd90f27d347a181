/**
 * The plan's own rules (docs/protocol.md#the-plans-rules), as pure functions every driver applies inside its atomic
 * step (the Redis scripts carry the same rules in Lua, lua-plan.ts; the conformance suite holds both to the same
 * answers):
 * - a dependency must name a task of the room, and dependencies must not form a cycle;
 * - a task moves to in_progress or done only when every dependency is done;
 * - a task owned by another agent changes only by its owner, or by anyone passing expectedVersion.
 */
import { RoomError } from "./errors.ts";
import type { Task, TaskStatus } from "./records.ts";

/** Statuses that need every dependency done first. */
const NEEDS_DEPENDENCIES: ReadonlySet<TaskStatus> = new Set(["in_progress", "done"]);

export const planErrors = {
  unknownDependency: (id: string) =>
    new RoomError("invalid", `Unknown task in depends_on: ${id}; read_plan lists the task ids of this room`),
  cycle: (path: string[]) => new RoomError("invalid", `Dependency cycle: ${path.join(" → ")}`),
  blocked: (id: string, blockers: string[]) =>
    new RoomError("conflict", `Task ${id} is blocked by ${blockers.join(", ")}; finish those first`),
  ownedByOther: (id: string, owner: string) =>
    new RoomError(
      "conflict",
      `Task ${id} is owned by ${owner}; pass expectedVersion (the version you read) to change it anyway`,
    ),
};

/** Dependencies with duplicates removed, in the order given. */
export const uniqueDependencies = (deps: readonly string[]): string[] => [...new Set(deps)];

/**
 * Refuses dependencies naming no task of the room, and a cycle through `taskId` (its new dependencies, followed
 * through everyone's current ones). `dependsOn(id)` gives a task's current dependencies, or undefined when there
 * is no such task. The cycle is reported as the path from the task back to itself.
 */
export function checkDependencies(
  taskId: string,
  deps: readonly string[],
  dependsOn: (id: string) => readonly string[] | undefined,
): void {
  checkKnown(
    deps.filter((dep) => dep !== taskId),
    (id) => dependsOn(id) !== undefined,
  );
  // Depth-first from each new dependency: reaching taskId again closes a cycle.
  const seen = new Set<string>();
  const walk = (id: string, path: string[]): string[] | null => {
    if (id === taskId) return [...path, id];
    if (seen.has(id)) return null;
    seen.add(id);
    for (const next of dependsOn(id) ?? []) {
      const found = walk(next, [...path, id]);
      if (found) return found;
    }
    return null;
  };
  for (const dep of deps) {
    const cycle = walk(dep, [taskId]);
    if (cycle) throw planErrors.cycle(cycle);
  }
}

/** Refuses a dependency naming no task of the room (a new task's, which cannot close a cycle yet). */
export function checkKnown(deps: readonly string[], exists: (id: string) => boolean): void {
  for (const dep of deps) if (!exists(dep)) throw planErrors.unknownDependency(dep);
}

/** The dependencies that are not done, as "t2 (pending)" / "t9 (missing)", in the task's order. */
export function blockersOf(task: Pick<Task, "depends_on">, statusOf: (id: string) => TaskStatus | undefined) {
  return task.depends_on
    .map((dep) => ({ dep, status: statusOf(dep) }))
    .filter((d) => d.status !== "done")
    .map((d) => `${d.dep} (${d.status ?? "missing"})`);
}

/** Refuses moving a task to in_progress or done while a dependency is not done. */
export function checkStatus(
  task: Pick<Task, "id" | "depends_on">,
  status: TaskStatus,
  statusOf: (id: string) => TaskStatus | undefined,
): void {
  if (!NEEDS_DEPENDENCIES.has(status)) return;
  const blockers = blockersOf(task, statusOf);
  if (blockers.length > 0) throw planErrors.blocked(task.id, blockers);
}

/** Refuses a change to another agent's task unless the caller passed expectedVersion (a deliberate take-over). */
export function checkOwnership(
  task: Pick<Task, "id" | "owner">,
  agentId: string | undefined,
  expectedVersion: number | undefined,
): void {
  if (task.owner !== null && task.owner !== agentId && expectedVersion === undefined) {
    throw planErrors.ownedByOther(task.id, task.owner);
  }
}

/**
 * A dependency cycle anywhere in a whole plan (an import's: every task at once, where a write checks one), as the
 * path from a task back to itself, or null. `dependsOn(id)` gives a task's dependencies, undefined for no such task
 * (a dependency on a deleted task leads nowhere). Iterative and visiting each task and dependency once, so a plan
 * of any size or depth costs O(tasks + dependencies).
 */
export function findCycle(
  ids: Iterable<string>,
  dependsOn: (id: string) => readonly string[] | undefined,
): string[] | null {
  // On the current path (true) or fully explored (false).
  const onPath = new Map<string, boolean>();
  for (const root of ids) {
    if (onPath.has(root)) continue;
    const path = [{ id: root, deps: dependsOn(root) ?? [], next: 0 }];
    onPath.set(root, true);
    while (path.length > 0) {
      const top = path[path.length - 1] as (typeof path)[number];
      const dep = top.deps[top.next++];
      if (dep === undefined) {
        onPath.set(top.id, false);
        path.pop();
        continue;
      }
      const deps = dependsOn(dep);
      if (deps === undefined || onPath.get(dep) === false) continue;
      if (onPath.get(dep) === true) {
        const from = path.findIndex((step) => step.id === dep);
        return [...path.slice(from).map((step) => step.id), dep];
      }
      onPath.set(dep, true);
      path.push({ id: dep, deps, next: 0 });
    }
  }
  return null;
}
