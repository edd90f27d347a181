/**
 * Group commit: the write operations asked for during one turn of the event loop run in ONE `BEGIN IMMEDIATE`
 * transaction, in the order they were asked, each in its own savepoint. A write transaction costs far more than
 * most operations it holds: taking and releasing the file's write lock and appending the pages to the WAL made a
 * rate charge ~20 µs of CPU (the largest part of a small tool call) and a room write ~25 µs more than its
 * statements. Under load, the charges and writes of the requests in flight share one commit.
 *
 * What stays true: each operation is atomic (its savepoint is rolled back alone when it throws, with the change-feed
 * reports it queued), sees every operation before it, and is isolated from other processes exactly as before (the
 * whole batch holds the write lock, so a window or a claim decided inside it is exact); a failed commit fails every
 * operation of the batch, as each would have failed alone. What changes: an operation waits for the rest of the
 * current turn before it runs (an idle server runs it at once, alone), and a read asked for in the same turn as a
 * write may run before it — as it could when two requests raced.
 */
import type { Database } from "bun:sqlite";

interface Job {
  run(): unknown;
  name: string;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

export interface CommitHooks {
  /** After the batch: committed (true) or rolled back (false). */
  afterWrite(committed: boolean): void;
  /** Where the change-feed reports of the batch stand now. */
  mark(): number;
  /** Forgets the reports queued since `mark` (an operation rolled back to its savepoint). */
  discard(mark: number): void;
  /** Turns a failure into what the operation named `name` throws (tx.ts mapError). */
  fail(error: unknown, name: string): never;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export function groupCommit(db: Database, hooks: CommitHooks) {
  const begin = db.prepare("BEGIN IMMEDIATE");
  const commit = db.prepare("COMMIT");
  const rollback = db.prepare("ROLLBACK");
  const savepoint = db.prepare("SAVEPOINT op");
  const release = db.prepare("RELEASE op");
  const undo = db.prepare("ROLLBACK TO op");
  let queue: Job[] = [];

  /** Runs one job; alone in its transaction it needs no savepoint (the transaction's rollback covers it). */
  function attempt(job: Job, alone: boolean): Outcome {
    if (alone) return { ok: true, value: job.run() };
    const mark = hooks.mark();
    savepoint.run();
    try {
      const value = job.run();
      release.run();
      return { ok: true, value };
    } catch (error) {
      undo.run();
      release.run();
      hooks.discard(mark);
      return { ok: false, error };
    }
  }

  const settle = (job: Job, outcome: Outcome): void => {
    if (outcome.ok) {
      job.resolve(outcome.value);
      return;
    }
    try {
      hooks.fail(outcome.error, job.name);
    } catch (mapped) {
      job.reject(mapped);
    }
  };

  function flush(): void {
    const jobs = queue;
    queue = [];
    const outcomes: Outcome[] = [];
    try {
      begin.run();
      try {
        for (const job of jobs) outcomes.push(attempt(job, jobs.length === 1));
        commit.run();
      } catch (error) {
        if (db.inTransaction) rollback.run();
        throw error;
      }
    } catch (error) {
      hooks.afterWrite(false);
      for (const job of jobs) settle(job, { ok: false, error });
      return;
    }
    hooks.afterWrite(true);
    jobs.forEach((job, i) => {
      settle(job, outcomes[i] as Outcome);
    });
  }

  return {
    /** `fn` as a write operation, committed with the others asked for in the same turn. */
    write<A extends unknown[], T>(fn: (...args: A) => T, name = fn.name): (...args: A) => Promise<T> {
      return (...args: A) =>
        new Promise<T>((resolve, reject) => {
          queue.push({ run: () => fn(...args), name, resolve: resolve as (value: unknown) => void, reject });
          if (queue.length === 1) setImmediate(flush);
        });
    },
  };
}
