/** The shared leases (store/sql/leases.ts) as this driver's modules call them. */
import type { Synced } from "../sql/adapt.ts";
import type { Leases as Shared } from "../sql/leases.ts";

export type Leases = Synced<Shared>;
