/**
 * The SQLite side of the shared bodies (store/sql/run.ts): statements whose steps are done as soon as they start,
 * since bun:sqlite answers synchronously — the whole body runs inside the batch's BEGIN IMMEDIATE (group-commit.ts)
 * without suspending.
 */
import type { Database, SQLQueryBindings } from "bun:sqlite";
import { done as answered, type SqlClient, type Statement, textFor } from "../sql/run.ts";

export function sqliteClient(db: Database): SqlClient {
  return {
    dialect: "sqlite",
    query<Row, P extends unknown[]>(text: Parameters<SqlClient["query"]>[0]): Statement<Row, P> {
      const stmt = db.query<Row, SQLQueryBindings[]>(textFor(text, "sqlite"));
      return {
        get: (...params) => answered(stmt.get(...(params as SQLQueryBindings[]))),
        all: (...params) => answered(stmt.all(...(params as SQLQueryBindings[]))),
        run: (...params) => answered({ changes: stmt.run(...(params as SQLQueryBindings[])).changes }),
      };
    },
  };
}
