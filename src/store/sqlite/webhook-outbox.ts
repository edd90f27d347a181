/**
 * The outbox half of the event log: appending an event queues one delivery per matching active webhook of the
 * room, inside the append's own transaction (store/types.ts WebhookStore). A room without webhooks pays one
 * primary-key range lookup that finds nothing.
 */
import type { Database } from "bun:sqlite";

export function createOutbox(db: Database) {
  const enqueue = db.query<unknown, { room: string; seq: number; type: string; now: number }>(
    `INSERT INTO webhook_outbox (room_id, seq, webhook_id, attempt, due_at)
     SELECT room_id, $seq, webhook_id, 1, $now FROM webhooks w
     WHERE w.room_id = $room AND w.active = 1
       AND (w.types = '[]' OR EXISTS (SELECT 1 FROM json_each(w.types) WHERE value = $type))`,
  );
  return {
    /** Queues event `seq` of type `type` for every active webhook of the room that wants it (due now). */
    enqueue(roomId: string, seq: number, type: string, now: number): void {
      enqueue.run({ room: roomId, seq, type, now });
    },
  };
}

export type Outbox = ReturnType<typeof createOutbox>;
