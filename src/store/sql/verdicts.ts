/** Verdicts: a reviewer's advice on the work, kept and announced; nothing else changes. */
import type { Verdict } from "../../protocol/people.ts";
import { newVerdict } from "../../protocol/people-rules.ts";
import { BROADCAST } from "../../protocol/records.ts";
import type { NewVerdict } from "../people-types.ts";
import type { RoomScope } from "../types.ts";
import type { Events } from "./events.ts";
import type { SqlParts } from "./rooms.ts";
import type { Op } from "./run.ts";
import { createNextSerial } from "./serials.ts";

export function createVerdicts({ sql, now, rooms }: SqlParts, events: Events) {
  const newest = sql.query<{ json: string }, [string]>(
    "SELECT json FROM verdicts WHERE room_id = ? ORDER BY n DESC",
  );
  // A fork's own continue after every id its copied log names (rooms.id_floors).
  const nextN = createNextSerial(sql, "verdict");
  const insert = sql.query<unknown, [string, string, number, string]>(
    "INSERT INTO verdicts (room_id, id, n, json) VALUES (?, ?, ?, ?)",
  );

  return {
    *recordVerdict(scope: RoomScope, input: NewVerdict): Op<Verdict> {
      yield* rooms.check(scope);
      yield* rooms.claim(scope);
      const n = yield* nextN(scope.roomId);
      const verdict = newVerdict(n, input, now());
      yield* insert.run(scope.roomId, verdict.id, n, JSON.stringify(verdict));
      yield* events.append(scope.roomId, {
        type: "verdict_recorded",
        from: input.by,
        to: BROADCAST,
        payload: { verdict },
      });
      return verdict;
    },
    *listVerdicts(scope: RoomScope): Op<Verdict[]> {
      const room = yield* rooms.read(scope);
      return room ? (yield* newest.all(room.room_id)).map((row) => JSON.parse(row.json) as Verdict) : [];
    },
  };
}
