/**
 * `roomctl report <room> [--from T] [--to T] [--json]`: how the room's coordination went — people's interventions,
 * approvals, handoffs and staleness, concurrency, tasks — from GET /rooms/:roomId/report. Reading it changes
 * nothing in the room.
 */
import type { RoomReport } from "../protocol/report.ts";
import { connect, seg } from "./api.ts";
import { type Command, noMore, roomArg, str } from "./kit.ts";
import { clean, out, paint, printJson, table, when } from "./output.ts";

/** A duration for people: ms, s, min or h; "—" for what the room cannot tell. */
export function duration(ms: number | null): string {
  if (ms === null) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${(ms / 60_000).toFixed(1)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

const unknown = (value: number | null) => (value === null ? "— (not recorded)" : String(value));

function print(r: RoomReport): void {
  const share = r.handoffCorrectness === null ? "—" : `${Math.round(r.handoffCorrectness * 100)}%`;
  out(
    [
      `${paint("bold", `Report of ${clean(r.roomId)}`)}  ${when(r.from) || "(no events)"} → ${when(r.to)}`,
      "",
      `people stepped in   ${r.humanInterventions.total} (messages ${r.humanInterventions.messages}, steers ${r.humanInterventions.steers}, interrupts ${r.humanInterventions.interrupts})`,
      `approvals           ${r.approvals.requested} requested, ${r.approvals.decided} decided, median decision ${duration(r.approvals.medianDecisionMs)}`,
      `handoffs            ${r.handoffs.length}, correctness ${share}`,
      `staleness           ${r.staleness.count} deliveries, p50 ${duration(r.staleness.p50Ms)}, p99 ${duration(r.staleness.p99Ms)}`,
      `concurrency         duplicate claims ${r.concurrency.duplicateClaims}, refused stale writes ${unknown(r.concurrency.refusedStaleWrites)}, claim conflicts ${unknown(r.concurrency.claimConflicts)}`,
      `tasks               ${r.tasks.done} done, ${r.tasks.abandoned} abandoned, ${r.tasks.reclaimedAfterLease} reclaimed after a lease, median cycle ${duration(r.tasks.medianCycleMs)}`,
      "",
    ].join("\n"),
  );
  const rows = r.handoffs.flatMap((h) => h.consumers.map((c) => ({ h, c })));
  table(
    rows,
    [
      { head: "CONTEXT", get: ({ h }) => h.contextId, style: () => "cyan" },
      { head: "TYPE", get: ({ h }) => h.type },
      { head: "PRODUCER", get: ({ h }) => h.producer },
      { head: "LATEST", get: ({ h }) => h.latestVersion },
      { head: "CONSUMER", get: ({ c }) => c.agentId },
      { head: "HAD", get: ({ c }) => c.observedVersion ?? "—" },
      {
        head: "CORRECT",
        get: ({ c }) => (c.correct === null ? "—" : c.correct ? "yes" : "stale"),
        style: ({ c }) => (c.correct === false ? "red" : c.correct ? "green" : undefined),
      },
      { head: "STALENESS", get: ({ c }) => c.stalenessMs.map(duration).join(", ") },
    ],
    "No handoffs (no context entry named consumers in this window).",
  );
}

export const report: Command = {
  name: "report",
  summary: "how the room's coordination went: interventions, handoffs, staleness, tasks",
  help: `usage: roomctl report <room> [--from TIME] [--to TIME] [--json]

The room's report, computed from its log: how often people stepped in (messages,
steers, interrupts), approvals and how long their decisions took, every handoff of a
context entry with the version each consumer had when it finished its work, how long
versions took to reach their consumers (p50, p99), duplicate claims, and done,
abandoned and reclaimed tasks. --from/--to (ISO 8601 times) bound the window. What the
room does not record is shown as — (null in --json). Reading it changes nothing.

example:
  roomctl report my-project --from 2026-01-31T09:00:00Z --json`,
  options: { from: { type: "string" }, to: { type: "string" }, json: { type: "boolean" } },
  async run({ values, positionals }) {
    const roomId = roomArg(positionals);
    noMore(positionals, 1);
    const query = new URLSearchParams();
    for (const name of ["from", "to"]) {
      const value = str(values, name);
      if (value !== undefined) query.set(name, value);
    }
    const suffix = query.size > 0 ? `?${query}` : "";
    const answer = await connect().get<RoomReport>(`/rooms/${seg(roomId)}/report${suffix}`);
    if (values.json) printJson(answer);
    else print(answer);
    return 0;
  },
};
