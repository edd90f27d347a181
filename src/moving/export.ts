/**
 * Writing a room's export (protocol/export-format.ts) from any store: one atomic snapshot of the room's records,
 * then its log read in pages by seq up to the snapshot's head — so a room of any size streams in bounded memory —
 * and the end line with the counts and the chain's hashes. The state lines are normalised here (sorted, empty
 * records left out), so every driver gives the same lines for the same room.
 */

import { RoomError } from "../protocol/errors.ts";
import {
  chainSeed,
  EXPORT_KIND,
  EXPORT_VERSION,
  type ExportHeader,
  lineOf,
  nextHash,
  type StateLine,
} from "../protocol/export-format.ts";
import { iso } from "../protocol/time.ts";
import type { LoggedEvent, RoomSnapshot } from "../store/move-types.ts";
import type { RoomScope, RoomStore } from "../store/types.ts";

/** A value line's value: JSON, as the store gave it. */
type StateValue = Extract<StateLine, { kind: "value" }>["value"];

/** Events read per exportLog call. */
const PAGE = 200;

/** The state lines of a snapshot, in the file's order. */
export function stateLines(s: RoomSnapshot): StateLine[] {
  const lines: StateLine[] = [
    { kind: "room", createdAt: s.createdAt, plan: s.plan, counters: s.counters, driver: s.driver },
  ];
  for (const { task, leaseMs } of s.tasks) {
    lines.push(
      task.lease_expires_at !== undefined && leaseMs !== null
        ? { kind: "task", task, leaseMs }
        : { kind: "task", task },
    );
  }
  for (const c of s.contexts) {
    for (const old of c.history) {
      lines.push({ kind: "context_version", id: c.entry.id, version: old.version, atSeq: old.atSeq });
    }
    lines.push({ kind: "context", entry: c.entry, atSeq: c.atSeq, changedSeq: c.changedSeq });
  }
  const by =
    <T>(key: (t: T) => string) =>
    (a: T, b: T) =>
      key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
  for (const v of [...s.vars].sort(by((x) => x.key))) lines.push({ kind: "var", key: v.key, value: v.value });
  for (const review of s.reviews) lines.push({ kind: "review", review });
  for (const approval of s.approvals) lines.push({ kind: "approval", approval });
  for (const handoff of s.handoffs) lines.push({ kind: "handoff", handoff });
  for (const verdict of s.verdicts) lines.push({ kind: "verdict", verdict });
  // A cursor that never consumed and never marked a summary is no cursor at all.
  for (const c of [...s.cursors].sort(by((x) => x.agentId))) {
    if (c.seq !== null || c.contextMark > 0) lines.push({ kind: "cursor", ...c });
  }
  for (const m of [...s.marks].sort(by((x) => `${x.agentId} ${x.type}`))) lines.push({ kind: "mark", ...m });
  for (const f of [...s.fences].sort(by((x) => x.resource))) lines.push({ kind: "fence", ...f });
  for (const c of [...s.claims].sort(by((x) => x.path))) lines.push({ kind: "claim", ...c });
  for (const v of [...s.values].sort(by((x) => `${x.piece} ${x.key}`)))
    lines.push({ kind: "value", piece: v.piece, key: v.key, value: v.value as StateValue });
  return lines;
}

/** The event line of a logged event, linked to `previous`. */
export function eventLine({ event, posted, deliveredAt }: LoggedEvent, previous: string) {
  const line = {
    kind: "event" as const,
    event,
    ...(posted ? { posted: true as const } : {}),
    ...(Object.keys(deliveredAt).length > 0 ? { deliveredAt } : {}),
  };
  return { ...line, hash: nextHash(previous, line) };
}

export interface RoomExport {
  header: ExportHeader;
  /** The file's lines (each ending with a newline), read lazily; the last one is the end line. */
  lines(): AsyncGenerator<string>;
}

/**
 * The export of a room the scope's team owns, or null when it does not (unowned); another team's room is
 * RoomError "denied". The snapshot is read now; the log when `lines` is iterated. A log that no longer holds the
 * events the snapshot promises (retention trimmed them meanwhile) fails the iteration, so the file has no end line.
 */
export async function openExport(
  store: RoomStore,
  scope: RoomScope,
  now: number,
): Promise<RoomExport | null> {
  const snapshot = await store.exportRoom(scope);
  if (!snapshot) return null;
  const header: ExportHeader = {
    kind: EXPORT_KIND,
    version: EXPORT_VERSION,
    roomId: scope.roomId,
    exportedAt: iso(now),
    head: snapshot.head,
    ...(snapshot.trimmedBefore === null ? {} : { trimmedBefore: snapshot.trimmedBefore }),
    ...(snapshot.forkedFrom === null ? {} : { forkedFrom: snapshot.forkedFrom }),
  };
  async function* lines(): AsyncGenerator<string> {
    yield lineOf(header);
    const counts: Record<string, number> = {};
    let hash = chainSeed(header);
    for (const line of stateLines(snapshot as RoomSnapshot)) {
      counts[line.kind] = (counts[line.kind] ?? 0) + 1;
      hash = nextHash(hash, line);
      yield lineOf(line);
    }
    const stateHash = hash;
    let after = (header.trimmedBefore ?? 1) - 1;
    const head = header.head;
    while (after < head) {
      const page = await store.exportLog(scope, after, PAGE);
      const first = page[0];
      if (!first || first.event.seq !== after + 1) {
        throw new RoomError(
          "conflict",
          `Room ${scope.roomId}'s log changed while it was exported (seq ${after + 1} is gone); export it again`,
        );
      }
      for (const logged of page) {
        if (logged.event.seq > head) break;
        const line = eventLine(logged, hash);
        hash = line.hash;
        counts.event = (counts.event ?? 0) + 1;
        after = logged.event.seq;
        yield lineOf(line);
      }
    }
    yield lineOf({ kind: "end", counts, stateHash, headHash: hash });
  }
  return { header, lines };
}

/** The end line of a room's export (its counts and hashes) without keeping the file: migration's check. */
export async function exportDigest(
  store: RoomStore,
  scope: RoomScope,
  now: number,
): Promise<{ counts: Record<string, number>; stateHash: string; headHash: string } | null> {
  const opened = await openExport(store, scope, now);
  if (!opened) return null;
  let last = "";
  for await (const line of opened.lines()) last = line;
  return JSON.parse(last);
}
