/**
 * Refusals of the deletion, history, template and review tools, each written for a model (what went wrong, what
 * to do). Every driver throws exactly these (the Redis scripts name them, redis/run.ts maps them).
 */
import { RoomError } from "./errors.ts";

export const toolErrors = {
  hasDependents: (id: string, dependents: string[]) =>
    new RoomError(
      "conflict",
      `Task ${id} is a dependency of ${dependents.join(", ")}; pass force: true to delete it anyway (their dependency then counts as unmet)`,
    ),
  /** A person's event (a message through the people's routes) is theirs: no agent key deletes it. */
  personsEvent: (eventId: string, from: string) =>
    new RoomError("forbidden", `Event ${eventId} was sent by ${from}; only that person can delete it`),
  notAuthor: (eventId: string, from: string) =>
    new RoomError(
      "forbidden",
      `Event ${eventId} was posted by ${from}; only its author or an unbound team key may delete it`,
    ),
  roomdEvent: (eventId: string, type: string) =>
    new RoomError(
      "forbidden",
      `Event ${eventId} (${type}) was appended by roomd and records a change of the room; only events posted with post_event or reply_to_event can be deleted`,
    ),
  versionNotFound: (id: string, version: string, latest: string) =>
    new RoomError(
      "not_found",
      `Context entry ${id} has no version ${version}; its versions are 1.0 to ${latest}`,
    ),
  roomNotEmpty: (roomId: string) =>
    new RoomError(
      "conflict",
      `Room ${roomId} already has tasks, context or events; a template only fills a new or empty room, so choose a new roomId`,
    ),
  reviewNotFound: (id: string) =>
    new RoomError(
      "not_found",
      id.startsWith("apr-")
        ? `Review not found: ${id} (apr- ids are approvals, which only people decide; approve and reject decide reviews, rev-…)`
        : `Review not found: ${id}`,
    ),
  notReviewer: (id: string, reviewer: string) =>
    new RoomError(
      "forbidden",
      `Review ${id} names ${reviewer} as its reviewer; only ${reviewer} can approve or reject it`,
    ),
  reviewDecided: (id: string, status: string, by: string, at: string) =>
    new RoomError("conflict", `Review ${id} was already ${status} by ${by} at ${at}`),
  /** set_shared_var of a new variable in a room holding LIMITS.varsPerRoom of them. */
  varLimit: (max: number) =>
    new RoomError(
      "limit",
      `Variable limit reached: a room holds at most ${max} shared variables; set an existing one again, or keep larger facts in a context entry`,
    ),
  selfReview: () =>
    new RoomError("invalid", "Invalid arguments: reviewer: a review needs another agent than the requester"),
};
