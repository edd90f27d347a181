/**
 * The handoff part of the room report (report.ts): which context entries were handed to which consumers, which
 * version each consumer had when it finished its work, and how long each version took to reach each consumer.
 *
 * - A handoff is a context entry with consumers: its versions are its context_available (1.0) and context_updated
 *   events (roomd appends them only when the entry names consumers). The producer is the first version's author.
 * - A version reaches a consumer when roomd first delivers its event to it — get_my_summary, get_unread_events or
 *   wait_for_events moving the consumer's cursor past it, the one delivery roomd already records with its time — or
 *   when the consumer wrote that version itself. Reading the entry (read_context, list_context) records nothing,
 *   so it cannot count.
 * - A consumer's observed version is the newest version that reached it before it finished its dependent work (its
 *   last task moved to done after the entry's first version, within the window) or, when it finished none, before
 *   the window's end. The room does not record which task used which entry: the consumer's last finished task
 *   stands for its dependent work.
 * - correct: the observed version is the latest one; null when the consumer finished no work to judge.
 */
import type { AnalyticsLog } from "./analytics.ts";
import type { RoomEvent } from "./records.ts";

export interface ConsumerReport {
  agentId: string;
  observedVersion: string | null;
  correct: boolean | null;
  /** Per version in the window, oldest first: ms from its publication to its first delivery; null if none yet. */
  stalenessMs: (number | null)[];
}

export interface HandoffReport {
  contextId: string;
  type: string;
  producer: string;
  latestVersion: string;
  consumers: ConsumerReport[];
}

interface Version {
  version: string;
  seq: number;
  at: number;
  author: string;
  inWindow: boolean;
}

interface Entry {
  contextId: string;
  type: string;
  producer: string;
  versions: Version[];
  consumers: Set<string>;
}

/** Orders "1.9" before "1.10". */
const minor = (version: string) => Number(version.slice(version.indexOf(".") + 1));

/** Collects the handoffs while report.ts walks the log; `finish` answers them once the walk is over. */
export function handoffTracker(log: AnalyticsLog, window: { from: number; to: number }) {
  const entries = new Map<string, Entry>();
  const delivered = new Map(log.reads.map((r) => [`${r.seq} ${r.agent}`, Date.parse(r.at)]));
  /** Per agent, the times it finished a task (in the window). */
  const finishes = new Map<string, number[]>();

  return {
    /** A context event of the log (any type; those that are not versions are ignored). */
    context(event: RoomEvent, at: number): void {
      if (event.type !== "context_available" && event.type !== "context_updated") return;
      const p = event.payload as {
        contextId?: unknown;
        contextType?: unknown;
        version?: unknown;
        consuming_agents?: unknown;
      };
      if (typeof p.contextId !== "string") return;
      const version = event.type === "context_available" ? "1.0" : String(p.version ?? "");
      let entry = entries.get(p.contextId);
      if (!entry) {
        entry = {
          contextId: p.contextId,
          type: typeof p.contextType === "string" ? p.contextType : "",
          producer: event.from,
          versions: [],
          consumers: new Set(),
        };
        entries.set(p.contextId, entry);
      }
      const named = Array.isArray(p.consuming_agents)
        ? p.consuming_agents
        : event.to === "all"
          ? []
          : [event.to];
      for (const agent of named) if (typeof agent === "string") entry.consumers.add(agent);
      const inWindow = at >= window.from && at <= window.to;
      entry.versions.push({ version, seq: event.seq, at, author: event.from, inWindow });
    },
    /** An agent moved a task into done at `at` (within the window). */
    finished(agent: string, at: number): void {
      const list = finishes.get(agent) ?? [];
      list.push(at);
      finishes.set(agent, list);
    },
    finish(live: Map<string, string>, toGiven: boolean): HandoffReport[] {
      const reports: HandoffReport[] = [];
      for (const entry of entries.values()) {
        if (!entry.versions.some((v) => v.inWindow)) continue;
        const first = entry.versions[0] as Version;
        let latest = (entry.versions.at(-1) as Version).version;
        // Without an end, the live entry is the contract: an update naming no consumers appends no event.
        const current = live.get(entry.contextId);
        if (!toGiven && current !== undefined && minor(current) > minor(latest)) latest = current;
        const consumers: ConsumerReport[] = [];
        for (const agent of [...entry.consumers].sort()) {
          if (agent === entry.producer) continue;
          const reached = (v: Version) =>
            v.author === agent ? v.at : (delivered.get(`${v.seq} ${agent}`) ?? Number.POSITIVE_INFINITY);
          const done = (finishes.get(agent) ?? []).filter((t) => t >= first.at);
          const until = done.length > 0 ? (done.at(-1) as number) : window.to;
          let observed: string | null = null;
          for (const v of entry.versions) if (reached(v) <= until) observed = v.version;
          const stalenessMs = entry.versions
            .filter((v) => v.inWindow)
            .map((v) => {
              const at = reached(v);
              return at <= window.to ? at - v.at : null;
            });
          consumers.push({
            agentId: agent,
            observedVersion: observed,
            correct: done.length > 0 ? observed === latest : null,
            stalenessMs,
          });
        }
        reports.push({
          contextId: entry.contextId,
          type: entry.type,
          producer: entry.producer,
          latestVersion: latest,
          consumers,
        });
      }
      return reports;
    },
  };
}
