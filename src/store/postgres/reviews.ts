/**
 * Peer reviews between agents, as the SQLite driver's (src/store/sqlite/reviews.ts): requested of one named
 * reviewer, decided once, only by that reviewer.
 */
import { errors } from "../../protocol/errors.ts";
import type { ContextEntry, Review } from "../../protocol/records.ts";
import { reviewMatches } from "../../protocol/reviews.ts";
import { toolErrors } from "../../protocol/tool-errors.ts";
import { decidedReview, newReview } from "../sql-records.ts";
import type { NewReview, ReviewDecision, ReviewFilter, RoomScope } from "../types.ts";
import type { Events } from "./events.ts";
import type { StoreParts } from "./rooms.ts";

export function createReviews({ pg, now, rooms }: StoreParts, events: Events) {
  const taskExists = pg.query<{ id: string }, [string, string]>(
    "SELECT id FROM tasks WHERE room_id = ? AND id = ?",
  );
  const entry = pg.query<{ json: string }, [string, string]>(
    "SELECT json FROM contexts WHERE room_id = ? AND id = ?",
  );
  const nextN = pg.query<{ n: number }, [string]>(
    "SELECT coalesce(max(n), 0) + 1 AS n FROM reviews WHERE room_id = ?",
  );
  const insert = pg.query<unknown, [string, string, number, string]>(
    "INSERT INTO reviews (room_id, id, n, json) VALUES (?, ?, ?, ?)",
  );
  const get = pg.query<{ json: string }, [string, string]>(
    "SELECT json FROM reviews WHERE room_id = ? AND id = ?",
  );
  const update = pg.query<unknown, [string, string, string]>(
    "UPDATE reviews SET json = ?1 WHERE room_id = ?2 AND id = ?3",
  );
  const all = pg.query<{ json: string }, [string]>("SELECT json FROM reviews WHERE room_id = ? ORDER BY n");

  return {
    async requestReview(scope: RoomScope, input: NewReview): Promise<Review> {
      const room = await rooms.check(scope);
      if (input.taskId !== undefined && !(room && (await taskExists.get(room.room_id, input.taskId)))) {
        throw errors.taskNotFound(input.taskId);
      }
      let version: string | null = null;
      if (input.contextId !== undefined) {
        const row = room ? await entry.get(room.room_id, input.contextId) : null;
        if (!row) throw errors.contextNotFound(input.contextId);
        version = (JSON.parse(row.json) as ContextEntry).version;
      }
      await rooms.claim(scope);
      const n = (await nextN.get(scope.roomId))?.n ?? 1;
      const review = newReview(n, input, version, now());
      await insert.run(scope.roomId, review.id, n, JSON.stringify(review));
      await events.append(scope.roomId, {
        type: "review_requested",
        from: review.requester,
        to: review.reviewer,
        payload: { review },
      });
      return review;
    },
    async decideReview(scope: RoomScope, input: ReviewDecision): Promise<Review> {
      const room = await rooms.check(scope);
      const row = room ? await get.get(room.room_id, input.reviewId) : null;
      if (!room || !row) throw toolErrors.reviewNotFound(input.reviewId);
      const review = JSON.parse(row.json) as Review;
      const decided = decidedReview(review, input, now());
      await rooms.claim(scope);
      await update.run(JSON.stringify(decided), room.room_id, review.id);
      await events.append(room.room_id, {
        type: "review_decided",
        from: decided.reviewer,
        to: decided.requester,
        payload: { review: decided },
      });
      return decided;
    },
    async listReviews(scope: RoomScope, filter: ReviewFilter): Promise<Review[]> {
      const room = await rooms.read(scope);
      if (!room) return [];
      return (await all.all(room.room_id))
        .map((r) => JSON.parse(r.json) as Review)
        .filter((r) => reviewMatches(r, filter));
    },
  };
}
