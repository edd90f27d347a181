/** Peer reviews between agents: requested of one named reviewer, decided once, only by that reviewer. */
import { errors } from "../../protocol/errors.ts";
import type { Review } from "../../protocol/records.ts";
import { reviewMatches } from "../../protocol/reviews.ts";
import { toolErrors } from "../../protocol/tool-errors.ts";
import { decidedReview, newReview } from "../sql-records.ts";
import type { NewReview, ReviewDecision, ReviewFilter, RoomScope } from "../types.ts";
import type { Events } from "./events.ts";
import type { StoreParts } from "./rooms.ts";

export function createReviews({ db, now, rooms }: StoreParts, events: Events) {
  const taskExists = db.query<{ id: string }, [string, string]>(
    "SELECT id FROM tasks WHERE room_id = ? AND id = ?",
  );
  const entryVersion = db.query<{ version: string }, [string, string]>(
    "SELECT json_extract(json, '$.version') AS version FROM contexts WHERE room_id = ? AND id = ?",
  );
  const nextN = db.query<{ n: number }, [string]>(
    "SELECT coalesce(max(n), 0) + 1 AS n FROM reviews WHERE room_id = ?",
  );
  const insert = db.query<unknown, [string, string, number, string]>(
    "INSERT INTO reviews (room_id, id, n, json) VALUES (?, ?, ?, ?)",
  );
  const get = db.query<{ json: string }, [string, string]>(
    "SELECT json FROM reviews WHERE room_id = ? AND id = ?",
  );
  const update = db.query<unknown, [string, string, string]>(
    "UPDATE reviews SET json = ?1 WHERE room_id = ?2 AND id = ?3",
  );
  const all = db.query<{ json: string }, [string]>("SELECT json FROM reviews WHERE room_id = ? ORDER BY n");

  return {
    requestReview(scope: RoomScope, input: NewReview): Review {
      const room = rooms.check(scope);
      if (input.taskId !== undefined && !(room && taskExists.get(room.room_id, input.taskId))) {
        throw errors.taskNotFound(input.taskId);
      }
      let version: string | null = null;
      if (input.contextId !== undefined) {
        const row = room ? entryVersion.get(room.room_id, input.contextId) : null;
        if (!row) throw errors.contextNotFound(input.contextId);
        version = row.version;
      }
      rooms.claim(scope);
      const n = nextN.get(scope.roomId)?.n ?? 1;
      const review = newReview(n, input, version, now());
      insert.run(scope.roomId, review.id, n, JSON.stringify(review));
      events.append(scope.roomId, {
        type: "review_requested",
        from: review.requester,
        to: review.reviewer,
        payload: { review },
      });
      return review;
    },
    decideReview(scope: RoomScope, input: ReviewDecision): Review {
      const room = rooms.check(scope);
      const row = room ? get.get(room.room_id, input.reviewId) : null;
      if (!room || !row) throw toolErrors.reviewNotFound(input.reviewId);
      const review = JSON.parse(row.json) as Review;
      const decided = decidedReview(review, input, now());
      rooms.claim(scope);
      update.run(JSON.stringify(decided), room.room_id, review.id);
      events.append(room.room_id, {
        type: "review_decided",
        from: decided.reviewer,
        to: decided.requester,
        payload: { review: decided },
      });
      return decided;
    },
    listReviews(scope: RoomScope, filter: ReviewFilter): Review[] {
      const room = rooms.read(scope);
      if (!room) return [];
      return all
        .all(room.room_id)
        .map((r) => JSON.parse(r.json) as Review)
        .filter((r) => reviewMatches(r, filter));
    },
  };
}
