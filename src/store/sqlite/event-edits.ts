/** The shared event-edits (store/sql/event-edits.ts) as this driver's modules call them. */
import type { Synced } from "../sql/adapt.ts";
import type { EventEdits as Shared } from "../sql/event-edits.ts";

export type EventEdits = Synced<Shared>;
