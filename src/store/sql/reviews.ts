/** Peer reviews between agents: requested of one named reviewer, decided once, only by that reviewer. */
import { errors } from "../../protocol/errors.ts";
import type { ContextEntry, Review } from "../../protocol/records.ts";
import { decidedReview, newReview, reviewMatches } from "../../protocol/reviews.ts";
import { toolErrors } from "../../protocol/tool-errors.ts";
import type { NewReview, ReviewDecision, ReviewFilter, RoomScope } from "../types.ts";
import type { Events } from "./events.ts";
import type { SqlParts } from "./rooms.ts";
import type { Op } from "./run.ts";

export function createReviews({ sql, now, rooms }: SqlParts, events: Events) {
  const taskExists = sql.query<{ id: string }, [string, string]>(
    "SELECT id FROM tasks WHERE room_id = ? AND id = ?",
  );
  const entry = sql.query<{ json: string }, [string, string]>(
    "SELECT json FROM contexts WHERE room_id = ? AND id = ?",
  );
  const nextN = sql.query<{ n: number }, [string]>(
    "SELECT coalesce(max(n), 0) + 1 AS n FROM reviews WHERE room_id = ?",
  );
  const insert = sql.query<unknown, [string, string, number, string]>(
    "INSERT INTO reviews (room_id, id, n, json) VALUES (?, ?, ?, ?)",
  );
  const get = sql.query<{ json: string }, [string, string]>(
    "SELECT json FROM reviews WHERE room_id = ? AND id = ?",
  );
  const update = sql.query<unknown, [string, string, string]>(
    "UPDATE reviews SET json = ?1 WHERE room_id = ?2 AND id = ?3",
  );
  const all = sql.query<{ json: string }, [string]>("SELECT json FROM reviews WHERE room_id = ? ORDER BY n");

  return {
    *requestReview(scope: RoomScope, input: NewReview): Op<Review> {
      const room = yield* rooms.check(scope);
      if (input.taskId !== undefined && !(room && (yield* taskExists.get(room.room_id, input.taskId)))) {
        throw errors.taskNotFound(input.taskId);
      }
      let version: string | null = null;
      if (input.contextId !== undefined) {
        const row = room ? yield* entry.get(room.room_id, input.contextId) : null;
        if (!row) throw errors.contextNotFound(input.contextId);
        version = (JSON.parse(row.json) as ContextEntry).version;
      }
      yield* rooms.claim(scope);
      const n = (yield* nextN.get(scope.roomId))?.n ?? 1;
      const review = newReview(n, input, version, now());
      yield* insert.run(scope.roomId, review.id, n, JSON.stringify(review));
      yield* events.append(scope.roomId, {
        type: "review_requested",
        from: review.requester,
        to: review.reviewer,
        payload: { review },
      });
      return review;
    },
    *decideReview(scope: RoomScope, input: ReviewDecision): Op<Review> {
      const room = yield* rooms.check(scope);
      const row = room ? yield* get.get(room.room_id, input.reviewId) : null;
      if (!room || !row) throw toolErrors.reviewNotFound(input.reviewId);
      const review = JSON.parse(row.json) as Review;
      const decided = decidedReview(review, input, now());
      yield* rooms.claim(scope);
      yield* update.run(JSON.stringify(decided), room.room_id, review.id);
      yield* events.append(room.room_id, {
        type: "review_decided",
        from: decided.reviewer,
        to: decided.requester,
        payload: { review: decided },
      });
      return decided;
    },
    *listReviews(scope: RoomScope, filter: ReviewFilter): Op<Review[]> {
      const room = yield* rooms.read(scope);
      if (!room) return [];
      return (yield* all.all(room.room_id))
        .map((r) => JSON.parse(r.json) as Review)
        .filter((r) => reviewMatches(r, filter));
    },
  };
}
