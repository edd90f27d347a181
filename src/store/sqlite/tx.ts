/**
 * One operation = one transaction. Writes take the write lock up front (BEGIN IMMEDIATE): a deferred
 * transaction that reads and then writes can fail with SQLITE_BUSY without waiting when another process
 * committed in between, whereas IMMEDIATE waits for the lock (busy_timeout) and never deadlocks on upgrade.
 */
import type { Database } from "bun:sqlite";
import { errors, RoomError, StoreFault } from "../../protocol/errors.ts";

/**
 * SQLite result codes (primary part of the extended code name) that mean "the store cannot answer now". A corrupt
 * file or a failing statement is not among them: the store answered, wrongly — a bug (revisions §1.4).
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
}

/** Builds the two wrappers once per database; each wrapped operation prepares its transaction once. */
export function transactions(db: Database, hooks: TxHooks) {
  const { afterRead, afterWrite } = hooks;
  return {
    /** Runs fn in BEGIN IMMEDIATE; a thrown error rolls everything back. */
    write<A extends unknown[], T>(fn: Fn<A, T>, name = fn.name): (...args: A) => Promise<T> {
      const tx = db.transaction(fn);
      return async (...args: A) => {
        let result: T;
        try {
          result = tx.immediate(...args);
        } catch (error) {
          afterWrite(false);
          mapError(error, name);
        }
        afterWrite(true);
        return result;
      };
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
