/**
 * One evaluation process: a roomd target whose clock is the running simulation's, the run's options, and what
 * each scenario needs to set up a room — a fresh simulation at the same virtual start (so a scenario's numbers
 * never depend on what ran before it), a seeding session that is not booked, the person's HTTP calls, and the
 * room's own report.
 */
import type { Profile } from "../../src/mcp/tool.ts";
import type { RoomReport } from "../../src/protocol/report.ts";
import type { Actor, World } from "./actor.ts";
import type { ArmRules } from "./arms.ts";
import type { Random } from "./random.ts";
import { closeClients, type Latencies } from "./session.ts";
import { Sim } from "./sim.ts";
import { type EvalStore, startTarget, type Target } from "./target.ts";

/** Every simulation starts at this virtual instant (a Monday, 09:00 UTC). */
export const T0 = Date.parse("2026-01-05T09:00:00.000Z");

export interface RunOptions {
  seed: number;
  quick: boolean;
  profile: Profile;
  store: EvalStore;
}

export class Harness {
  private sim: Sim | undefined;
  readonly latencies: Latencies = new Map();
  private constructor(
    readonly target: Target,
    readonly options: RunOptions,
  ) {}

  static async start(options: RunOptions): Promise<Harness> {
    let harness: Harness | undefined;
    const target = await startTarget(options.store, () => harness?.sim?.now() ?? T0);
    harness = new Harness(target, options);
    return harness;
  }

  /** A fresh simulation for one room. */
  world(roomId: string, rules: ArmRules, random: Random, profile = this.options.profile): World {
    this.sim = new Sim(T0);
    return { sim: this.sim, target: this.target, rules, profile, random, latencies: this.latencies, roomId };
  }

  /**
   * Sets a room's plan up directly through the store (the experimenter's hand, not an agent's, so it is booked to
   * no one): tasks by title, `after` naming earlier titles. Answers the ids by title.
   */
  async seed(world: World, tasks: { title: string; after?: string[]; description?: string }[]) {
    const ids = new Map<string, string>();
    const scope = { roomId: world.roomId, teamId: this.target.teamId };
    for (const t of tasks) {
      const depends_on = (t.after ?? []).map((title) => ids.get(title) as string);
      const task = await this.target.store.addTask(scope, {
        title: t.title,
        description: t.description ?? "",
        depends_on,
        priority: null,
        agentId: "lead",
      });
      ids.set(t.title, task.id);
    }
    return ids;
  }

  /** A person's call on /rooms/:roomId/… (messages, the driver, steer, approvals). */
  async person(world: World, path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const res = await fetch(`${this.target.url}/rooms/${world.roomId}${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${this.target.personKey}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = (await res.json()) as Record<string, unknown>;
    if (res.status >= 300) throw new Error(`person ${path}: ${res.status} ${JSON.stringify(answer)}`);
    return answer;
  }

  /** The room's own report (GET /rooms/:roomId/report), at the simulation's current time. */
  async report(roomId: string): Promise<RoomReport> {
    const res = await fetch(`${this.target.url}/rooms/${roomId}/report`, {
      headers: { Authorization: `Bearer ${this.target.personKey}` },
    });
    if (res.status !== 200) throw new Error(`report of ${roomId}: ${res.status}`);
    return (await res.json()) as RoomReport;
  }

  async stop(): Promise<void> {
    await closeClients();
    await this.target.stop();
  }
}

/** Cold start of every actor, for the tally. */
export const coldStarts = (actors: Actor[]) =>
  actors.map((a) => ({ tokens: a.coldStartTokens, calls: a.coldStartCalls }));
