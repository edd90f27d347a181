/** Verdicts (humans.md §3): a reviewer's advice on the work, kept and announced; nothing else changes. */
import type { Verdict } from "../../protocol/people.ts";
import { BROADCAST } from "../../protocol/records.ts";
import type { NewVerdict } from "../people-types.ts";
import { newVerdict } from "../sql-records.ts";
import type { RoomScope } from "../types.ts";
import type { Events } from "./events.ts";
import type { StoreParts } from "./rooms.ts";
import { createNextSerial } from "./serials.ts";

export function createVerdicts({ db, now, rooms }: StoreParts, events: Events) {
  const newest = db.query<{ json: string }, [string]>(
    "SELECT json FROM verdicts WHERE room_id = ? ORDER BY n DESC",
  );
  // A fork's own continue after every id its copied log names (rooms.id_floors).
  const nextN = createNextSerial(db, "verdict");
  const insert = db.query<unknown, [string, string, number, string]>(
    "INSERT INTO verdicts (room_id, id, n, json) VALUES (?, ?, ?, ?)",
  );

  return {
    recordVerdict(scope: RoomScope, input: NewVerdict): Verdict {
      rooms.check(scope);
      rooms.claim(scope);
      const n = nextN(scope.roomId);
      const verdict = newVerdict(n, input, now());
      insert.run(scope.roomId, verdict.id, n, JSON.stringify(verdict));
      events.append(scope.roomId, {
        type: "verdict_recorded",
        from: input.by,
        to: BROADCAST,
        payload: { verdict },
      });
      return verdict;
    },
    listVerdicts(scope: RoomScope): Verdict[] {
      const room = rooms.read(scope);
      return room ? newest.all(room.room_id).map((row) => JSON.parse(row.json) as Verdict) : [];
    },
  };
}
