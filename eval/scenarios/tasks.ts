/**
 * Taking and finishing tasks, by arm: claim_task (room arms with claims), update_task to in_progress (no-claims),
 * or a CLAIMING / DONE message (chat, whose task list is in the instructions).
 */
import type { Actor } from "../harness/actor.ts";
import type { TaskLike } from "../harness/ops.ts";

export interface Taken {
  id: string;
  title: string;
}

/**
 * Takes the first ready task `wanted` accepts: reads the ready tasks, then claims (a refusal: the next one) or,
 * without claims, marks it in progress. Null when none is ready. Chat: announces the task it was told to take.
 */
export async function take(
  a: Actor,
  wanted: (t: TaskLike) => boolean,
  chatTitle?: string,
): Promise<Taken | null> {
  const { rules } = a.world;
  if (!rules.plan) {
    if (chatTitle === undefined) return null;
    await a.say(`CLAIMING ${chatTitle}`);
    return { id: chatTitle, title: chatTitle };
  }
  const ready = (await a.ops.unblocked()).filter(wanted);
  for (const task of ready) {
    await a.think();
    if (!rules.claims) {
      const r = await a.ops.update(task.id, { status: "in_progress" });
      if (r.ok) return { id: task.id, title: task.title };
      continue;
    }
    if ((await a.ops.claim(task.id)).ok) return { id: task.id, title: task.title };
  }
  return null;
}

export async function finish(a: Actor, task: Taken, note: string): Promise<void> {
  if (!a.world.rules.plan) {
    await a.say(`DONE ${task.title}: ${note}`);
    return;
  }
  const r = await a.ops.update(task.id, { status: "done", note });
  if (!r.ok) throw new Error(`${a.agentId} could not finish ${task.id}: ${r.error}`);
}

/** True when an event the agent read says the task titled `title` is done. */
export function doneSeen(a: Actor, title: string): boolean {
  return a.seen.some((e) => {
    if (e.type === "message") return String(e.payload.text ?? "").startsWith(`DONE ${title}`);
    const task = e.payload.task as { title?: string; status?: string } | undefined;
    return e.type === "task_updated" && task?.title === title && task.status === "done";
  });
}

/**
 * A worker of the background team (S5's history): takes chores until none is left — in the room arms the first
 * ready one its arm lets it take, in chat the ones the instructions give it (every `of`-th, from `index`).
 */
export async function choreLoop(
  a: Actor,
  chores: { title: string; ms: number }[],
  index: number,
  of: number,
): Promise<void> {
  const mine = chores.filter((_, i) => i % of === index);
  for (let i = 0; ; i++) {
    const chore = a.world.rules.plan ? null : mine[i];
    if (!a.world.rules.plan && !chore) break;
    const task = await take(a, (t) => t.title.startsWith("Chore"), chore?.title);
    if (!task) break;
    await a.work(chores.find((c) => c.title === task.title)?.ms ?? 0);
    await finish(a, task, "done");
  }
}
