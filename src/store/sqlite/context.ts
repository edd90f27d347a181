/** The shared context (store/sql/context.ts) as this driver's modules call them. */
import type { Synced } from "../sql/adapt.ts";
import type { ContextOps as Shared } from "../sql/context.ts";

export type ContextOps = Synced<Shared>;
