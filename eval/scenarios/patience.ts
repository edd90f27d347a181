/**
 * Waiting for a fact another agent holds, with the arms' patience rule (eval/README.md). An agent waits idle
 * (push or polling, by its arm) until `known()`; each time `PATIENCE_MS` pass without it:
 * - in the room arms the state answers — the agent reads the plan once (who holds the work, how far it is) and
 *   keeps waiting; no person is needed;
 * - in chat only a message answers: the agent asks once; when a second patience passes without the fact, a
 *   person relays the state to it (a human_message, counted as an intervention).
 * Chat agents answer questions put to them at their next turn (`answerQuestions`), restating their state.
 */
import type { Actor } from "../harness/actor.ts";
import type { EventLike } from "../harness/ops.ts";
import type { Harness } from "../harness/runner.ts";

export const PATIENCE_MS = 10 * 60_000;

export interface Relays {
  count: number;
}

export async function awaitFact(
  h: Harness,
  a: Actor,
  known: () => boolean,
  fact: string,
  relays: Relays,
): Promise<void> {
  let since = a.now;
  let asked = false;
  while (!known()) {
    const events = await a.idle();
    if (known()) return;
    // An answer about the fact (a chat agent's status) resets the patience.
    if (events.some((e) => e.type === "message" && String(e.payload.about ?? "") === fact)) since = a.now;
    if (a.now - since < PATIENCE_MS) continue;
    since = a.now;
    if (a.world.rules.plan) await a.ops.readPlan();
    else if (!asked) {
      await a.say(`Any news on ${fact}?`, { question: fact });
      asked = true;
    } else {
      relays.count++;
      asked = false;
      await h.person(a.world, "/messages", { to: a.agentId, text: `Status of ${fact}: still in progress.` });
    }
  }
}

/** A chat agent's answer to questions it read: one status message per question (restating its state). */
export async function answerQuestions(a: Actor, events: EventLike[], status: () => string): Promise<void> {
  if (a.world.rules.plan) return;
  for (const e of events) {
    if (e.type === "message" && e.from !== a.agentId && typeof e.payload.question === "string")
      await a.say(status(), { about: e.payload.question });
  }
}
