/**
 * Approvals (humans.md §2, §3), as the SQLite driver's (src/store/sqlite/approvals.ts): an agent asks, a person
 * decides exactly once. The status "expired" is never stored: it is what a pending approval past its expiry reads as.
 */
import {
  type Approval,
  type ApprovalStatus,
  effectiveApproval,
  peopleErrors,
} from "../../protocol/people.ts";
import { BROADCAST } from "../../protocol/records.ts";
import type { ApprovalDecisionInput, NewApproval } from "../people-types.ts";
import { decidedApproval, newApproval } from "../sql-records.ts";
import type { RoomScope } from "../types.ts";
import type { Events } from "./events.ts";
import type { StoreParts } from "./rooms.ts";
import { createNextSerial } from "./serials.ts";

const parse = (row: { json: string }): Approval => JSON.parse(row.json);

export function createApprovals({ pg, now, rooms }: StoreParts, events: Events) {
  const get = pg.query<{ json: string }, [string, string]>(
    "SELECT json FROM approvals WHERE room_id = ? AND id = ?",
  );
  const all = pg.query<{ json: string }, [string]>("SELECT json FROM approvals WHERE room_id = ? ORDER BY n");
  // A fork's own continue after every id its copied log names (rooms.id_floors).
  const nextN = createNextSerial(pg, "approval");
  const insert = pg.query<unknown, [string, string, number, string]>(
    "INSERT INTO approvals (room_id, id, n, json) VALUES (?, ?, ?, ?)",
  );
  const update = pg.query<unknown, [string, string, string]>(
    "UPDATE approvals SET json = ? WHERE room_id = ? AND id = ?",
  );

  async function find(roomId: string, id: string): Promise<Approval> {
    const row = await get.get(roomId, id);
    if (!row) throw peopleErrors.approvalNotFound(id);
    return parse(row);
  }

  return {
    async requestApproval(scope: RoomScope, input: NewApproval): Promise<Approval> {
      await rooms.check(scope);
      await rooms.claim(scope);
      const n = await nextN(scope.roomId);
      const approval = newApproval(n, input, now());
      const json = JSON.stringify(approval);
      await insert.run(scope.roomId, approval.id, n, json);
      await events.append(scope.roomId, {
        type: "approval_requested",
        from: input.requestedBy,
        to: BROADCAST,
        payload: { approval },
      });
      return JSON.parse(json);
    },
    async getApproval(scope: RoomScope, id: string): Promise<Approval> {
      const room = await rooms.read(scope);
      if (!room) throw peopleErrors.approvalNotFound(id);
      return effectiveApproval(await find(room.room_id, id), now());
    },
    async listApprovals(scope: RoomScope, status?: ApprovalStatus): Promise<Approval[]> {
      const room = await rooms.read(scope);
      if (!room) return [];
      const t = now();
      const list = (await all.all(room.room_id)).map((row) => effectiveApproval(parse(row), t));
      return status === undefined ? list : list.filter((a) => a.status === status);
    },
    async decideApproval(scope: RoomScope, input: ApprovalDecisionInput): Promise<Approval> {
      const room = await rooms.check(scope);
      if (!room) throw peopleErrors.approvalNotFound(input.id);
      const t = now();
      const current = effectiveApproval(await find(room.room_id, input.id), t);
      const decided = decidedApproval(current, input, t);
      await rooms.claim(scope);
      await update.run(JSON.stringify(decided), room.room_id, decided.id);
      await events.append(room.room_id, {
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
