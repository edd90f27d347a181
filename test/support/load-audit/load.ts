/** Starting and running the multi-agent load against one or more roomd processes. */
import { type Actions, agentActions, agentName, SHARED_CONTEXT, SHARED_TASKS, type Shared } from "./agent.ts";
import { type CallRecord, type Ledger, newLedger } from "./ledger.ts";
import { handoff, randomOp } from "./ops.ts";

/** The shape of one load: where, how many agents and ops, which room and seed, and its pacing. */
export interface LoadOptions {
  /** roomd base URLs; read on every call, so a test may point a slot at a replacement process mid-load. */
  urls: string[];
  secret: string;
  /** Number of agents (the scale tests use 32), spread round-robin over `urls`. */
  agents: number;
  opsPerAgent: number;
  roomId: string;
  seed: number;
  /** Pause between one agent's random ops, to stretch a load over a fault window (default 0). */
  thinkMs?: number;
  /** A call that has not answered after this long is abandoned as unknown-outcome (default 10 s). */
  callTimeoutMs?: number;
  /**
   * Marks an answered error as unknown-outcome: for errors that do not prove the call was not applied, e.g.
   * "Store unavailable" from a call in flight when the store's primary was killed (its script may have run).
   */
  unknownIf?: (call: CallRecord) => boolean;
}

/** A load in progress: its ledger so far, progress probes and the promise of the final ledger. */
export interface RunningLoad {
  ledger: Ledger;
  /** Fraction of the random ops done so far (0…1). */
  progress(): number;
  /** Pairs whose producer/consumer handoff has not finished yet. */
  handoffsPending(): number;
  done: Promise<Ledger>;
}

/** Starts the load and returns at once; `done` resolves with the ledger when every agent has finished. */
export function startScaleLoad(options: LoadOptions): RunningLoad {
  const names = Array.from({ length: options.agents }, (_, i) => agentName(i));
  const ledger = newLedger(options.roomId, names);
  const shared: Shared = { tasks: [], contexts: [] };
  let opsDone = 0;
  let pending = Math.floor(options.agents / 2);
  const total = options.agents * options.opsPerAgent;

  const run = async () => {
    // Setup by a coordinator that never consumes: shared tasks and context entries everyone updates.
    const coordinator = agentActions(ledger, { ...options, agents: 1 }, options.agents, shared);
    for (let i = 0; i < SHARED_TASKS; i++) {
      const r = await coordinator.addTask(`shared task ${i}`);
      if (r.outcome !== "ok") throw new Error(`load setup failed: add_task: ${r.error}`);
      shared.tasks.push(r.value.id);
    }
    for (let i = 0; i < SHARED_CONTEXT; i++) {
      const r = await coordinator.writeContext({
        type: "note",
        summary: `shared note ${i}`,
        consuming_agents: [agentName(0), agentName(1)],
        payload: { text: `shared note ${i}` },
      });
      if (r.outcome !== "ok") throw new Error(`load setup failed: write_context: ${r.error}`);
      shared.contexts.push(r.value.id);
    }
    const actors = names.map((_, i) => agentActions(ledger, options, i, shared));
    // A pair's random ops wait for its handoff, so the consumer's own reads cannot swallow the contract event.
    const handoffs = actors.map((a, i) =>
      i % 2 === 0 && actors[i + 1]
        ? handoff(a, actors[i + 1] as Actions).finally(() => pending--)
        : Promise.resolve(),
    );
    await Promise.all(
      actors.map(async (a, i) => {
        await handoffs[i - (i % 2)];
        for (let n = 0; n < options.opsPerAgent; n++) {
          await randomOp(a, options.agents);
          opsDone++;
          if (options.thinkMs) await Bun.sleep(options.thinkMs);
        }
      }),
    );
    return ledger;
  };
  return { ledger, progress: () => opsDone / total, handoffsPending: () => pending, done: run() };
}

/** Runs the whole load and resolves with its ledger. */
export function runScaleLoad(options: LoadOptions): Promise<Ledger> {
  return startScaleLoad(options).done;
}
