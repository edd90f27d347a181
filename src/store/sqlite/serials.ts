/**
 * The next serial of a room's handoffs, approvals or verdicts (hof-<n>, apr-<n>, vrd-<n>): one after the highest
 * stored, and — in a fork — after the highest its copied log names (`rooms.id_floors`, JSON {handoff, approval,
 * verdict} written by fork.ts). One statement.
 */
import type { Database } from "bun:sqlite";
import { type FloorKind, SERIAL_TABLES } from "./rows.ts";

export function createNextSerial(db: Database, kind: FloorKind) {
  const next = db.query<{ n: number }, [string]>(
    `SELECT max(coalesce((SELECT max(n) FROM ${SERIAL_TABLES[kind]} WHERE room_id = ?1), 0),
       coalesce((SELECT json_extract(id_floors, '$.${kind}') FROM rooms WHERE room_id = ?1), 0)) + 1 AS n`,
  );
  return (roomId: string): number => next.get(roomId)?.n ?? 1;
}
