/**
 * S4, concurrent plan writes: N agents each add their line to one shared task's description at the same moment —
 * read the task, think, write it back with their line appended (a read-modify-write).
 *
 * - blind (room-no-claims: the ablation drops every ownership guard, expectedVersion included): the write names no
 *   version, so a write made on a stale read silently drops the lines written since (a lost update);
 * - expectedVersion (room, room-no-context, room-poll): a stale write is refused; the agent reads again and retries;
 * - planLock (an extra variant of the room arm): the agent takes the `plan` lock first (retrying while another
 *   holds it), then reads, writes and releases;
 * - chat: each agent posts its line; the list is the union of the messages (nothing to lose, everything to read).
 * Lost updates = lines missing from the final description (read through the store by the harness).
 */
import { Actor } from "../harness/actor.ts";
import type { ArmRules } from "../harness/arms.ts";
import type { Random } from "../harness/random.ts";
import { type Harness, T0 } from "../harness/runner.ts";
import type { Ledger } from "../harness/session.ts";

export type WriteMode = "blind" | "expectedVersion" | "planLock" | "chat";

export const modeOf = (rules: ArmRules): WriteMode =>
  !rules.plan ? "chat" : rules.claims ? "expectedVersion" : "blind";

export interface PlanWritesOutcome {
  mode: WriteMode;
  writers: number;
  lostUpdates: number;
  refusedStaleWrites: number;
  lockRefusals: number;
  makespanMs: number;
  ledgers: Ledger[];
  coldStarts: { tokens: number; calls: number }[];
}

export async function runPlanWrites(
  h: Harness,
  rules: ArmRules,
  random: Random,
  roomId: string,
  writers: number,
  mode: WriteMode,
): Promise<PlanWritesOutcome> {
  const world = h.world(roomId, rules, random);
  const ids = rules.plan ? await h.seed(world, [{ title: "Release notes" }]) : new Map<string, string>();
  const taskId = ids.get("Release notes") as string;
  const out: PlanWritesOutcome = {
    mode,
    writers,
    lostUpdates: 0,
    refusedStaleWrites: 0,
    lockRefusals: 0,
    makespanMs: 0,
    ledgers: [],
    coldStarts: [],
  };
  const actors: Actor[] = [];
  const line = (agent: string) => `- change from ${agent}`;

  for (let i = 0; i < writers; i++) {
    const agentRandom = random.fork(`writer-${i}`);
    world.sim.spawn(async () => {
      const a = await Actor.join({ ...world, random: agentRandom }, `writer-${i + 1}`);
      actors.push(a);
      if (mode === "chat") {
        await a.think();
        await a.say(line(a.agentId));
        return a.session.close();
      }
      for (;;) {
        if (mode === "planLock") {
          const lock = await a.ops.acquireLock("plan");
          if (!(lock.value as { acquired?: boolean } | undefined)?.acquired) {
            out.lockRefusals++;
            await a.think();
            continue;
          }
        }
        const task = await a.ops.readTask(taskId);
        await a.think();
        const description = [task.description, line(a.agentId)].filter((l) => l !== "").join("\n");
        const change =
          mode === "expectedVersion" ? { description, expectedVersion: task.version } : { description };
        const wrote = await a.ops.update(taskId, change);
        if (mode === "planLock") await a.ops.releaseLock("plan");
        if (wrote.ok) break;
        out.refusedStaleWrites++;
      }
      await a.session.close();
    });
  }
  await world.sim.run();
  if (mode !== "chat") {
    const final = await h.target.store.getTask({ roomId, teamId: h.target.teamId }, taskId);
    out.lostUpdates = actors.filter((a) => !final.description.includes(line(a.agentId))).length;
  }
  out.makespanMs = world.sim.now() - T0;
  out.ledgers = actors.map((a) => a.session.ledger);
  out.coldStarts = actors.map((a) => ({ tokens: a.coldStartTokens, calls: a.coldStartCalls }));
  return out;
}
