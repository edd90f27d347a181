/**
 * A deterministic multi-agent load against one or more roomd processes sharing a store, and an audit of the room
 * afterwards against the ledger of what the load saw acknowledged. Used by the scale-out and fault tests and by
 * the bench scripts, so it imports nothing from bun:test.
 *
 * Outcomes: a call that answered (tool result, error or not) is known; a call that timed out or whose connection
 * broke mid-request is "unknown" (it may or may not have been applied) and loosens the audit by exactly that
 * call; a refused connection never reached roomd and counts as not applied.
 */
export { audit } from "./audit.ts";
export type { CallRecord, Ledger, LockHolding, Outcome } from "./ledger.ts";
export { newLedger } from "./ledger.ts";
export type { LoadOptions, RunningLoad } from "./load.ts";
export { runScaleLoad, startScaleLoad } from "./load.ts";
export type { AuditReport } from "./report.ts";
export { auditProblems, errorKind } from "./report.ts";
