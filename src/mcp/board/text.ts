/**
 * The board as a model or a text-only client reads it: a few short lines per part, the events as the timeline's
 * sentences (protocol/timeline.ts, the words of the room view and `roomctl watch`). Long parts are cut to their
 * first lines with "… and N more": the exact snapshot travels beside it as structuredContent.
 */
import type { Board, BoardTask } from "../../protocol/board.ts";
import { describeEvent, lineText, nameOf } from "../../protocol/timeline.ts";

/** Lines shown per part before "… and N more". */
const SHOWN = 10;

function part(title: string, items: string[], none: string): string[] {
  if (items.length === 0) return [`${title}: ${none}.`];
  const more = items.length > SHOWN ? [`  … and ${items.length - SHOWN} more`] : [];
  return [`${title} (${items.length}):`, ...items.slice(0, SHOWN).map((line) => `- ${line}`), ...more];
}

/** Pending tasks whose dependencies are not all done wait; the rest read by their status. */
function taskLine(task: BoardTask, done: ReadonlySet<string>): string {
  const waiting = task.depends_on.filter((id) => !done.has(id));
  const state =
    task.status === "pending" && waiting.length > 0
      ? `waiting on ${waiting.join(", ")}`
      : task.status.replace("_", " ");
  const owner = task.owner ? ` · ${nameOf(task.owner)}` : "";
  const lease = task.lease_expires_at ? ` · lease until ${task.lease_expires_at}` : "";
  return `${task.id} “${task.title}” — ${state}${owner}${lease}`;
}

/** The board as text. */
export function boardText(board: Board): string {
  const done = new Set(board.tasks.filter((t) => t.status === "done").map((t) => t.id));
  const open = board.tasks.filter((t) => t.status !== "done");
  const { driver } = board;
  const wheel = driver.holder
    ? `driven by ${nameOf(driver.holder)}${driver.holderKind === "agent" ? " (an agent)" : ""}`
    : "nobody drives";
  const omitted = Object.entries(board.omitted ?? {}).map(([list, n]) => `${n} ${list}`);
  return [
    `Room ${board.roomId} at event #${board.seq}: ${board.tasks.length} tasks, ${done.size} done; ${wheel}.`,
    ...part(
      "Open tasks",
      open.map((t) => taskLine(t, done)),
      "none",
    ),
    ...part(
      "Waiting for a decision",
      board.approvals.map(
        (a) => `${a.id} “${a.action}” asked by ${nameOf(a.requestedBy)}, expires ${a.expires_at}`,
      ),
      "nothing",
    ),
    ...part(
      "Here",
      board.presence.map((p) => `${p.agentId} ${p.status}${p.statusText ? ` — ${p.statusText}` : ""}`),
      "nobody yet",
    ),
    ...part(
      "File claims",
      board.claims.map((c) => `${c.path} by ${c.heldBy} until ${c.expiresAt}`),
      "none",
    ),
    ...part(
      "Open handoffs",
      board.handoffs.map((h) => `${h.id} ${nameOf(h.from)} → ${h.to}: ${h.taskIds.join(", ") || "no tasks"}`),
      "none",
    ),
    ...part(
      "Recent events",
      board.events.map((e) => `#${e.seq} ${lineText(describeEvent(e).parts)}`),
      "none",
    ),
    ...(omitted.length > 0 ? [`Left out to keep the board small: ${omitted.join(", ")}.`] : []),
  ].join("\n");
}
