/**
 * The room view's task board: pending tasks split into ready and waiting (with what each waits on), then in
 * progress, blocked and done; each card with its owner, priority, version, dependencies and lease.
 */
import { TASK_STATUSES } from "../../protocol/records.ts";
import { type Child, el, time } from "./dom.ts";
import { empty } from "./room-render.ts";
import type { View } from "./room-types.ts";

const STATUS_LABEL: Record<string, string> = {
  pending: "Pending",
  in_progress: "In progress",
  blocked: "Blocked",
  done: "Done",
};

/**
 * The board's columns, left to right: pending tasks split into those ready to start and those waiting on
 * dependencies that are not done (missing ones included, as get_unblocked_tasks counts them), then what runs, what
 * is stuck and what is done. Every task is in exactly one column, so the counts add up to the plan.
 */
const COLUMNS = [
  { key: "ready", label: "Ready", status: "pending", waiting: false },
  { key: "waiting", label: "Waiting", status: "pending", waiting: true },
  { key: "in_progress", label: "In progress", status: "in_progress" },
  { key: "blocked", label: "Blocked", status: "blocked" },
  { key: "done", label: "Done", status: "done" },
] as const;

type BoardTask = View["tasks"][number];

/** A task's dependencies that are not done, each with its status ("missing" for a deleted one). */
export function waitsOn(
  task: BoardTask,
  byId: ReadonlyMap<string, BoardTask>,
): { id: string; title?: string; status: string }[] {
  return task.depends_on.flatMap((id) => {
    const dep = byId.get(id);
    if (dep?.status === "done") return [];
    return [
      {
        id,
        ...(dep ? { title: dep.title } : {}),
        status: dep ? (STATUS_LABEL[dep.status] ?? dep.status).toLowerCase() : "deleted",
      },
    ];
  });
}

/** "task-3 “Design” (in progress), task-9 (deleted)". */
const depList = (deps: { id: string; title?: string; status: string }[]): Child[] =>
  deps.map((d, i) => [i > 0 ? ", " : "", d.id, d.title ? ` “${d.title}”` : "", ` (${d.status})`]);

function taskCard(t: BoardTask, byId: ReadonlyMap<string, BoardTask>): HTMLElement {
  const waiting = waitsOn(t, byId);
  const done = t.depends_on.filter((id) => byId.get(id)?.status === "done");
  return el(
    "article",
    { class: "card task", attrs: { "data-task": t.id, tabindex: "-1" } },
    el("h4", null, t.title),
    el(
      "p",
      { class: "meta" },
      t.id,
      " · ",
      t.owner ? `owner ${t.owner}` : "unowned",
      t.priority !== null ? ` · P${t.priority}` : "",
      ` · v${t.version}`,
    ),
    waiting.length > 0 ? el("p", { class: "waits" }, "Waits on ", ...depList(waiting)) : null,
    done.length > 0 ? el("p", { class: "meta" }, `Dependencies done: ${done.join(", ")}`) : null,
    t.lease_expires_at
      ? el("p", { class: "meta lease" }, `Leased by ${t.owner ?? "nobody"} · ends `, time(t.lease_expires_at))
      : null,
    t.description
      ? el("details", null, el("summary", null, "Description"), el("p", { class: "prose" }, t.description))
      : null,
  );
}

export function boardParts(view: Pick<View, "tasks">): Child[] {
  const byId = new Map(view.tasks.map((t) => [t.id, t]));
  const known = new Set<string>(COLUMNS.map((c) => c.status));
  const columns: { key: string; label: string; tasks: BoardTask[] }[] = COLUMNS.map((c) => ({
    key: c.key,
    label: c.label,
    tasks: view.tasks.filter(
      (t) => t.status === c.status && (!("waiting" in c) || waitsOn(t, byId).length > 0 === c.waiting),
    ),
  }));
  // A status this page does not know yet still gets a column of its own.
  for (const status of TASK_STATUSES.filter((s) => !known.has(s)))
    columns.push({ key: status, label: status, tasks: view.tasks.filter((t) => t.status === status) });
  return columns.map(({ key, label, tasks }) =>
    el(
      "section",
      { class: `column status-${key}`, attrs: { "aria-label": `${label} tasks`, "data-column": key } },
      el("h3", null, label, el("span", { class: "count" }, ` ${tasks.length}`)),
      ...(tasks.length === 0 ? [empty("None")] : tasks.map((t) => taskCard(t, byId))),
    ),
  );
}
