/**
 * forkRoom on Redis (docs/people.md, Forks): one script reads the source's log prefix and context (an atomic snapshot),
 * the plan, people's records, the wheel and context at atSeq are rebuilt and settled here (protocol/fork-rebuild.ts,
 * fork-records.ts, fork-release.ts, as on SQLite), and the new room is written by FORK_WRITE in parts of at most
 * PART_BYTES — one part for most rooms — with the posted marks of its events and the search index the writes would
 * have built. The source and the fork live in different slots, so on a Redis Cluster no single script could do both.
 */
import { randomUUID } from "node:crypto";
import {
  type ContextVersionAt,
  contextAt,
  type RebuildEvent,
  rebuildPlan,
} from "../../protocol/fork-rebuild.ts";
import { heldFloors, type RebuiltRecords, rebuildRecords, serialOf } from "../../protocol/fork-records.ts";
import { roomForkedPayload, settleFork } from "../../protocol/fork-release.ts";
import { type ForkedFrom, peopleErrors } from "../../protocol/people.ts";
import type { ContextEntry, RoomEvent } from "../../protocol/records.ts";
import { travelling, type ValuePieces } from "../../protocol/room-values.ts";
import { contextFields, eventFields, fieldTerms, taskFields } from "../../protocol/search.ts";
import type { Clock } from "../../protocol/time.ts";
import type { PeopleStore } from "../people-types.ts";
import type { RoomScope } from "../types.ts";
import type { Call } from "./call.ts";
import { approvalJson, entryJson, historyVersion } from "./import-writes.ts";
import type { ForkSetup, Snapshot } from "./lua-fork.ts";
import { ScriptRefusal } from "./run.ts";
import { valuePairs } from "./value-ops.ts";

type Version = Omit<ContextEntry, "id" | "type">;

const bySerial = <T extends { id: string }>(list: readonly T[] | undefined): T[] =>
  [...(list ?? [])].sort((a, b) => serialOf(a.id) - serialOf(b.id));

/**
 * A trimmed room at its head: its tasks, records and wheel as they are (the log cannot replay them), its own
 * counters.
 */
function currentState(snap: Snapshot) {
  const ms = (value: string | null | undefined) => (value ? Date.parse(value) : null);
  const plan = {
    tasks: bySerial(snap.tasks),
    taskN: snap.taskN ?? 0,
    createdMs: ms(snap.planCreated),
    updatedMs: ms(snap.planUpdated),
    deletedContexts: [] as string[],
  };
  const records: Omit<RebuiltRecords, "floors" | "wheel"> = {
    reviews: bySerial(snap.reviews),
    approvals: bySerial(snap.approvals).map(({ expiresMs: _ms, ...approval }) => approval),
    handoffs: bySerial(snap.handoffs),
    verdicts: bySerial(snap.verdicts),
  };
  return { plan, records, wheel: snap.wheel ?? { holder: null, epoch: 0, since: null } };
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
  clock: Clock,
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
      const rebuilt = rebuildRecords(log);
      const { plan, records, wheel } = snap.trimmed
        ? currentState(snap)
        : { plan: rebuildPlan(log), records: rebuilt, wheel: rebuilt.wheel };
      // The moment the fork stands for: just before the event after atSeq, or now when forking at the head.
      const now = clock();
      const settled = settleFork({ ...plan, approvals: records.approvals, wheel }, snap.nextMs ?? now, now);
      const held = { ...records, approvals: settled.approvals };
      // Ids continue after the records it holds and every id its log names.
      const floors = heldFloors(rebuilt.floors, held);

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
        pending: settled.byStatus.pending,
        inProgress: settled.byStatus.in_progress,
        done: settled.byStatus.done,
        blocked: settled.byStatus.blocked,
        planCreated: plan.createdMs === null ? null : new Date(plan.createdMs).toISOString(),
        planUpdated: settled.updatedMs === null ? null : new Date(settled.updatedMs).toISOString(),
        driverEpoch: settled.driver.epoch,
        driverSince: settled.driver.since,
        by: input.by,
        handoffN: floors.handoff,
        approvalN: floors.approval,
        verdictN: floors.verdict,
        reviewN: floors.review,
        trimmed: snap.trimmed ?? 0,
      };
      const people = [
        ...held.reviews.map((r) => ["reviews", r.id, JSON.stringify(r)]),
        ...held.approvals.map((a) => ["approvals", a.id, approvalJson(a)]),
        ...held.handoffs.map((h) => ["handoffs", h.id, JSON.stringify(h)]),
        ...held.verdicts.map((v) => ["verdicts", v.id, JSON.stringify(v)]),
      ];
      const finish = [
        String(settled.tasks.length),
        ...settled.tasks.flatMap((t) => [t.id, JSON.stringify(t), JSON.stringify(fieldTerms(taskFields(t)))]),
        String(entries.length / ENTRY_ARGS),
        ...entries,
        String(people.length),
        ...people.flat(),
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
          payload: last ? roomForkedPayload(forkedFrom, settled.released) : undefined,
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
