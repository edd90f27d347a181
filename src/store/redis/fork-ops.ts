/**
 * forkRoom on Redis (docs/people.md, Forks): one script reads the source's log prefix and context (an atomic snapshot),
 * the plan, reviews and context at atSeq are rebuilt here (protocol/fork-rebuild.ts, as on SQLite), and the new
 * room is written by FORK_WRITE in parts of at most PART_BYTES — one part for most rooms — with the posted marks of
 * its events and the search index the writes would have built. The source and the fork live in different slots, so
 * on a Redis Cluster no single script could do both.
 */
import { randomUUID } from "node:crypto";
import {
  type ContextVersionAt,
  contextAt,
  type IdFloors,
  type RebuildEvent,
  rebuildPlan,
  rebuildRecords,
  serialOf,
} from "../../protocol/fork-rebuild.ts";
import { type ForkedFrom, peopleErrors } from "../../protocol/people.ts";
import type { ContextEntry, Review, RoomEvent } from "../../protocol/records.ts";
import { travelling, type ValuePieces } from "../../protocol/room-values.ts";
import { contextFields, eventFields, fieldTerms, taskFields } from "../../protocol/search.ts";
import type { PeopleStore } from "../people-types.ts";
import type { RoomScope } from "../types.ts";
import type { Call } from "./call.ts";
import { entryJson, historyVersion } from "./import-writes.ts";
import type { ForkSetup, Snapshot } from "./lua-fork.ts";
import { ScriptRefusal } from "./run.ts";
import { valuePairs } from "./value-ops.ts";

type Version = Omit<ContextEntry, "id" | "type">;

/** A trimmed room's plan at its head: its tasks as they are (the log cannot replay them), its own counters. */
function currentPlan(snap: Snapshot) {
  const tasks = (snap.tasks ?? []).sort((a, b) => serialOf(a.id) - serialOf(b.id));
  const byStatus = { pending: 0, in_progress: 0, done: 0, blocked: 0 };
  for (const task of tasks) byStatus[task.status] += 1;
  const ms = (value: string | null | undefined) => (value ? Date.parse(value) : null);
  return {
    tasks,
    taskN: snap.taskN ?? 0,
    byStatus,
    createdMs: ms(snap.planCreated),
    updatedMs: ms(snap.planUpdated),
    deletedContexts: [] as string[],
  };
}

/** A trimmed room's reviews and id floors come from its records: the events that named them may be gone. */
function currentRecords(snap: Snapshot, floors: IdFloors): { reviews: Review[]; floors: IdFloors } {
  const reviews = [...(snap.reviews ?? [])].sort((a, b) => serialOf(a.id) - serialOf(b.id));
  const raised = { ...floors };
  for (const review of reviews) raised.review = Math.max(raised.review, serialOf(review.id));
  const kinds: Record<string, keyof IdFloors> = { hof: "handoff", apr: "approval", vrd: "verdict" };
  for (const id of snap.recordIds ?? []) {
    const kind = kinds[id.split("-")[0] ?? ""];
    if (kind) raised[kind] = Math.max(raised[kind], serialOf(id));
  }
  return { reviews, floors: raised };
}

/** ARGV of one context entry in FORK_WRITE's last part. */
const ENTRY_ARGS = 7;

/** ARGV bytes of one FORK_WRITE part (events are cut between parts; the last part carries plan and context). */
const PART_BYTES = 512 * 1024;

/** An event's mark in FORK_WRITE: "" when roomd appended it, "-" for a posted tombstone, else its search terms. */
function eventMark(event: Omit<RoomEvent, "read_by">, posted: boolean): string {
  if (!posted) return "";
  if (event.deleted !== undefined) return "-";
  return JSON.stringify(fieldTerms(eventFields(event)));
}

/**
 * `deleteRoom` removes what the first parts wrote when a later one fails (an outage, a timeout), as an import does:
 * a failed fork leaves no room behind; only a process dying between parts leaves an incomplete one.
 */
export function forkOps(
  call: Call,
  deleteRoom: (scope: { roomId: string; teamId: string }) => Promise<void>,
  pieces: ValuePieces,
): Pick<PeopleStore<RoomScope>, "forkRoom"> {
  return {
    async forkRoom(scope, input) {
      const snap = (await call(scope, "FORK_SOURCE", { at: input.atSeq })).value;
      const atSeq = snap.atSeq;
      const posted = new Set(snap.posted);
      const log: RebuildEvent[] = snap.events.map((e) => ({
        seq: e.seq,
        type: e.type,
        ts: Date.parse(e.timestamp),
        payload: e.payload,
        posted: posted.has(e.seq),
      }));
      const plan = snap.trimmed ? currentPlan(snap) : rebuildPlan(log);
      const rebuilt = rebuildRecords(log);
      const { reviews, floors } = snap.trimmed ? currentRecords(snap, rebuilt.floors) : rebuilt;

      // Context as it stood: each entry's versions, the heads aligned to the end of the list.
      const deleted = new Set(plan.deletedContexts);
      let ctxN = plan.deletedContexts.reduce((max, id) => Math.max(max, serialOf(id)), snap.ctxN ?? 0);
      const entries: string[] = [];
      const kept = snap.ctx
        .filter((c) => !deleted.has(c.m.id))
        .sort((a, b) => serialOf(a.m.id) - serialOf(b.m.id));
      for (const c of kept) {
        const { id, type, ...meta } = c.m;
        const all: Version[] = [...c.h, { ...meta, payload: c.p }];
        const offset = all.length - c.s.length;
        const versions: ContextVersionAt[] = all.map((version, i) => ({
          version,
          atSeq: i >= offset ? (c.s[i - offset] ?? null) : null,
        }));
        const found = contextAt(versions, atSeq, snap.nextMs);
        if (!found) continue;
        ctxN = Math.max(ctxN, serialOf(id));
        const heads = [...found.history, found.current].flatMap((v) => (v.atSeq === null ? [] : [v.atSeq]));
        entries.push(
          id,
          entryJson({ id, type, ...found.current.version }),
          JSON.stringify(found.current.version.payload),
          JSON.stringify(found.history.map((v) => historyVersion(v.version))),
          JSON.stringify(heads),
          String(entries.length / ENTRY_ARGS + 1),
          JSON.stringify(fieldTerms(contextFields(found.current.version))),
        );
      }

      const forkedFrom: ForkedFrom = { roomId: scope.roomId, seq: atSeq };
      const setup: ForkSetup = {
        eventSeq: atSeq,
        taskN: plan.taskN,
        ctxN,
        ctxSeq: entries.length / ENTRY_ARGS,
        pending: plan.byStatus.pending,
        inProgress: plan.byStatus.in_progress,
        done: plan.byStatus.done,
        blocked: plan.byStatus.blocked,
        planCreated: plan.createdMs === null ? null : new Date(plan.createdMs).toISOString(),
        planUpdated: plan.updatedMs === null ? null : new Date(plan.updatedMs).toISOString(),
        driver: input.driver ?? null,
        by: input.by,
        handoffN: floors.handoff,
        approvalN: floors.approval,
        verdictN: floors.verdict,
        reviewN: floors.review,
        trimmed: snap.trimmed ?? 0,
      };
      const finish = [
        String(plan.tasks.length),
        ...plan.tasks.flatMap((t) => [t.id, JSON.stringify(t), JSON.stringify(fieldTerms(taskFields(t)))]),
        String(entries.length / ENTRY_ARGS),
        ...entries,
        String(reviews.length),
        ...reviews.flatMap((r) => [r.id, JSON.stringify(r)]),
        // Small values are not in the log: the kinds declared to fork are copied as they are now.
        ...valuePairs(snap.values, travelling(pieces, "forked")),
      ];

      // The log in parts by size; every part repeats the small setup and the origin.
      const parts: string[][] = [];
      let part: string[] = [];
      let bytes = 0;
      snap.events.forEach((event, i) => {
        const json = JSON.stringify(event);
        const line = `${event.seq} ${snap.idx[i]?.split(" ")[0]} ${event.to} ${event.type}`;
        const mark = eventMark(event, posted.has(event.seq));
        const size = json.length + line.length + mark.length;
        if (bytes + size > PART_BYTES && part.length > 0) {
          parts.push(part);
          part = [];
          bytes = 0;
        }
        part.push(json, line, mark);
        bytes += size;
      });
      parts.push(part);

      const token = randomUUID();
      const target: RoomScope = { roomId: input.newRoomId, teamId: scope.teamId, mayClaim: scope.mayClaim };
      for (const [n, events] of parts.entries()) {
        const last = n === parts.length - 1;
        const args = {
          token,
          first: n === 0,
          last,
          setup,
          forked: forkedFrom,
          events: events.length / 3,
          records: last ? [...events, ...finish] : events,
        };
        try {
          await call(target, "FORK_WRITE", args, ["forkTargetExists", "forkInterrupted"]);
        } catch (error) {
          if (error instanceof ScriptRefusal && error.reply.err === "forkTargetExists")
            throw peopleErrors.forkTargetExists(input.newRoomId);
          // Deleted or made again by someone else meanwhile: the earlier parts went with the room, and what stands
          // there now is not ours to delete.
          if (error instanceof ScriptRefusal) throw peopleErrors.forkInterrupted(input.newRoomId);
          if (n > 0) await deleteRoom(target).catch(() => {});
          throw error;
        }
      }
      return { roomId: input.newRoomId, forkedFrom };
    },
  };
}
