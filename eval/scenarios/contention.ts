/**
 * S3, contention: N agents start together on K independent tasks; task i edits file i mod F, so two tasks can
 * share a file. Each agent reads what is ready, picks uniformly at random, and starts: with claims it claims the
 * task, then its file (a file held by another: the task goes back, the next one is tried); without claims it marks
 * the task in progress; in chat it posts CLAIMING, reads the channel, and backs off when an earlier CLAIMING of the
 * same task came first. The harness records every start (ground truth): a duplicate claim is a start of a task
 * another agent is working on, an overlapping file edit a start on a file another agent is editing.
 *
 * `firstPickOnly` runs the collision experiment behind p(N,K): every agent reads the same ready list at the same
 * instant, picks once and starts; `collided` says whether two of them stood on one task.
 */
import { Actor } from "../harness/actor.ts";
import type { ArmRules } from "../harness/arms.ts";
import type { Random } from "../harness/random.ts";
import { type Harness, T0 } from "../harness/runner.ts";
import type { Ledger } from "../harness/session.ts";

export interface ContentionOutcome {
  collided: boolean;
  duplicateClaims: number;
  overlappingFileEdits: number;
  claimConflicts: number;
  wastedWorkMs: number;
  makespanMs: number;
  ledgers: Ledger[];
  coldStarts: { tokens: number; calls: number }[];
}

/** The order an agent tries the ready tasks in: a Fisher–Yates shuffle of its own stream (its first try is uniform). */
export function shuffled<T>(random: Random, items: T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = random.between(0, i);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

export async function runContention(
  h: Harness,
  rules: ArmRules,
  random: Random,
  roomId: string,
  shape: { n: number; k: number; f: number; firstPickOnly: boolean },
): Promise<ContentionOutcome> {
  const world = h.world(roomId, rules, random);
  const titles = Array.from({ length: shape.k }, (_, i) => `Task ${i + 1}`);
  const fileOf = (title: string) => `src/mod-${(Number(title.slice(5)) - 1) % shape.f}.ts`;
  const sizes = random.fork("work");
  const workMs = new Map(titles.map((t) => [t, sizes.between(5, 20) * 60_000]));
  const ids = rules.plan
    ? await h.seed(
        world,
        titles.map((title) => ({ title })),
      )
    : new Map<string, string>();
  const out: ContentionOutcome = {
    collided: false,
    duplicateClaims: 0,
    overlappingFileEdits: 0,
    claimConflicts: 0,
    wastedWorkMs: 0,
    makespanMs: 0,
    ledgers: [],
    coldStarts: [],
  };
  const onTask = new Map<string, Set<string>>();
  const onFile = new Map<string, Set<string>>();
  const finished = new Set<string>();
  const firstStarts = new Map<string, number>();
  const actors: Actor[] = [];

  const start = (agent: string, title: string, first: boolean) => {
    const workers = onTask.get(title) ?? new Set();
    const editors = onFile.get(fileOf(title)) ?? new Set();
    if (workers.size > 0) out.duplicateClaims++;
    if (editors.size > 0) out.overlappingFileEdits++;
    workers.add(agent);
    editors.add(agent);
    onTask.set(title, workers);
    onFile.set(fileOf(title), editors);
    if (first) firstStarts.set(title, (firstStarts.get(title) ?? 0) + 1);
  };
  const stop = (agent: string, title: string) => {
    onTask.get(title)?.delete(agent);
    onFile.get(fileOf(title))?.delete(agent);
  };

  /** The tasks a chat agent believes free, from what it read: none DONE, none CLAIMED by another. */
  const chatFree = (a: Actor) => {
    const taken = new Set(
      a.seen.flatMap((e) => {
        const m = /^(CLAIMING|DONE) (Task \d+)/.exec(String(e.payload.text ?? ""));
        return m && (m[1] === "DONE" || e.from !== a.agentId) ? [m[2] as string] : [];
      }),
    );
    return titles.filter((t) => !taken.has(t));
  };

  /** Tries to start `title`; true when the agent now works on it. */
  async function attempt(a: Actor, title: string): Promise<boolean> {
    await a.think();
    if (!rules.plan) {
      const mine = await a.session.must<{ seq: number }>("post_event", {
        roomId,
        type: "message",
        to: "all",
        payload: { text: `CLAIMING ${title}` },
      });
      a.observe(await a.ops.unread());
      const earlier = a.seen.some(
        (e) => e.from !== a.agentId && e.seq < mine.seq && String(e.payload.text) === `CLAIMING ${title}`,
      );
      if (earlier) out.claimConflicts++;
      return !earlier;
    }
    const id = ids.get(title) as string;
    if (!rules.claims) return (await a.ops.update(id, { status: "in_progress" })).ok;
    if (!(await a.ops.claim(id)).ok) {
      out.claimConflicts++;
      return false;
    }
    const files = await a.ops.claimFiles([fileOf(title)]);
    const conflicts = (files.value as { conflicts?: unknown[] } | undefined)?.conflicts ?? [];
    if (!files.ok || conflicts.length > 0) {
      out.claimConflicts++;
      await a.ops.update(id, { status: "pending", owner: null });
      return false;
    }
    return true;
  }

  for (let i = 0; i < shape.n; i++) {
    const agentRandom = random.fork(`agent-${i}`);
    world.sim.spawn(async () => {
      const a = await Actor.join({ ...world, random: agentRandom }, `agent-${i + 1}`);
      actors.push(a);
      let first = true;
      for (;;) {
        const ready = rules.plan ? (await a.ops.unblocked()).map((t) => t.title) : chatFree(a);
        let took: string | undefined;
        for (const title of shuffled(agentRandom, ready)) {
          if (await attempt(a, title)) {
            took = title;
            break;
          }
        }
        if (took === undefined) break;
        start(a.agentId, took, first);
        first = false;
        if (shape.firstPickOnly) break;
        const ms = workMs.get(took) as number;
        await a.work(ms);
        stop(a.agentId, took);
        if (finished.has(took)) out.wastedWorkMs += ms;
        finished.add(took);
        if (rules.claims) await a.ops.releaseFiles([fileOf(took)]);
        if (rules.plan) await a.ops.update(ids.get(took) as string, { status: "done", note: "done" });
        else await a.say(`DONE ${took}`);
      }
      if (!shape.firstPickOnly) await a.leave();
      else await a.session.close();
    });
  }
  await world.sim.run();
  out.collided = [...firstStarts.values()].some((count) => count > 1);
  out.makespanMs = world.sim.now() - T0;
  out.ledgers = actors.map((a) => a.session.ledger);
  out.coldStarts = actors.map((a) => ({ tokens: a.coldStartTokens, calls: a.coldStartCalls }));
  return out;
}
