/**
 * Moving rooms on Redis (store/move-types.ts): the snapshot in one script, the log in pages, an import in parts of
 * at most PART_BYTES (IMPORT_WRITE; like a fork, since the new room lives in a slot of its own), the team list by
 * SCAN, and the access records through the scripts that list them (their stored form carries the digest).
 */
import { randomUUID } from "node:crypto";
import { movingErrors } from "../../protocol/moving.ts";
import type { Approval, Handoff, MailboxType, Verdict } from "../../protocol/people.ts";
import type { Review } from "../../protocol/records.ts";
import { travelling, type ValuePieces } from "../../protocol/room-values.ts";
import { iso } from "../../protocol/time.ts";
import type { LoggedEvent, MoveStore, RoomSnapshot } from "../move-types.ts";
import type { RoomScope } from "../types.ts";
import { byCreation, toNewKey } from "./access-records.ts";
import type { Bridge } from "./call.ts";
import type { ScriptClient } from "./client.ts";
import { importWrites, keyNumber, type Write } from "./import-writes.ts";
import type { StoredRoom } from "./lua-moving.ts";
import { byCreation as bySerial, toEntry, toEvent } from "./records.ts";
import { ScriptRefusal } from "./run.ts";
import { valuesOf } from "./value-ops.ts";

/** ARGV bytes of one IMPORT_WRITE part. */
const PART_BYTES = 512 * 1024;

/** [field, value, field, value, …] → [field, value][]. */
function entries(flat: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i] as string, flat[i + 1] as string]);
  return out;
}

const byKey =
  <T>(key: (t: T) => string) =>
  (a: T, b: T) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;

function snapshotOf(v: StoredRoom, pieces: ValuePieces): RoomSnapshot {
  const m = v.meta;
  const h = v.hashes;
  const leaseMs = new Map<string, number>();
  for (const [field, value] of entries(h.holdings)) {
    if (!field.startsWith("l:")) continue;
    for (const line of value.split("\n")) {
      const [id, length] = line.split(" ");
      if (id && length) leaseMs.set(id, Number(length));
    }
  }
  const cursors = new Map<string, { agentId: string; seq: number | null; contextMark: number }>();
  const cursor = (agentId: string) => {
    const found = cursors.get(agentId) ?? { agentId, seq: null, contextMark: 0 };
    cursors.set(agentId, found);
    return found;
  };
  for (const [agent, seq] of entries(h.cursors)) cursor(agent).seq = Number(seq);
  for (const [agent, mark] of entries(h.ctx_marks)) cursor(agent).contextMark = Number(mark);
  return {
    createdAt: m.createdAt,
    forkedFrom: m.forkedFrom,
    head: m.head,
    trimmedBefore: m.trimmed > 0 ? m.trimmed + 1 : null,
    plan: { createdAt: m.planCreated, updatedAt: m.planUpdated },
    counters: { tasks: m.taskN, contexts: m.ctxN, contextChanges: m.ctxSeq },
    driver: {
      holder: m.drvHolder,
      holderKind: m.drvHolder === null ? null : m.drvKind === "agent" ? "agent" : "human",
      epoch: m.drvEpoch,
      since: m.drvSince,
    },
    tasks: v.tasks.sort(bySerial).map((task) => ({ task, leaseMs: leaseMs.get(task.id) ?? null })),
    contexts: v.ctx
      .sort((a, b) => bySerial(a.m, b.m))
      .map((c) => {
        const versions = c.h.length + 1;
        const offset = versions - c.s.length;
        const atSeq = (i: number) => (i >= offset ? (c.s[i - offset] ?? null) : null);
        return {
          entry: toEntry({ m: c.m, p: c.p }),
          atSeq: atSeq(versions - 1),
          changedSeq: c.c,
          history: c.h.map((version, i) => ({ version, atSeq: atSeq(i) })),
        };
      }),
    vars: entries(h.vars)
      .map(([key, value]) => ({ key, value }))
      .sort(byKey((x) => x.key)),
    reviews: entries(h.reviews)
      .map(([, json]) => JSON.parse(json) as Review)
      .sort(bySerial),
    approvals: entries(h.approvals)
      .map(([, json]) => {
        const { expiresMs: _ms, ...approval } = JSON.parse(json) as Approval & { expiresMs?: number };
        return approval;
      })
      .sort(bySerial),
    handoffs: entries(h.handoffs)
      .map(([, json]) => JSON.parse(json) as Handoff)
      .sort(bySerial),
    verdicts: entries(h.verdicts)
      .map(([, json]) => JSON.parse(json) as Verdict)
      .sort(bySerial),
    cursors: [...cursors.values()].sort(byKey((c) => c.agentId)),
    marks: entries(h.marks)
      .map(([field, seq]) => {
        const space = field.indexOf(" ");
        return {
          agentId: field.slice(space + 1),
          type: field.slice(0, space) as MailboxType,
          seq: Number(seq),
        };
      })
      .sort(byKey((x) => `${x.agentId} ${x.type}`)),
    fences: entries(h.fences)
      .map(([resource, fence]) => ({ resource, fence: Number(fence) }))
      .sort(byKey((x) => x.resource)),
    claims: entries(h.claims)
      .map(([path, json]) => {
        const c = JSON.parse(json) as {
          agentId: string;
          expiresAt: number;
          ttl: number;
          claimedAt: number;
          reason?: string;
        };
        return {
          path,
          agentId: c.agentId,
          expiresAt: iso(c.expiresAt),
          ttlMs: c.ttl,
          claimedAt: iso(c.claimedAt),
          ...(c.reason === undefined ? {} : { reason: c.reason }),
        };
      })
      .sort(byKey((x) => x.path)),
    values: valuesOf(h.values, travelling(pieces, "moved")),
  };
}

/** IMPORT_WRITE's writes: the hash triples, then the number of sorted-set triples and those. */
function argsOf(writes: Write[]): { hashes: number; writes: string[] } {
  const h: string[] = [];
  const z: string[] = [];
  for (const w of writes) {
    if ("h" in w) h.push(keyNumber(w.h), w.field, w.value);
    else z.push(keyNumber(w.z), String(w.score), w.member);
  }
  return { hashes: h.length / 3, writes: [...h, String(z.length / 3), ...z] };
}

const sizeOf = (w: Write) => ("h" in w ? w.field.length + w.value.length : w.member.length + 24) + 8;

export function moveOps(
  { call, team }: Bridge,
  client: ScriptClient,
  deleteRoom: (scope: { roomId: string; teamId: string }) => Promise<void>,
  pieces: ValuePieces,
): MoveStore<RoomScope> {
  async function importRoom(scope: RoomScope, data: Parameters<MoveStore<RoomScope>["importRoom"]>[1]) {
    const token = randomUUID();
    const target: RoomScope = { roomId: scope.roomId, teamId: scope.teamId, mayClaim: scope.mayClaim };
    let first = true;
    // Set when a later part finds the room deleted or made again by someone else: what the earlier parts wrote went
    // with the room, and what stands there now is not ours to delete.
    let interrupted = false;
    const send = async (writes: Write[], last: boolean) => {
      const args = { token, first, last, ...argsOf(writes) };
      try {
        await call(target, "IMPORT_WRITE", args, ["importTargetExists", "importInterrupted"]);
      } catch (error) {
        if (error instanceof ScriptRefusal && error.reply.err === "importTargetExists") {
          throw movingErrors.importTargetExists(scope.roomId);
        }
        if (error instanceof ScriptRefusal) {
          interrupted = true;
          throw movingErrors.importInterrupted(scope.roomId);
        }
        throw error;
      }
      first = false;
    };
    let part: Write[] = [];
    let bytes = 0;
    try {
      for (const write of importWrites(data.snapshot, data.events(), pieces)) {
        if (bytes + sizeOf(write) > PART_BYTES && part.length > 0) {
          await send(part, false);
          part = [];
          bytes = 0;
        }
        part.push(write);
        bytes += sizeOf(write);
      }
      await send(part, true);
    } catch (error) {
      // Whatever was written goes again: a failed import leaves no room behind (a crash between parts can).
      if (!first && !interrupted) await deleteRoom(scope).catch(() => {});
      throw error;
    }
  }

  return {
    async exportRoom(scope) {
      // An export is a look at the room, not a use: it records nothing (last use and expiry stay).
      const { value } = await call({ ...scope, mayClaim: false, observe: true }, "EXPORT_ROOM", {});
      return value.exists ? snapshotOf(value, pieces) : null;
    },

    async exportLog(scope, after, limit) {
      const { value } = await call({ ...scope, mayClaim: false, observe: true }, "EXPORT_LOG", {
        after,
        limit,
      });
      return value.map(
        (row): LoggedEvent => ({
          event: toEvent(row),
          posted: row.p,
          deliveredAt: Object.fromEntries(Object.entries(row.d).map(([agent, at]) => [agent, iso(at)])),
        }),
      );
    },

    importRoom,

    async teamsToMove() {
      if (!client.scan) throw new Error("teamsToMove needs a client that can SCAN");
      const teams = new Set<string>();
      for (const pattern of ["team:{*}:keys", "team:{*}:rooms"]) {
        for (const key of await client.scan(pattern)) {
          const match = /^team:\{([^}]+)\}:/.exec(key);
          if (match?.[1]) teams.add(match[1]);
        }
      }
      return [...teams].sort();
    },

    async keyDigests(teamId) {
      const { value } = await team(teamId, "LIST_KEYS", {});
      return value.sort(byCreation).map(toNewKey);
    },

    async inviteDigests(scope) {
      const { value } = await call({ ...scope, mayClaim: false }, "LIST_INVITES", {});
      return value.sort(byCreation).map(({ n: _n, expiresMs: _ms, ...invite }) => invite);
    },
  };
}
