/** The ledger: every call the load made and what it saw acknowledged (or left unknown), for the audit. */

/** How a call came out: answered ok, answered with an error (or never reached roomd), or unknown. */
export type Outcome = "ok" | "error" | "unknown";

/** One tools/call as the load saw it. */
export interface CallRecord {
  agent: string;
  url: string;
  tool: string;
  /** Client clock (Date.now()) when the request was sent and when its answer (or failure) arrived. */
  startedAt: number;
  endedAt: number;
  outcome: Outcome;
  /** Tool error text (`Error: …`), HTTP status text, or the transport failure. */
  error?: string;
  status?: number;
}

/** One successful acquire_lock, with the client-side window in which the agent surely held the lock. */
export interface LockHolding {
  resource: string;
  agent: string;
  fence: number;
  /** When the acquire answered (the lock was taken before this). */
  acquiredAt: number;
  expiresAt: number;
  /** When release_lock was sent, and what came of it (none: never sent, or refused before reaching roomd). */
  releaseSentAt?: number;
  release?: "released" | "not-holder" | "unknown";
}

/** Acknowledged and unknown-outcome updates of one record. */
export interface Tally {
  ok: number;
  unknown: number;
}

/** Everything the load saw acknowledged, per primitive, plus every call it made. */
export interface Ledger {
  roomId: string;
  /** Agents that consume their own cursor; the audit drains each of them. */
  agents: string[];
  calls: CallRecord[];
  addedTasks: string[];
  unknownTaskAdds: number;
  taskUpdates: Record<string, Tally>;
  contextWrites: string[];
  unknownContextWrites: number;
  contextUpdates: Record<string, Tally>;
  postedEvents: string[];
  unknownPosts: number;
  /** Seqs delivered to each agent by get_unread_events during the load. */
  deliveries: Record<string, number[]>;
  unknownConsumes: Record<string, number>;
  locks: LockHolding[];
  vars: Record<string, { ok: string[]; unknown: string[] }>;
  /** Producer/consumer pairs whose handoff went through every step. */
  handoffsCompleted: number;
}

/** An empty ledger for `agents` in `roomId`. */
export function newLedger(roomId: string, agents: string[]): Ledger {
  return {
    roomId,
    agents,
    calls: [],
    addedTasks: [],
    unknownTaskAdds: 0,
    taskUpdates: {},
    contextWrites: [],
    unknownContextWrites: 0,
    contextUpdates: {},
    postedEvents: [],
    unknownPosts: 0,
    deliveries: Object.fromEntries(agents.map((a) => [a, []])),
    unknownConsumes: {},
    locks: [],
    vars: {},
    handoffsCompleted: 0,
  };
}

/** Counts one update of record `id`: ok and unknown outcomes are kept apart; errors are not counted. */
export function tally(map: Record<string, Tally>, id: string, outcome: Outcome): void {
  map[id] ??= { ok: 0, unknown: 0 };
  const t = map[id];
  if (outcome === "ok") t.ok++;
  else if (outcome === "unknown") t.unknown++;
}
