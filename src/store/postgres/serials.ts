/**
 * The next serial of a room's handoffs, approvals or verdicts (hof-<n>, apr-<n>, vrd-<n>): one after the highest
 * stored, and — in a fork — after the highest its copied log names (`rooms.id_floors`, JSON {handoff, approval,
 * verdict} written by fork.ts; decoded here, in TS, like every stored JSON of this driver). One statement.
 */
import type { Pg } from "./db.ts";
import { type FloorKind, SERIAL_TABLES } from "./rows.ts";

/** The highest n of `kind` a fork's log names, from the room's id_floors text (0 when none). */
export function floorOf(floors: string | null | undefined, kind: FloorKind): number {
  if (!floors) return 0;
  const value = (JSON.parse(floors) as Partial<Record<FloorKind, unknown>>)[kind];
  return typeof value === "number" ? value : 0;
}

export function createNextSerial(pg: Pg, kind: FloorKind) {
  const next = pg.query<{ n: number; floors: string | null }, [string]>(
    `SELECT coalesce(max(n), 0) AS n, (SELECT id_floors FROM rooms WHERE room_id = ?1) AS floors
     FROM ${SERIAL_TABLES[kind]} WHERE room_id = ?1`,
  );
  return async (roomId: string): Promise<number> => {
    const row = await next.get(roomId);
    return Math.max(row?.n ?? 0, floorOf(row?.floors, kind)) + 1;
  };
}
