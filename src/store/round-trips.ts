/**
 * Where the store's round trips can be watched from outside the drivers (tracing): one Redis call (EVALSHA, EVAL,
 * PING) through the narrow client (redis/observed-client.ts), one PostgreSQL statement through the shared SQL
 * runner's hook (sql/run.ts sendStatement). Set once at start-up, before any store is opened;
 * while unset (tracing off) a driver pays one property read per round trip and nothing else. SQLite has no round
 * trip (its operations are function calls on the file); its operations are watched as a whole, above the store.
 */

/** One round trip, named the way database client spans are (`{operation} {target}`). */
export interface RoundTrip {
  /** `redis` or `postgresql` (OpenTelemetry's db.system.name). */
  system: "redis" | "postgresql";
  /** The command or the statement's first keyword: EVALSHA, EVAL, PING, SELECT, INSERT, BEGIN, … */
  operation: string;
  /** The script a Redis call runs (scripts.ts names), when known. */
  target?: string;
  /** A PostgreSQL statement's text: placeholders only, never values. */
  text?: string;
}

/** Runs `send` (the round trip itself), observing it; must return what `send` returns, or throw what it throws. */
export type RoundTripObserver = <T>(trip: RoundTrip, send: () => Promise<T>) => Promise<T>;

/** The process's observer; undefined while nothing watches (the default). */
export const roundTrips: { observe?: RoundTripObserver } = {};
