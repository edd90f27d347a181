/**
 * Group commit for the charges every request makes (the rate-limit charge, and the key or invite lookup that
 * charges in the same step). A write transaction costs far more than the charge it holds: taking and releasing the
 * write lock and appending the pages to the WAL made a charge ~20 µs of CPU, the largest part of a small tool call.
 * So the charges asked for during one turn of the event loop run in ONE `BEGIN IMMEDIATE` transaction, in the
 * order they were asked, each in its own savepoint: every charge still sees the ones before it (the window stays
 * exact, across processes too, since the whole batch holds the file's write lock), one that fails is rolled back
 * alone, and a failed commit fails them all, as each would have failed alone. An idle server batches one charge,
 * as before; a busy one batches whatever arrived meanwhile. What a charge waits for is the rest of the current turn.
 *
 * Only for operations that signal nothing to the change feed: a savepoint rolled back does not retract signals.
 */
import type { Database } from "bun:sqlite";
import { mapError } from "./tx.ts";

interface Job {
  run(): unknown;
  name: string;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

export interface GroupCommit {
  /** `fn` as an operation whose calls are committed with the others of the same turn. */
  batched<A extends unknown[], T>(fn: (...args: A) => T, name?: string): (...args: A) => Promise<T>;
}

export function groupCommit(db: Database, afterWrite: (committed: boolean) => void): GroupCommit {
  const begin = db.prepare("BEGIN IMMEDIATE");
  const commit = db.prepare("COMMIT");
  const rollback = db.prepare("ROLLBACK");
  const savepoint = db.prepare("SAVEPOINT charge");
  const release = db.prepare("RELEASE charge");
  const undo = db.prepare("ROLLBACK TO charge");
  let queue: Job[] = [];

  /** Runs one job; alone in its transaction it needs no savepoint (the transaction's rollback covers it). */
  function attempt(job: Job, alone: boolean): { ok: true; value: unknown } | { ok: false; error: unknown } {
    if (alone) return { ok: true, value: job.run() };
    savepoint.run();
    try {
      const value = job.run();
      release.run();
      return { ok: true, value };
    } catch (error) {
      undo.run();
      release.run();
      return { ok: false, error };
    }
  }

  function flush(): void {
    const jobs = queue;
    queue = [];
    const outcomes: ReturnType<typeof attempt>[] = [];
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
      afterWrite(false);
      for (const job of jobs) {
        try {
          mapError(error, job.name);
        } catch (mapped) {
          job.reject(mapped);
        }
      }
      return;
    }
    afterWrite(true);
    jobs.forEach((job, i) => {
      const outcome = outcomes[i];
      if (!outcome) return;
      if (outcome.ok) {
        job.resolve(outcome.value);
        return;
      }
      try {
        mapError(outcome.error, job.name);
      } catch (mapped) {
        job.reject(mapped);
      }
    });
  }

  return {
    batched<A extends unknown[], T>(fn: (...args: A) => T, name = fn.name) {
      return (...args: A) =>
        new Promise<T>((resolve, reject) => {
          queue.push({ run: () => fn(...args), name, resolve: resolve as (value: unknown) => void, reject });
          if (queue.length === 1) setImmediate(flush);
        });
    },
  };
}
