/**
 * One event of a room's log as one sentence a person reads (docs/web.md#the-timeline): "alice steered frontend: use
 * the v2 endpoint", "backend added task-7 “Build the cart page” (depends on task-3)". The room page, `roomctl watch`
 * and anything else that shows the log use this one formatter, so they say the same thing in the same words.
 *
 * Pure: no DOM, no terminal, no clock. A sentence is a list of parts — plain text, a name, an id to show as code,
 * a quotation — and each surface renders them its own way (the page as text nodes in elements, so every value is
 * escaped by construction; roomctl as one cleaned line via `lineText`). Payloads are read defensively: a field that
 * is missing or of another shape (a public viewer's payload-free event, a tombstone, an old log) gives the short
 * form of the sentence, never an error.
 */
import type { EventKind, EventLike, EventLine, Part } from "./timeline-parts.ts";
import { sentenceFor } from "./timeline-sentences.ts";

export { EVENT_KINDS, type EventKind, type EventLike, type EventLine, type Part } from "./timeline-parts.ts";

const KIND_OF: Record<string, EventKind> = {
  task_added: "work",
  task_updated: "work",
  task_claimed: "work",
  task_deleted: "work",
  context_available: "work",
  context_updated: "work",
  context_deleted: "work",
  files_claimed: "work",
  files_released: "work",
  handoff_offered: "work",
  handoff_accepted: "work",
  handoff_declined: "work",
  handoff_cancelled: "work",
  review_requested: "work",
  review_decided: "work",
  verdict_recorded: "work",
  template_applied: "work",
  shared_var_set: "work",
  human_message: "talk",
  broadcast: "talk",
  steer: "people",
  interrupt: "people",
  driver_changed: "people",
  approval_requested: "people",
  approval_decided: "people",
  agent_suspended: "people",
  agent_resumed: "people",
  agent_step: "system",
  agent_left: "system",
  event_deleted: "system",
  files_claim_expired: "system",
  task_lease_expired: "system",
  room_forked: "system",
  webhook_disabled: "system",
};

/** The kind of an event type: roomd's own types as listed above; every type an agent posts is talk. */
export const eventKind = (type: string): EventKind => KIND_OF[type] ?? "talk";

/** A name as a person reads it: a person's `human:alice` is alice; agents and `system` as they are. */
export const nameOf = (id: string): string => (id.startsWith("human:") ? id.slice(6) || id : id);

/** The sentence of one event. */
export function describeEvent(event: EventLike): EventLine {
  const kind = eventKind(event.type);
  if (event.deleted) {
    return {
      kind,
      parts: [
        { who: event.from },
        " posted ",
        { code: event.type },
        " (deleted by ",
        { who: event.deleted.by },
        ")",
      ],
    };
  }
  return { kind, parts: sentenceFor(event) };
}

/** A sentence as one line of plain text: names as read, ids in backticks, quotations in curly quotes. */
export function lineText(parts: readonly Part[]): string {
  return parts
    .map((p) =>
      typeof p === "string" ? p : "who" in p ? nameOf(p.who) : "code" in p ? `\`${p.code}\`` : `“${p.quote}”`,
    )
    .join("");
}
