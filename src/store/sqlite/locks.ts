/** The shared locks (store/sql/locks.ts) as this driver's modules call them. */
import type { Synced } from "../sql/adapt.ts";
import type { Locks as SharedLocks } from "../sql/locks.ts";

export type Locks = Synced<SharedLocks>;
