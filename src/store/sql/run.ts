/**
 * One body per store operation for both SQL drivers. An operation is written once as a generator function that
 * `yield*`s its statements (`const row = yield* stmt.get(roomId)`), and a runner drives it: the SQLite runner
 * synchronously, inside bun:sqlite's BEGIN IMMEDIATE (a statement answers at once, so the body never suspends),
 * the PostgreSQL runner asynchronously, under the room's advisory lock (a statement yields Bun SQL's promise, and
 * the runner resumes the body with what it resolves to). Sub-steps (a room's check and claim, the renewal of an
 * agent's leases) are generators too, composed with `yield*`.
 *
 * Measured cost of the indirection on SQLite: under 50 ns per statement (two generator objects), against ~1–10 µs
 * for the statement itself; see docs/benchmarks.md ("One body for both SQL drivers").
 *
 * A statement sent to a database server (PostgreSQL's; SQLite's are calls on the file, with no round trip) goes
 * through sendStatement, the one hook where the store's SQL round trips are watched (tracing: store/round-trips.ts):
 * the shared bodies' statements and the driver's own (its rate charges, sessions, pings and migrations) alike.
 */
import { type RoundTrip, roundTrips } from "../round-trips.ts";

/**
 * A step of an operation body that ends with a T. What it yields is a driver's pending answer (a promise on
 * PostgreSQL); on SQLite it yields nothing and is done as soon as it starts.
 */
export type Op<T> = Generator<unknown, T, unknown>;

/** A prepared statement as the bodies use it: each call is a step to `yield*`. */
export interface Statement<Row, P extends unknown[]> {
  get(...params: P): Op<Row | null>;
  all(...params: P): Op<Row[]>;
  /** `changes`: the rows it inserted, updated or deleted. */
  run(...params: P): Op<{ changes: number }>;
}

/** The two SQL dialects. */
export type DialectName = "sqlite" | "postgres";

/**
 * Statement text: one string when the dialects read alike (PostgreSQL's driver rewrites `?`, `?N` and `$name`
 * placeholders, postgres/db.ts compile), or one text per dialect where the SQL really differs.
 */
export type SqlText = string | Readonly<Record<DialectName, string>>;

/** Prepares statements for the bodies; each driver has one (sqlite/client.ts, postgres/client.ts). */
export interface SqlClient {
  readonly dialect: DialectName;
  /** A statement, prepared once (call at construction, never per operation). */
  query<Row = Record<string, unknown>, P extends unknown[] = unknown[]>(text: SqlText): Statement<Row, P>;
}

/** The text of `text` for `dialect`. */
export const textFor = (text: SqlText, dialect: DialectName): string =>
  typeof text === "string" ? text : text[dialect];

/**
 * Runs a body that never suspends (every statement of the SQLite driver answers at once) and returns its result;
 * a body that yields anyway is a bug of its driver, reported as such.
 */
export function runSync<T>(op: Op<T>): T {
  const step = op.next();
  if (!step.done) throw new Error("sql: a synchronous body suspended (a statement yielded a pending answer)");
  return step.value;
}

/**
 * Runs a body whose statements yield promises (PostgreSQL): each is awaited and the body resumed with its value,
 * or with its error thrown at the statement (so a body's try/finally sees it).
 */
export async function runAsync<T>(op: Op<T>): Promise<T> {
  let step = op.next();
  while (!step.done) {
    let value: unknown;
    try {
      value = await step.value;
    } catch (error) {
      step = op.throw(error);
      continue;
    }
    step = op.next(value);
  }
  return step.value;
}

/**
 * Sends one statement to the database server with `send`, handed to the round-trip observer when one is set (the
 * process traces); otherwise sent as it is, at the cost of one property read.
 */
export function sendStatement<T>(trip: RoundTrip, send: () => Promise<T>): Promise<T> {
  const observe = roundTrips.observe;
  return observe ? observe(trip, send) : send();
}

/** A step that is done at once with `value`: a SQLite statement's answer, or a branch with nothing to run. */
// biome-ignore lint/correctness/useYield: a step with nothing to wait for ends at once, on either runner.
export function* done<T>(value: T): Op<T> {
  return value;
}
