/** The shared plan (store/sql/plan.ts) as this driver's modules call them. */
import type { Awaited } from "../sql/adapt.ts";
import type { PlanOps as Shared } from "../sql/plan.ts";

export type PlanOps = Awaited<Shared>;
