/**
 * The PostgreSQL side of the shared bodies (store/sql/run.ts): each statement's step yields Bun SQL's promise, and
 * the runner (runAsync) resumes the body with its rows, inside the transaction db.ts holds (with the room's lock).
 */
import { type SqlClient, type Statement, textFor } from "../sql/run.ts";
import type { Pg } from "./db.ts";

export function pgClient(pg: Pg): SqlClient {
  return {
    dialect: "postgres",
    query<Row, P extends unknown[]>(text: Parameters<SqlClient["query"]>[0]): Statement<Row, P> {
      const stmt = pg.query<Row, P>(textFor(text, "postgres"));
      return {
        *get(...params) {
          return (yield stmt.get(...params)) as Row | null;
        },
        *all(...params) {
          return (yield stmt.all(...params)) as Row[];
        },
        *run(...params) {
          return (yield stmt.run(...params)) as { changes: number };
        },
      };
    },
  };
}
