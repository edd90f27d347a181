/**
 * The event log's rules every store applies, as pure functions: event ids, which events may be deleted and by
 * whom, which deliveries are timed, and where an agent's cursor stands once retention trimmed the oldest events
 * (what `remaining` and trimmedBefore say). The SQL stores call these inside their transaction (store/sql/); the
 * Redis scripts carry the same rules in Lua (store/redis/lua-log.ts, lua-events.ts), and store/redis/lua-rooms.test.ts
 * holds the deletion rule's Lua to checkEventDeletion on generated cases.
 */
import { isPersonName } from "./principal.ts";
import { toolErrors } from "./tool-errors.ts";

export const eventId = (seq: number): string => `evt-${seq}`;

/** The seq named by an event id, or null for anything that is not "evt-<positive integer>". */
export function eventSeq(id: string): number | null {
  const match = /^evt-([1-9][0-9]{0,15})$/.exec(id);
  return match?.[1] ? Number(match[1]) : null;
}

/**
 * Refuses deleting an event roomd appended (only those posted with post_event or reply_to_event go), a person's
 * event by anyone but that person, and — for a caller bound to one agent (`onlyAuthor`) — another author's event.
 */
export function checkEventDeletion(
  event: { id: string; type: string; from: string; posted: boolean },
  input: { by: string; onlyAuthor?: string },
): void {
  if (!event.posted) throw toolErrors.roomdEvent(event.id, event.type);
  if (isPersonName(event.from) && input.by !== event.from)
    throw toolErrors.personsEvent(event.id, event.from);
  if (input.onlyAuthor !== undefined && event.from !== input.onlyAuthor) {
    throw toolErrors.notAuthor(event.id, event.from);
  }
}

/**
 * Event types whose delivery to an agent the analytics time: the first delivery to each agent is kept, and moved
 * with the event.
 */
export const TIMED_DELIVERIES: ReadonlySet<string> = new Set(["context_available", "context_updated"]);

/** The oldest seq a trimmed log still has (what results call trimmedBefore), or undefined when nothing went. */
export const trimmedBefore = (trimmedSeq: number): number | undefined =>
  trimmedSeq > 0 ? trimmedSeq + 1 : undefined;

/**
 * Where an agent stands in the log: its cursor (`seq`, null before its first delivery) and how many addressed
 * events it has consumed, counting those retention trimmed ahead of it as consumed (they can never be delivered);
 * `total` events were ever addressed to it or to all, `trimmed` of them went. A cursor behind the trimmed range
 * (everything up to `trimmedSeq` is gone) carries on after it, and says trimmedBefore.
 */
export function cursorStanding(
  trimmedSeq: number,
  cursor: { seq: number | null; delivered: number } | null | undefined,
  counts: { n: number; trimmed: number } | null | undefined,
) {
  const seq = cursor?.seq ?? null;
  const { n, trimmed } = counts ?? { n: 0, trimmed: 0 };
  const behind = (seq ?? 0) < trimmedSeq;
  return {
    seq,
    after: behind ? trimmedSeq : (seq ?? 0),
    consumed: behind ? trimmed : (cursor?.delivered ?? 0),
    total: n,
    trimmedBefore: behind ? trimmedBefore(trimmedSeq) : undefined,
  };
}
