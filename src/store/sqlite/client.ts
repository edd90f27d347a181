/**
 * The SQLite side of the shared bodies (store/sql/run.ts): statements whose steps are done as soon as they start,
 * since bun:sqlite answers synchronously — the whole body runs inside the batch's BEGIN IMMEDIATE (group-commit.ts)
 * without suspending.
 *
 * A step here is not a generator but one iterator per statement method, reused: `yield*` reads its answer at once
 * (a body always delegates to a statement's step as soon as it asks for it), so no object is made per statement —
 * a generator per statement cost ~100 ns more (bench/sql-steps.ts).
 */
import type { Database, SQLQueryBindings } from "bun:sqlite";
import { type Op, type SqlClient, type Statement, textFor } from "../sql/run.ts";

/** A step that is done at once with the answer last given to it; one per statement method, reused. */
function answers<T>(): (value: T) => Op<T> {
  const result = { done: true as const, value: undefined as T };
  const step = {
    [Symbol.iterator]: () => step,
    next: () => result,
  };
  return (value) => {
    result.value = value;
    return step as unknown as Op<T>;
  };
}

export function sqliteClient(db: Database): SqlClient {
  return {
    dialect: "sqlite",
    query<Row, P extends unknown[]>(text: Parameters<SqlClient["query"]>[0]): Statement<Row, P> {
      const stmt = db.query<Row, SQLQueryBindings[]>(textFor(text, "sqlite"));
      const [row, rows, ran] = [answers<Row | null>(), answers<Row[]>(), answers<{ changes: number }>()];
      return {
        get: (...params) => row(stmt.get(...(params as SQLQueryBindings[]))),
        all: (...params) => rows(stmt.all(...(params as SQLQueryBindings[]))),
        run: (...params) => ran({ changes: stmt.run(...(params as SQLQueryBindings[])).changes }),
      };
    },
  };
}
