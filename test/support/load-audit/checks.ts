/** The audit's pure checks over the room as read and the ledger: versions, lock exclusion, missing deliveries. */
import { CONSUME_LIMIT } from "./agent.ts";
import type { LockHolding, Tally } from "./ledger.ts";

/** Applied vs acknowledged per record: lost when fewer applied, unexplained when more than ok + unknown. */
export function compareVersions(applied: Map<string, number>, ledger: Record<string, Tally>) {
  let lost = 0;
  let unexplained = 0;
  for (const [id, t] of Object.entries(ledger)) {
    const n = applied.get(id) ?? 0;
    lost += Math.max(0, t.ok - n);
    unexplained += Math.max(0, n - t.ok - t.unknown);
  }
  return { lost, unexplained };
}

/** How many items share each key. */
export function countBy<T>(items: T[], key: (item: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1;
  return out;
}

/** The end of the window in which a holder surely held its lock: its release (if one may have landed) or expiry. */
const surelyHeldUntil = (h: LockHolding) => Math.min(h.releaseSentAt ?? h.expiresAt, h.expiresAt);

/**
 * Mutual exclusion per resource: by fence, strictly increasing fences and no surely-overlapping holdings (the
 * next holder's acquire answered before the previous holder even sent its release). A release answered
 * released=false, although the TTL is far from over, means the lock was taken from its holder.
 */
export function lockOverlaps(holdings: LockHolding[]): string[] {
  const out: string[] = [];
  const byResource = new Map<string, LockHolding[]>();
  for (const h of holdings) byResource.set(h.resource, [...(byResource.get(h.resource) ?? []), h]);
  for (const [resource, list] of byResource) {
    const sorted = [...list].sort((a, b) => a.fence - b.fence || a.acquiredAt - b.acquiredAt);
    // The same holder acquiring again before a confirmed release renews (same fence): one longer holding.
    const merged: LockHolding[] = [];
    for (const h of sorted) {
      const last = merged[merged.length - 1];
      if (last && last.fence === h.fence && last.agent === h.agent && last.release !== "released") {
        merged[merged.length - 1] = { ...h, acquiredAt: last.acquiredAt };
      } else merged.push(h);
    }
    for (const h of sorted) {
      if (h.release === "not-holder" && (h.releaseSentAt ?? 0) < h.expiresAt) {
        out.push(`${resource}: ${h.agent} (fence ${h.fence}) lost the lock before its expiry`);
      }
    }
    for (let i = 1; i < merged.length; i++) {
      const prev = merged[i - 1] as LockHolding;
      const next = merged[i] as LockHolding;
      if (next.fence <= prev.fence) {
        out.push(`${resource}: fence ${next.fence} (${next.agent}) not above ${prev.fence} (${prev.agent})`);
      }
      if (next.acquiredAt < surelyHeldUntil(prev)) {
        out.push(
          `${resource}: ${next.agent} (fence ${next.fence}) acquired while ${prev.agent} (fence ${prev.fence}) held it`,
        );
      }
    }
  }
  return out;
}

/** Missing seqs of one agent, split into those an unknown-outcome consume can explain and the rest. */
export function splitMissing(addressed: number[], missing: Set<number>, unknownConsumes: number) {
  // An unknown consume advanced the cursor by at most CONSUME_LIMIT consecutive addressed events.
  const runs: number[] = [];
  let run = 0;
  for (const seq of addressed) {
    if (missing.has(seq)) run++;
    else if (run > 0) {
      runs.push(run);
      run = 0;
    }
  }
  if (run > 0) runs.push(run);
  runs.sort((a, b) => b - a);
  let explained = 0;
  for (const [i, length] of runs.entries()) {
    if (i < unknownConsumes) explained += Math.min(length, CONSUME_LIMIT);
  }
  return { explained, unexplained: missing.size - explained };
}
