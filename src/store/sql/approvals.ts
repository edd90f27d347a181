/**
 * Approvals: an agent asks, a person decides exactly once. Stored as the record's JSON; the status "expired" is
 * never stored, it is what a pending approval past its expiry reads as.
 */
import {
  type Approval,
  type ApprovalStatus,
  effectiveApproval,
  peopleErrors,
} from "../../protocol/people.ts";
import { decidedApproval, newApproval } from "../../protocol/people-rules.ts";
import { BROADCAST } from "../../protocol/records.ts";
import type { ApprovalDecisionInput, NewApproval } from "../people-types.ts";
import type { RoomScope } from "../types.ts";
import type { Events } from "./events.ts";
import type { SqlParts } from "./rooms.ts";
import type { Op } from "./run.ts";
import { createNextSerial } from "./serials.ts";

const parse = (row: { json: string }): Approval => JSON.parse(row.json);

export function createApprovals({ sql, now, rooms }: SqlParts, events: Events) {
  const get = sql.query<{ json: string }, [string, string]>(
    "SELECT json FROM approvals WHERE room_id = ? AND id = ?",
  );
  const all = sql.query<{ json: string }, [string]>(
    "SELECT json FROM approvals WHERE room_id = ? ORDER BY n",
  );
  // A fork's own continue after every id its copied log names (rooms.id_floors).
  const nextN = createNextSerial(sql, "approval");
  const insert = sql.query<unknown, [string, string, number, string]>(
    "INSERT INTO approvals (room_id, id, n, json) VALUES (?, ?, ?, ?)",
  );
  const update = sql.query<unknown, [string, string, string]>(
    "UPDATE approvals SET json = ? WHERE room_id = ? AND id = ?",
  );

  function* find(roomId: string, id: string): Op<Approval> {
    const row = yield* get.get(roomId, id);
    if (!row) throw peopleErrors.approvalNotFound(id);
    return parse(row);
  }

  return {
    *requestApproval(scope: RoomScope, input: NewApproval): Op<Approval> {
      yield* rooms.check(scope);
      yield* rooms.claim(scope);
      const n = yield* nextN(scope.roomId);
      const approval = newApproval(n, input, now());
      const json = JSON.stringify(approval);
      yield* insert.run(scope.roomId, approval.id, n, json);
      yield* events.append(scope.roomId, {
        type: "approval_requested",
        from: input.requestedBy,
        to: BROADCAST,
        payload: { approval },
      });
      return JSON.parse(json);
    },
    *getApproval(scope: RoomScope, id: string): Op<Approval> {
      const room = yield* rooms.read(scope);
      if (!room) throw peopleErrors.approvalNotFound(id);
      return effectiveApproval(yield* find(room.room_id, id), now());
    },
    *listApprovals(scope: RoomScope, status?: ApprovalStatus): Op<Approval[]> {
      const room = yield* rooms.read(scope);
      if (!room) return [];
      const rows = yield* all.all(room.room_id);
      const t = now();
      const list = rows.map((row) => effectiveApproval(parse(row), t));
      return status === undefined ? list : list.filter((a) => a.status === status);
    },
    *decideApproval(scope: RoomScope, input: ApprovalDecisionInput): Op<Approval> {
      const room = yield* rooms.check(scope);
      if (!room) throw peopleErrors.approvalNotFound(input.id);
      const t = now();
      const current = effectiveApproval(yield* find(room.room_id, input.id), t);
      const decided = decidedApproval(current, input, t);
      yield* rooms.claim(scope);
      yield* update.run(JSON.stringify(decided), room.room_id, decided.id);
      yield* events.append(room.room_id, {
        type: "approval_decided",
        from: input.decidedBy,
        to: current.requestedBy,
        payload: {
          approvalId: decided.id,
          action: decided.action,
          decision: input.decision,
          decidedBy: input.decidedBy,
          ...(input.note !== undefined ? { note: input.note } : {}),
        },
      });
      return decided;
    },
  };
}
