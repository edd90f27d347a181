/** The shared event log (store/sql/events.ts) as this driver's modules call it. */
import type { Synced } from "../sql/adapt.ts";
import type { Events as SharedEvents } from "../sql/events.ts";

export type Events = Synced<SharedEvents>;
