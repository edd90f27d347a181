/** The audit's report and its reading: which counts are failures, and how error texts group into kinds. */

/** What the audit found: room totals, then every discrepancy between the room and the ledger, by kind. */
export interface AuditReport {
  tasks: number;
  events: number;
  maxSeq: number;
  /** Acknowledged add_task ids missing from the plan. */
  lostTasks: string[];
  /** Plan tasks nobody acknowledged, beyond the number of unknown-outcome adds. */
  unexplainedTasks: number;
  /** Acknowledged update_task calls missing from task versions (version - 1 < acknowledged). */
  lostTaskUpdates: number;
  /** Applied updates beyond acknowledged + unknown-outcome ones. */
  unexplainedTaskUpdates: number;
  lostContextWrites: string[];
  lostContextUpdates: number;
  unexplainedContextUpdates: number;
  /** Acknowledged post_event / reply_to_event ids missing from the log. */
  lostEvents: string[];
  /** Seqs missing from 1..max, plus seqs present more than once. */
  eventSeqGaps: number;
  /** Writes whose record and event disagree: a task without task_added (or the reverse), a version without its event. */
  halfWritten: string[];
  duplicateDeliveries: Record<string, number>;
  /** Addressed events never delivered, not explained by an unknown-outcome get_unread_events of that agent. */
  missingDeliveries: Record<string, number>;
  /** Missing deliveries explained by unknown-outcome consumes (kept apart, not a failure). */
  unknownOutcomeDeliveries: Record<string, number>;
  /** Events delivered to an agent they were not addressed to. */
  misdirectedDeliveries: Record<string, number>;
  lockOverlaps: string[];
  /** Shared variables whose final value nobody wrote. */
  varMismatches: string[];
  /** Calls whose outcome is unknown (timeouts, broken connections), by tool. */
  unknownOutcomes: Record<string, number>;
  /** Tool error texts, with digits and agent names folded so kinds group together, by count. */
  errorKinds: Record<string, number>;
}

/** Folds the variable parts of an error text (ids, agents, times) so errors of one kind group together. */
export function errorKind(text: string): string {
  return text
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "<time>")
    .replace(/agent-\d+/g, "<agent>")
    .replace(/\d+/g, "<n>");
}

const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

/** Every nonzero failure count of a report, as readable lines ([] when the audit is clean). */
export function auditProblems(report: AuditReport): string[] {
  const detail = (items: string[]) => `${items.length} (${items.slice(0, 5).join("; ")})`;
  const perAgent = (r: Record<string, number>) => `${sum(r)} ${JSON.stringify(r)}`;
  const found: [string, number, string][] = [
    ["lostTasks", report.lostTasks.length, detail(report.lostTasks)],
    ["unexplainedTasks", report.unexplainedTasks, String(report.unexplainedTasks)],
    ["lostTaskUpdates", report.lostTaskUpdates, String(report.lostTaskUpdates)],
    ["unexplainedTaskUpdates", report.unexplainedTaskUpdates, String(report.unexplainedTaskUpdates)],
    ["lostContextWrites", report.lostContextWrites.length, detail(report.lostContextWrites)],
    ["lostContextUpdates", report.lostContextUpdates, String(report.lostContextUpdates)],
    ["unexplainedContextUpdates", report.unexplainedContextUpdates, String(report.unexplainedContextUpdates)],
    ["lostEvents", report.lostEvents.length, detail(report.lostEvents)],
    ["eventSeqGaps", report.eventSeqGaps, String(report.eventSeqGaps)],
    ["halfWritten", report.halfWritten.length, detail(report.halfWritten)],
    ["duplicateDeliveries", sum(report.duplicateDeliveries), perAgent(report.duplicateDeliveries)],
    ["missingDeliveries", sum(report.missingDeliveries), perAgent(report.missingDeliveries)],
    ["misdirectedDeliveries", sum(report.misdirectedDeliveries), perAgent(report.misdirectedDeliveries)],
    ["lockOverlaps", report.lockOverlaps.length, detail(report.lockOverlaps)],
    ["varMismatches", report.varMismatches.length, detail(report.varMismatches)],
  ];
  return found.filter(([, n]) => n > 0).map(([name, , text]) => `${name}: ${text}`);
}
