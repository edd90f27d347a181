/**
 * Counters of a PostgreSQL server read around a benchmark phase: statements executed (pg_stat_statements, BEGIN
 * and COMMIT included), transactions (pg_stat_database) and the CPU time of the server's processes, so the
 * PostgreSQL driver's cost per tool call is counted where it is spent.
 */
import { readFileSync } from "node:fs";
import { SQL } from "bun";
import { cpuMs } from "./probes.ts";

export interface PgSnapshot {
  /** Statements the database has executed so far (the probe's own excluded). */
  statements: number;
  /** Transactions committed or rolled back so far. */
  transactions: number;
  /** CPU ms of the server's processes (postmaster and every backend alive now). */
  cpuMs: number;
}

export interface PgProbe {
  snapshot(): Promise<PgSnapshot>;
  close(): Promise<void>;
}

export interface PgCost {
  statementsPerCall: number;
  transactionsPerCall: number;
  processCpuMs: number;
}

/** The parent of a process (Linux /proc): a backend's is the postmaster. */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

/**
 * A probe on `url`'s database of a server started with shared_preload_libraries=pg_stat_statements (on this
 * machine); creates the extension there.
 */
export async function pgProbe(url: string): Promise<PgProbe> {
  const sql = new SQL({ url, max: 1 });
  await sql.unsafe("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
  const [own] = (await sql.unsafe("SELECT pg_backend_pid() AS pid")) as { pid: number }[];
  const postmaster = parentOf(Number(own?.pid));
  const cpuOf = (pid: number) => {
    try {
      return cpuMs(pid);
    } catch {
      return 0; // exited between the listing and the read
    }
  };
  return {
    async snapshot() {
      const [row] = (await sql.unsafe(
        `SELECT (SELECT coalesce(sum(calls), 0) FROM pg_stat_statements s
                 WHERE s.dbid = d.datid AND s.query NOT LIKE '%pg_stat_%') AS statements,
                d.xact_commit + d.xact_rollback AS transactions
         FROM pg_stat_database d WHERE d.datname = current_database()`,
      )) as { statements: string; transactions: string }[];
      const pids = (await sql.unsafe("SELECT pid FROM pg_stat_activity")) as { pid: number }[];
      return {
        statements: Number(row?.statements ?? 0),
        transactions: Number(row?.transactions ?? 0),
        cpuMs: [postmaster, ...pids.map((p) => p.pid)].reduce((sum, pid) => sum + cpuOf(pid), 0),
      };
    },
    close: () => sql.close(),
  };
}

export function pgCost(before: PgSnapshot, after: PgSnapshot, calls: number): PgCost {
  return {
    statementsPerCall: (after.statements - before.statements) / calls,
    // The probe's own snapshot is one transaction.
    transactionsPerCall: (after.transactions - before.transactions - 1) / calls,
    processCpuMs: after.cpuMs - before.cpuMs,
  };
}
