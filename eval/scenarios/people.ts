/**
 * S7, people: a person steers one agent and approves another's deploy.
 *
 * The builder works on a feature; ten minutes in, the person redirects it ("use the v2 client"): in the room arms
 * the person takes the wheel and steers (a steer event to the builder); in chat the person posts the same words.
 * The builder hears it at its next turn and redoes half of what it built so far (wasted work). The deployer
 * prepares a release, then needs a person's approval to deploy: in the room arms request_approval (the person
 * decides after a delay; the deployer waits for approval_decided); in chat it asks in the channel and the person
 * answers there — a person relaying a decision, counted as an intervention. People's steers and messages count as
 * interventions in every arm (the room report counts them the same way); decided approvals are counted apart.
 * Staleness here is a person's word reaching its agent: the steer heard, the decision seen.
 */
import { Actor } from "../harness/actor.ts";
import type { ArmRules } from "../harness/arms.ts";
import { emptyTally, type Tally } from "../harness/metrics.ts";
import type { Random } from "../harness/random.ts";
import { coldStarts, type Harness, T0 } from "../harness/runner.ts";
import { awaitFact } from "./patience.ts";
import { finish, take } from "./tasks.ts";

const TITLES = { feature: "Checkout feature", release: "Release 2.4" };

export interface PeopleRun {
  tally: Tally;
  approvals: { requested: number; decided: number; decisionMs: number[] };
}

export async function runPeople(
  h: Harness,
  rules: ArmRules,
  random: Random,
  roomId: string,
): Promise<PeopleRun> {
  const world = h.world(roomId, rules, random);
  if (rules.plan) await h.seed(world, [{ title: TITLES.feature }, { title: TITLES.release }]);
  const tally = emptyTally();
  const approvals = { requested: 0, decided: 0, decisionMs: [] as number[] };
  const sizes = random.fork("work");
  const featureMs = sizes.between(30, 60) * 60_000;
  const releaseMs = sizes.between(10, 20) * 60_000;
  const steerAt = 10 * 60_000;
  const decisionDelay = sizes.between(2, 15) * 60_000;
  const relays = { count: 0 };
  const actors: Actor[] = [];
  let steered = false;
  /** When each instruction of a person was given and first seen by its agent (staleness samples). */
  let steerSentAt = 0;
  let decidedAt = 0;

  // The person: steers the builder at steerAt; decides the deploy `decisionDelay` after it is asked.
  const person = {
    async steer() {
      tally.interventions++;
      steerSentAt = world.sim.now();
      if (rules.plan) {
        const driver = await h.person(world, "/driver", { action: "take" });
        await h.person(world, "/steer", {
          epoch: driver.epoch,
          to: "builder",
          text: "Use the v2 client library.",
        });
      } else await h.person(world, "/messages", { to: "all", text: "@builder Use the v2 client library." });
    },
  };
  world.sim.spawn(async () => {
    await world.sim.sleep(steerAt);
    await person.steer();
  });

  world.sim.spawn(async () => {
    const a = await Actor.join({ ...world, random: random.fork("builder") }, "builder");
    actors.push(a);
    const task = await take(a, (t) => t.title === TITLES.feature, TITLES.feature);
    if (!task) throw new Error("builder found no task");
    const heard = (events: { type: string; payload: Record<string, unknown> }[]) =>
      events.some(
        (e) => e.type === "steer" || (e.type === "human_message" && String(e.payload.text).includes("v2")),
      );
    let worked = await a.work(featureMs, (events) => {
      if (steered || !heard(events)) return false;
      steered = true;
      tally.staleness.push(a.now - steerSentAt);
      return true;
    });
    if (steered) {
      const redo = Math.round(worked / 2);
      tally.wastedWorkMs += redo;
      worked += await a.work(featureMs - worked + redo);
    }
    await finish(a, task, "checkout on the v2 client");
    await a.leave();
  });

  world.sim.spawn(async () => {
    const a = await Actor.join({ ...world, random: random.fork("deployer") }, "deployer");
    actors.push(a);
    const task = await take(a, (t) => t.title === TITLES.release, TITLES.release);
    if (!task) throw new Error("deployer found no task");
    await a.work(releaseMs);
    const decided = () =>
      a.seen.some(
        (e) =>
          e.type === "approval_decided" ||
          (e.type === "human_message" && String(e.payload.text).startsWith("Approved")),
      );
    if (rules.plan) {
      const approval = await a.ops.requestApproval("deploy release 2.4 to production");
      approvals.requested++;
      const asked = a.now;
      world.sim.spawn(async () => {
        decidedAt = world.sim.now();
        await h.person(world, `/approvals/${approval.id}`, { decision: "approve", note: "go ahead" });
        approvals.decided++;
        approvals.decisionMs.push(world.sim.now() - asked);
      }, decisionDelay);
    } else {
      await a.say("May I deploy release 2.4 to production?", { question: "the deploy" });
      world.sim.spawn(async () => {
        tally.interventions++;
        decidedAt = world.sim.now();
        await h.person(world, "/messages", { to: "deployer", text: "Approved: deploy release 2.4." });
      }, decisionDelay);
    }
    await awaitFact(h, a, decided, "the deploy", relays);
    tally.staleness.push(a.now - decidedAt);
    await a.work(5 * 60_000);
    await finish(a, task, "deployed");
    await a.leave();
  });

  await world.sim.run();
  tally.ledgers = actors.map((a) => a.session.ledger);
  tally.coldStarts = coldStarts(actors);
  tally.interventions += relays.count;
  tally.makespanMs = world.sim.now() - T0;
  tally.tasks = 2;
  return { tally, approvals };
}
