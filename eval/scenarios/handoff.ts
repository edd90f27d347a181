/**
 * S1, a producer→consumer handoff, and S2, the same with a mid-stream change.
 *
 * The backend drafts the orders contract (task "API contract"), publishes it to the frontend, then implements it
 * ("API implementation"); the frontend waits for the contract, then builds the client against it ("Web client").
 * In S2 the frontend finds, halfway through, that it needs a `cursor` field the contract lacks: it asks for a
 * change (a change_request entry, an event, or a message) and waits; the backend publishes version 1.1 at its next
 * turn; the frontend redoes a third of its work against it (wasted work) and finishes.
 * The backend stays until the client is done, to serve change requests. Correct: the client was built against
 * the latest version published.
 */
import { Actor } from "../harness/actor.ts";
import type { ArmRules } from "../harness/arms.ts";
import { emptyTally, type Tally } from "../harness/metrics.ts";
import type { EventLike } from "../harness/ops.ts";
import type { Random } from "../harness/random.ts";
import { coldStarts, type Harness, T0 } from "../harness/runner.ts";
import {
  BASE_FIELDS,
  changeAsked,
  contract,
  type Published,
  publish,
  requestChange,
  trackVersions,
  versionSeen,
} from "./contract.ts";
import { answerQuestions, awaitFact } from "./patience.ts";
import { choreLoop, doneSeen, finish, take } from "./tasks.ts";

const TITLES = { contract: "API contract", api: "API implementation", client: "Web client" };

export interface HandoffRun {
  tally: Tally;
  actors: Actor[];
  /** S5: what the agent joining mid-flight spent to recover, and whether it then knew the current contract. */
  newcomer: { tokens: number; calls: number; knewVersion: boolean; events: number } | null;
}

export async function runHandoff(
  h: Harness,
  rules: ArmRules,
  random: Random,
  roomId: string,
  change: boolean,
  newcomerAtMs: number | null = null,
): Promise<HandoffRun> {
  const world = h.world(roomId, rules, random);
  const tally = emptyTally();
  const actors: Actor[] = [];
  // S5 adds a background team working through chores, so the newcomer joins a room with a history.
  const team = newcomerAtMs === null ? 0 : 3;
  const choreSizes = random.fork("chores");
  const chores = Array.from({ length: team * 5 }, (_, i) => ({
    title: `Chore ${i + 1}`,
    ms: choreSizes.between(5, 15) * 60_000,
  }));
  if (rules.plan)
    await h.seed(world, [
      { title: TITLES.contract },
      { title: TITLES.api, after: [TITLES.contract] },
      { title: TITLES.client, after: [TITLES.contract] },
      ...chores.map((c) => ({ title: c.title })),
    ]);
  for (let w = 0; w < team; w++) {
    const workerRandom = random.fork(`worker-${w}`);
    world.sim.spawn(async () => {
      const a = await Actor.join({ ...world, random: workerRandom }, `worker-${w + 1}`);
      actors.push(a);
      await choreLoop(a, chores, w, team);
      await a.leave();
    });
  }
  const published: Published = { contextId: null, version: "", times: new Map() };
  const seenAt = new Map<string, number>();
  const relays = { count: 0 };
  let built = "";
  let clientDone = false;
  // Work comes from a stream of its own: every arm gets the same tasks of the same sizes.
  const sizes = random.fork("work");
  const draftMs = sizes.between(5, 15) * 60_000;
  const apiMs = sizes.between(20, 40) * 60_000;
  const clientMs = sizes.between(10, 25) * 60_000;
  const backendRandom = random.fork("backend");
  const frontendRandom = random.fork("frontend");

  world.sim.spawn(async () => {
    const a = await Actor.join({ ...world, random: backendRandom }, "backend");
    actors.push(a);
    const mine = (title: string) => (t: { title: string }) => t.title === title;
    const first = await take(a, mine(TITLES.contract), TITLES.contract);
    if (!first) throw new Error("backend found no contract task");
    await a.work(draftMs);
    await publish(a, published, contract(0, BASE_FIELDS), "frontend");
    await finish(a, first, "contract published");
    await a.think();
    const second = await take(a, mine(TITLES.api), TITLES.api);
    if (!second) throw new Error("backend found no implementation task");
    let served = false;
    const serve = async (events: EventLike[]) => {
      await answerQuestions(a, events, () => `backend: contract ${published.version} is published`);
      const field = await changeAsked(a, events);
      if (field && !served) {
        served = true;
        await a.think();
        await publish(a, published, contract(1, [...BASE_FIELDS, field]), "frontend");
      }
      return false;
    };
    await a.work(apiMs, serve);
    await finish(a, second, `implements ${published.version}`);
    while (!clientDone && !doneSeen(a, TITLES.client)) await serve(await a.idle());
    await a.leave();
  });

  world.sim.spawn(async () => {
    const a = await Actor.join({ ...world, random: frontendRandom }, "frontend");
    actors.push(a);
    trackVersions(a, seenAt);
    const ready = () => (rules.plan ? doneSeen(a, TITLES.contract) : versionSeen(a).version !== null);
    await awaitFact(h, a, ready, "the orders contract", relays);
    await a.think();
    const task = await take(a, (t) => t.title === TITLES.client, TITLES.client);
    if (!task) throw new Error("frontend found no client task");
    const learn = async () => {
      const seen = versionSeen(a);
      // Room arms read the entry itself (the event carries only its summary and version).
      if (rules.context && seen.contextId !== null) return (await a.ops.readContext(seen.contextId)).version;
      if (!rules.context && seen.version === null)
        await awaitFact(h, a, () => versionSeen(a).version !== null, "the orders contract", relays);
      return versionSeen(a).version as string;
    };
    built = await learn();
    const total = clientMs;
    if (change) {
      await a.work(Math.round(total / 2));
      await requestChange(a, "backend", "cursor", rules.plan ? task.id : null);
      const before = built;
      await awaitFact(h, a, () => versionSeen(a).version !== before, "the cursor field", relays);
      built = await learn();
      const redo = Math.round(total / 3);
      tally.wastedWorkMs += redo;
      await a.work(redo + total - Math.round(total / 2));
    } else await a.work(total);
    // The version it built against is the newest it has read by now.
    built = versionSeen(a).version ?? built;
    await finish(a, task, `built against ${built}`);
    clientDone = true;
    await a.leave();
  });

  let newcomer: HandoffRun["newcomer"] = null;
  if (newcomerAtMs !== null) {
    const newcomerRandom = random.fork("newcomer");
    world.sim.spawn(async () => {
      const a = await Actor.join({ ...world, random: newcomerRandom }, "newcomer");
      // Recovering the contract: a typed list (context), the log (events only), or the replay it already read.
      if (rules.context) {
        const entries = await a.session.must<{ id: string; version: string }[]>("list_context", {
          roomId,
          type: "api_contract",
        });
        if (entries[0])
          a.observe([
            {
              seq: 0,
              type: "context_updated",
              from: "",
              to: "",
              payload: { contextType: "api_contract", version: entries[0].version },
            },
          ]);
      } else if (rules.plan) a.observe(await a.ops.transcript());
      if (rules.plan) await a.ops.unblocked();
      const l = a.session.ledger;
      newcomer = {
        tokens: l.contextTokens + l.resultTokens + l.outputTokens,
        calls: l.calls,
        knewVersion: versionSeen(a).version === published.version,
        events: (await h.target.store.roomState({ roomId, teamId: h.target.teamId })).lastSeq,
      };
      actors.push(a);
      await a.leave();
    }, newcomerAtMs);
  }
  await world.sim.run();
  tally.ledgers = actors.map((a) => a.session.ledger);
  tally.coldStarts = coldStarts(actors);
  tally.interventions = relays.count;
  tally.handoffs = [{ correct: built === published.version }];
  for (const [version, at] of published.times) {
    const seen = seenAt.get(version);
    if (seen !== undefined) tally.staleness.push(seen - at);
  }
  tally.makespanMs = world.sim.now() - T0;
  tally.tasks = 3 + chores.length;
  return { tally, actors, newcomer };
}
