/** The shared row shapes (store/sql/rows.ts), with this dialect's event columns. */
import { EVENT_COLUMNS as COLUMNS } from "../sql/rows.ts";

export * from "../sql/rows.ts";
export const EVENT_COLUMNS = COLUMNS.sqlite;
