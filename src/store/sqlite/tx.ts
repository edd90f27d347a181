/**
 * One operation = one transaction. Writes take the write lock up front (BEGIN IMMEDIATE): a deferred
 * transaction that reads and then writes can fail with SQLITE_BUSY without waiting when another process
 * committed in between, whereas IMMEDIATE waits for the lock (busy_timeout) and never deadlocks on upgrade.
 */
import type { Database } from "bun:sqlite";
import { errors, RoomError, StoreFault } from "../../protocol/errors.ts";
import { groupCommit } from "./group-commit.ts";

/**
 * SQLite result codes (primary part of the extended code name) that mean "the store cannot answer now". A corrupt
 * file or a failing statement is not among them: the store answered, wrongly — a bug (docs/protocol.md#4-results-and-errors).
 */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|PROTOCOL|READONLY|NOMEM|PERM)/;

/** True for errors that are outages rather than bugs: SQLite I/O and lock failures, a closed database. */
function isOutage(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && UNAVAILABLE.test(code)) return true;
  // bun:sqlite reports use after close() with plain errors that carry no code.
  return /closed database|Database has closed/.test(error.message);
}

/**
 * Rethrows RoomErrors as they are, outages as RoomError("store_unavailable") keeping the cause, and anything else
 * (an SQL error, a record that does not decode) as a StoreFault naming the operation.
 */
export function mapError(error: unknown, operation = "operation"): never {
  if (error instanceof RoomError) throw error;
  if (isOutage(error)) throw errors.storeUnavailable(error);
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  throw new StoreFault("sqlite", operation, message.slice(0, 300), { cause: error });
}

type Fn<A extends unknown[], T> = (...args: A) => T;

/** What runs around transactions: the throttled touch after reads, the change feed after writes. */
export interface TxHooks {
  afterRead(): void;
  /** After a write transaction: committed (true) or rolled back (false). */
  afterWrite(committed: boolean): void;
  /** Where the change feed's queued reports stand, and forgetting those queued since (group-commit.ts). */
  mark(): number;
  discard(mark: number): void;
}

/** Builds the two wrappers once per database; each wrapped operation prepares its transaction once. */
export function transactions(db: Database, hooks: TxHooks) {
  const { afterRead } = hooks;
  const group = groupCommit(db, { ...hooks, fail: mapError });
  return {
    /**
     * Runs fn as one atomic write: in BEGIN IMMEDIATE with the other writes asked for in the same turn, in its own
     * savepoint (group-commit.ts); a thrown error rolls fn's writes back.
     */
    write<A extends unknown[], T>(fn: Fn<A, T>, name = fn.name): (...args: A) => Promise<T> {
      return group.write(fn, name);
    },
    /**
     * Runs fn in a deferred transaction (one consistent snapshot), then afterRead (the throttled touch) — also
     * when fn throws (e.g. not found), so a touch it queued never leaks into the next, unrelated read.
     */
    read<A extends unknown[], T>(fn: Fn<A, T>, name = fn.name): (...args: A) => Promise<T> {
      const tx = db.transaction(fn);
      return async (...args: A) => {
        try {
          return tx.deferred(...args);
        } catch (error) {
          mapError(error, name);
        } finally {
          afterRead();
        }
      };
    },
  };
}
