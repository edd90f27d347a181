/**
 * A scripted agent at run time: its session (real MCP client, bound key, profile), its arm's rules, and the few
 * behaviours every scenario's policy is built from — starting a session, thinking, working in turns (reading its
 * events once per turn, as the instructions say), and waiting idle (wait_for_events under push, get_unread_events
 * every pollMs under polling). Everything an agent knows comes from the results it read (`seen`).
 */

import { agentInstructions } from "../../src/clients.ts";
import type { Profile } from "../../src/mcp/tool.ts";
import { type ArmRules, CHAT_INSTRUCTIONS, CHAT_TOOLS } from "./arms.ts";
import type { EventLike } from "./ops.ts";
import { Ops } from "./ops.ts";
import type { Random } from "./random.ts";
import type { Latencies } from "./session.ts";
import { Session } from "./session.ts";
import type { Sim } from "./sim.ts";
import type { Target } from "./target.ts";
import { tokens } from "./tokens.ts";

/** Everything one scenario run shares. */
export interface World {
  sim: Sim;
  target: Target;
  rules: ArmRules;
  profile: Profile;
  random: Random;
  latencies: Latencies;
  roomId: string;
}

/** Think time per decision, and the length of one turn of work (each ends with one read of events). */
export const THINK_MS: [number, number] = [2_000, 10_000];
export const TURN_MS: [number, number] = [60_000, 240_000];
/** How long an idle wait lasts before it returns empty (wait_for_events' own maximum). */
export const WAIT_MS = 30_000;

export class Actor {
  readonly seen: EventLike[] = [];
  /** Called with every batch of events the agent reads (scenarios record what it learnt, and when). */
  readonly onSeen: ((events: EventLike[]) => void)[] = [];
  /** Tokens of the session's first reads (summary, or the transcript replay): its cold start. */
  coldStartTokens = 0;
  coldStartCalls = 0;
  private constructor(
    readonly world: World,
    readonly agentId: string,
    readonly session: Session,
    readonly ops: Ops,
  ) {}

  /** Opens the agent's session and recovers the room's state the way its arm does. */
  static async join(world: World, agentId: string): Promise<Actor> {
    const { target, rules, profile, roomId, latencies } = world;
    const instructions = rules.plan
      ? agentInstructions(
          { url: target.url, roomId, operatorKey: "", agentId },
          profile === "compact" ? "compact" : "full",
        )
      : CHAT_INSTRUCTIONS;
    const session = await Session.open({
      url: target.url,
      key: await target.keyFor(agentId),
      agentId,
      roomId,
      // Chat agents call four tools of the full list (CHAT_TOOLS), whatever the run's profile.
      profile: rules.plan ? profile : "full",
      instructions,
      latencies,
      ...(rules.plan ? {} : { tools: CHAT_TOOLS }),
    });
    const actor = new Actor(world, agentId, session, new Ops(session));
    const before = {
      tokens: session.ledger.resultTokens + session.ledger.outputTokens,
      calls: session.ledger.calls,
    };
    if (rules.plan) actor.observe(await actor.ops.summary());
    else actor.observe(await actor.replay());
    actor.coldStartTokens =
      session.ledger.contextTokens +
      session.ledger.resultTokens +
      session.ledger.outputTokens -
      before.tokens;
    actor.coldStartCalls = session.ledger.calls - before.calls;
    return actor;
  }

  get now(): number {
    return this.world.sim.now();
  }

  /** The chat arm's start: the whole channel, consumed page by page. */
  private async replay(): Promise<EventLike[]> {
    const all: EventLike[] = [];
    for (;;) {
      const batch = await this.session.must<{ events: EventLike[]; remaining: number }>("get_unread_events", {
        roomId: this.world.roomId,
        limit: 100,
      });
      all.push(...batch.events);
      if (batch.remaining === 0) return all;
    }
  }

  observe(events: EventLike[]): EventLike[] {
    this.seen.push(...events);
    for (const hook of this.onSeen) hook(events);
    return events;
  }

  think(): Promise<void> {
    return this.world.sim.sleep(this.world.random.between(...THINK_MS));
  }

  /** True when roomd holds an event for this agent it has not consumed (the harness's look, not the agent's). */
  private async hasUnread(): Promise<boolean> {
    const { target, roomId } = this.world;
    const peek = await target.store.consumeEvents({ roomId, teamId: target.teamId }, this.agentId, 0);
    return peek.remaining > 0;
  }

  /** One idle wait: under push a wait_for_events (woken by the next event for it), else a poll after pollMs. */
  async idle(): Promise<EventLike[]> {
    const { sim, rules } = this.world;
    if (rules.push) {
      const how = await sim.park(WAIT_MS, () => this.hasUnread());
      return this.observe(await this.ops.wait(how === "woken"));
    }
    await sim.sleep(rules.pollMs);
    return this.observe(await this.ops.unread());
  }

  /**
   * Works for `ms` in turns; after each turn reads its events. `onTurn` may stop the work early (returns true);
   * the answer is the time actually worked.
   */
  async work(ms: number, onTurn?: (events: EventLike[]) => boolean | Promise<boolean>): Promise<number> {
    let done = 0;
    while (done < ms) {
      const turn = Math.min(ms - done, this.world.random.between(...TURN_MS));
      await this.world.sim.sleep(turn);
      done += turn;
      const events = this.observe(await this.ops.unread());
      if (onTurn && (await onTurn(events))) break;
    }
    return done;
  }

  /** Posts a chat message (the chat arm's only write). */
  say(text: string, payload: Record<string, unknown> = {}): Promise<void> {
    return this.ops.post("message", "all", { text, ...payload });
  }

  async leave(): Promise<void> {
    if (this.world.rules.plan) await this.ops.leave();
    await this.session.close();
  }
}

/** Tokens of a text, for scenario-level counts (the cold start of a transcript, say). */
export { tokens };
