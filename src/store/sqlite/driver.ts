/** The shared driver (store/sql/driver.ts) as this driver's modules call it. */
import type { Synced } from "../sql/adapt.ts";
import type { DriverOps as Shared } from "../sql/driver.ts";

export type DriverOps = Synced<Shared>;
