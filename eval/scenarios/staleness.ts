/**
 * S6, staleness: the contract changes while its consumer works. The producer publishes `revisions` new versions
 * at random intervals (each adds a field), then finishes its task. The consumer, between rebuilds, waits idle —
 * wait_for_events under push, get_unread_events every pollMs under polling — and on each new version it reads the
 * contract and rebuilds its client (work, in turns). Staleness = from a version's publication to the consumer's
 * first read of it; correct = its last build used the last version. Room-poll is run at several intervals.
 */
import { Actor } from "../harness/actor.ts";
import type { ArmRules } from "../harness/arms.ts";
import { emptyTally, type Tally } from "../harness/metrics.ts";
import type { Random } from "../harness/random.ts";
import { coldStarts, type Harness, T0 } from "../harness/runner.ts";
import { BASE_FIELDS, contract, type Published, publish, trackVersions, versionSeen } from "./contract.ts";
import { awaitFact } from "./patience.ts";
import { doneSeen, finish, take } from "./tasks.ts";

const TITLES = { contract: "Orders contract upkeep", client: "Orders client upkeep" };

export async function runStaleness(
  h: Harness,
  rules: ArmRules,
  random: Random,
  roomId: string,
  revisions: number,
): Promise<Tally> {
  const world = h.world(roomId, rules, random);
  if (rules.plan) await h.seed(world, [{ title: TITLES.contract }, { title: TITLES.client }]);
  const tally = emptyTally();
  const sizes = random.fork("work");
  const gaps = Array.from({ length: revisions + 1 }, () => sizes.between(3, 20) * 60_000);
  const rebuildMs = Array.from({ length: revisions + 1 }, () => sizes.between(2, 6) * 60_000);
  const published: Published = { contextId: null, version: "", times: new Map() };
  const seenAt = new Map<string, number>();
  const relays = { count: 0 };
  const actors: Actor[] = [];
  let built = "";

  world.sim.spawn(async () => {
    const a = await Actor.join({ ...world, random: random.fork("producer") }, "producer");
    actors.push(a);
    const task = await take(a, (t) => t.title === TITLES.contract, TITLES.contract);
    if (!task) throw new Error("producer found no task");
    const fields = [...BASE_FIELDS];
    for (let r = 0; r <= revisions; r++) {
      await a.work(gaps[r] as number);
      if (r > 0) fields.push(`field_${r}`);
      await publish(a, published, contract(r, fields), "consumer");
    }
    await finish(a, task, `last version ${published.version}`);
    await a.leave();
  });

  world.sim.spawn(async () => {
    const a = await Actor.join({ ...world, random: random.fork("consumer") }, "consumer");
    actors.push(a);
    trackVersions(a, seenAt);
    const task = await take(a, (t) => t.title === TITLES.client, TITLES.client);
    if (!task) throw new Error("consumer found no task");
    await awaitFact(h, a, () => versionSeen(a).version !== null, "the orders contract", relays);
    let rebuilds = 0;
    while (!doneSeen(a, TITLES.contract)) {
      const seen = versionSeen(a);
      if (seen.version !== null && seen.version !== built) {
        built =
          rules.context && seen.contextId ? (await a.ops.readContext(seen.contextId)).version : seen.version;
        const ms = rebuildMs[Math.min(rebuilds++, revisions)] as number;
        await a.work(ms);
        // A build overtaken by a newer version before it was finished is wasted.
        if (versionSeen(a).version !== built) tally.wastedWorkMs += ms;
        continue;
      }
      await a.idle();
    }
    // The producer's last version may have come with its finishing: build against it before finishing too.
    const last = versionSeen(a);
    if (last.version !== null && last.version !== built) {
      built = last.version;
      await a.work(rebuildMs[revisions] as number);
    }
    await finish(a, task, `built against ${built}`);
    await a.leave();
  });

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
  tally.tasks = 2;
  return tally;
}
