/**
 * The next serial of a room's handoffs, approvals or verdicts (hof-<n>, apr-<n>, vrd-<n>): one after the highest
 * stored, and — in a fork — after the highest its copied log names (`rooms.id_floors`, JSON {handoff, approval,
 * verdict} written by fork.ts; decoded here, like every stored JSON PostgreSQL must not read with its operators).
 * One statement.
 */
import type { Op, SqlClient } from "./run.ts";

/** Records numbered per room whose serial a fork raises past its copied log (rooms.id_floors, written by fork.ts). */
export type FloorKind = "handoff" | "approval" | "verdict";

export const SERIAL_TABLES: Record<FloorKind, string> = {
  handoff: "handoffs",
  approval: "approvals",
  verdict: "verdicts",
};

/** The highest n of `kind` a fork's log names, from the room's id_floors text (0 when none). */
export function floorOf(floors: string | null | undefined, kind: FloorKind): number {
  if (!floors) return 0;
  const value = (JSON.parse(floors) as Partial<Record<FloorKind, unknown>>)[kind];
  return typeof value === "number" ? value : 0;
}

export function createNextSerial(sql: SqlClient, kind: FloorKind) {
  const next = sql.query<{ n: number; floors: string | null }, [string]>(
    `SELECT coalesce(max(n), 0) AS n, (SELECT id_floors FROM rooms WHERE room_id = ?1) AS floors
     FROM ${SERIAL_TABLES[kind]} WHERE room_id = ?1`,
  );
  return function* nextSerial(roomId: string): Op<number> {
    const row = yield* next.get(roomId);
    return Math.max(row?.n ?? 0, floorOf(row?.floors, kind)) + 1;
  };
}
