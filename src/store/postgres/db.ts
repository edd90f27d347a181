/**
 * The PostgreSQL connection of the driver, over Bun's built-in SQL client (no dependency): prepared statements
 * with the shape of bun:sqlite's (get / all / run), transactions that hold per-room (and per-team) advisory locks,
 * and error mapping. Statements run on the transaction in progress (found through AsyncLocalStorage), so the
 * operation modules read like the SQLite driver's, with `await`.
 *
 * Concurrency: every write transaction first takes `pg_advisory_xact_lock` on the keys it names (its room, and
 * its team when it may claim a room or change team records), in sorted order, so writes to one room run one at a
 * time across every roomd process while different rooms proceed in parallel; reads run in REPEATABLE READ READ
 * ONLY transactions (one snapshot). A deadlock or serialization failure (which the lock order makes rare) is
 * retried.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { SQL } from "bun";
import { errors, RoomError, StoreFault } from "../../protocol/errors.ts";
import { sendStatement } from "../sql/run.ts";

export type Param = string | number | boolean | null | undefined;

export interface Statement<Row, P extends unknown[]> {
  get(...params: P): Promise<Row | null>;
  all(...params: P): Promise<Row[]>;
  /** Runs the statement; `changes` is the number of rows it inserted, updated or deleted (or returned). */
  run(...params: P): Promise<{ changes: number }>;
}

export interface PgOptions {
  url: string;
  /** Connections in the pool (default 10). */
  max?: number;
  /** STORE_TIMEOUT_MS: a statement (or a wait for a lock) longer than this fails as store_unavailable. */
  timeoutMs: number;
}

type Tx = Bun.SQL;

interface TxState {
  tx: Tx;
  /** Advisory locks already held by this transaction. */
  locks: Set<string>;
  afterCommit: Array<() => void>;
  /** Run, in order, as the transaction's last statements (a failure rolls it back). */
  beforeCommit: Array<() => Promise<void>>;
  values: Map<string, unknown>;
}

/** SQLSTATEs retried: serialization failure and deadlock. */
const RETRY = new Set(["40001", "40P01"]);
/**
 * SQLSTATEs that mean "the store cannot answer now": connection exceptions (08), operator intervention (57: admin
 * shutdown, cannot connect now, query canceled by the statement timeout), insufficient resources (53), and a lock
 * not obtained within lock_timeout (55P03: a room's writes queued longer than STORE_TIMEOUT_MS).
 */
const UNAVAILABLE = /^(08|57|53|55P03)/;

function sqlState(error: unknown): string | undefined {
  const code = (error as { errno?: unknown; code?: unknown })?.errno;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** True for failures that are outages: no connection, a closed pool, a server going away or a timeout. */
export function isOutage(error: unknown): boolean {
  const state = sqlState(error);
  if (state) return UNAVAILABLE.test(state);
  if (!(error instanceof Error)) return false;
  const code = String((error as { code?: unknown }).code ?? "");
  return (
    /ERR_POSTGRES_(CONNECTION|CONNECTION_CLOSED|CONNECTION_TIMEOUT|IDLE_TIMEOUT|LIFETIME_TIMEOUT|QUERY_CANCELLED)/.test(
      code,
    ) || /ECONNREFUSED|ECONNRESET|closed|timed out|timeout/i.test(error.message)
  );
}

/** RoomErrors as they are, outages as store_unavailable (keeping the cause), anything else a StoreFault. */
export function mapError(error: unknown, operation: string): never {
  if (error instanceof RoomError || error instanceof StoreFault) throw error;
  if (isOutage(error)) throw errors.storeUnavailable(error);
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  throw new StoreFault("postgres", operation, message.slice(0, 300), { cause: error });
}

/**
 * Turns the driver's placeholders into PostgreSQL's: `?NNN` → `$NNN`, a bare `?` → the next `$n`, and `$name`
 * (bun:sqlite's named form) → `$n` with the name remembered, so statements read like the SQLite driver's. String
 * literals, quoted identifiers and `::` casts are left alone.
 */
export function compile(text: string): { text: string; names: string[] | null } {
  let out = "";
  let next = 0;
  const names: string[] = [];
  for (let i = 0; i < text.length; ) {
    const c = text[i] as string;
    if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      const stop = end === -1 ? text.length : end + 1;
      out += text.slice(i, stop);
      i = stop;
      continue;
    }
    if (c === "?") {
      const digits = /^\d+/.exec(text.slice(i + 1))?.[0];
      if (digits) {
        out += `$${digits}`;
        i += 1 + digits.length;
      } else {
        out += `$${++next}`;
        i++;
      }
      continue;
    }
    if (c === "$") {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i + 1))?.[0];
      if (name) {
        let index = names.indexOf(name);
        if (index === -1) index = names.push(name) - 1;
        out += `$${index + 1}`;
        i += 1 + name.length;
        continue;
      }
    }
    out += c;
    i++;
  }
  return { text: out, names: names.length > 0 ? names : null };
}

/** int8 (20) and numeric (1700) arrive as strings: numbers for the driver (every value it stores fits 2^53). */
const NUMERIC_TYPES = new Set([20, 1700]);

function convert<Row>(result: unknown[]): Row[] {
  const columns = (result as { columns?: Array<{ name: string; type: number }> }).columns;
  const numeric = columns?.filter((c) => NUMERIC_TYPES.has(c.type)).map((c) => c.name) ?? [];
  if (numeric.length === 0) return result as Row[];
  return (result as Record<string, unknown>[]).map((row) => {
    for (const name of numeric) {
      const value = row[name];
      if (typeof value === "string") row[name] = Number(value);
    }
    return row as Row;
  });
}

/**
 * A transaction's result, boxed: Bun's `begin` treats an array its callback returns as a list of queries and
 * rebuilds it, so an array with properties of its own (an EventList's trimmedBefore) would lose them.
 */
const boxed = <T>(value: T): { value: T } => ({ value });

export interface Pg {
  /** A statement; its text is compiled once (placeholders, see compile()). */
  query<Row = Record<string, unknown>, P extends unknown[] = Param[]>(text: string): Statement<Row, P>;
  /**
   * Runs fn in one write transaction holding the advisory locks of `locks` (taken in sorted order). Nested calls
   * join the transaction in progress (taking any further locks they name). Retries on deadlock or serialization
   * failure; maps other failures (mapError).
   */
  write<T>(locks: readonly string[], fn: () => Promise<T>, operation?: string): Promise<T>;
  /** Runs fn in one REPEATABLE READ READ ONLY transaction (inside a write: in the write's transaction). */
  read<T>(fn: () => Promise<T>, operation?: string): Promise<T>;
  /** Inside a write: takes one more advisory lock (after those already held). */
  lock(key: string): Promise<void>;
  /** Inside a write: runs `fn` once the transaction has committed (not if it rolls back). */
  afterCommit(fn: () => void): void;
  /**
   * A value kept for the transaction in progress under `key` (made by `init` on first use, which may register a
   * beforeCommit step); null outside a write.
   */
  txValue<T>(key: string, init: (beforeCommit: (step: () => Promise<void>) => void) => T): T | null;
  /** True inside a transaction started by write(). */
  readonly inWrite: boolean;
  /** The pool itself (LISTEN, health checks). */
  readonly sql: SQL;
  close(): Promise<void>;
}

export function openPg(options: PgOptions): Pg {
  const sql = new SQL({
    url: options.url,
    max: options.max ?? 10,
    connectionTimeout: Math.max(1, Math.ceil(options.timeoutMs / 1000)),
    idleTimeout: 30,
    // Statements that run longer than the store timeout (including waits for a room's lock) are cancelled.
    connection: { statement_timeout: String(options.timeoutMs), lock_timeout: String(options.timeoutMs) },
  });
  const current = new AsyncLocalStorage<TxState>();

  const runner = () => current.getStore()?.tx ?? sql;

  function query<Row, P extends unknown[]>(text: string): Statement<Row, P> {
    const compiled = compile(text);
    const operation = /^\s*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase() ?? "SQL";
    const values = (params: unknown[]): unknown[] => {
      if (compiled.names) {
        const named = (params[0] ?? {}) as Record<string, unknown>;
        return compiled.names.map((n) => named[n] ?? null);
      }
      return params.map((p) => (p === undefined ? null : p));
    };
    const exec = async (params: unknown[]) => {
      // Without parameters the simple protocol runs it, so a migration may hold several statements.
      const bound = values(params);
      const send = () =>
        bound.length > 0 ? runner().unsafe(compiled.text, bound as never[]) : runner().unsafe(compiled.text);
      // Through the shared runner's one hook, which tracing watches (sql/run.ts sendStatement).
      const result = await sendStatement({ system: "postgresql", operation, text: compiled.text }, send);
      return result as unknown[] & { count?: number; affectedRows?: number };
    };
    return {
      async get(...params) {
        return convert<Row>(await exec(params))[0] ?? null;
      },
      async all(...params) {
        return convert<Row>(await exec(params));
      },
      async run(...params) {
        const result = await exec(params);
        return { changes: Number(result.count ?? result.affectedRows ?? result.length ?? 0) };
      },
    };
  }

  const lockStatement = "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))";

  async function takeLock(state: TxState, key: string): Promise<void> {
    if (state.locks.has(key)) return;
    await state.tx.unsafe(lockStatement, [key]);
    state.locks.add(key);
  }

  async function write<T>(locks: readonly string[], fn: () => Promise<T>, operation = "write"): Promise<T> {
    const outer = current.getStore();
    if (outer) {
      for (const key of [...locks].sort()) await takeLock(outer, key);
      return fn();
    }
    for (let attempt = 0; ; attempt++) {
      const after: Array<() => void> = [];
      try {
        const result = await sql.begin(async (tx) => {
          const state: TxState = {
            tx: tx as unknown as Tx,
            locks: new Set(),
            afterCommit: after,
            beforeCommit: [],
            values: new Map(),
          };
          return current.run(state, async () => {
            for (const key of [...new Set(locks)].sort()) await takeLock(state, key);
            const value = await fn();
            for (const step of state.beforeCommit) await step();
            return boxed(value);
          });
        });
        for (const callback of after) callback();
        return result.value;
      } catch (error) {
        const state = sqlState(error);
        if (state && RETRY.has(state) && attempt < 5) {
          await Bun.sleep(5 * 2 ** attempt * Math.random());
          continue;
        }
        mapError(error, operation);
      }
    }
  }

  async function read<T>(fn: () => Promise<T>, operation = "read"): Promise<T> {
    if (current.getStore()) return fn();
    try {
      const result = await sql.begin("isolation level repeatable read read only", async (tx) =>
        current.run(
          { tx: tx as unknown as Tx, locks: new Set(), afterCommit: [], beforeCommit: [], values: new Map() },
          async () => boxed(await fn()),
        ),
      );
      return result.value;
    } catch (error) {
      mapError(error, operation);
    }
  }

  return {
    query,
    write,
    read,
    async lock(key) {
      const state = current.getStore();
      if (!state) throw new Error("lock() outside a write transaction");
      await takeLock(state, key);
    },
    afterCommit(fn) {
      const state = current.getStore();
      if (!state) throw new Error("afterCommit() outside a write transaction");
      state.afterCommit.push(fn);
    },
    txValue<T>(key: string, init: (beforeCommit: (step: () => Promise<void>) => void) => T): T | null {
      const state = current.getStore();
      if (!state) return null;
      if (!state.values.has(key))
        state.values.set(
          key,
          init((step) => state.beforeCommit.push(step)),
        );
      return state.values.get(key) as T;
    },
    get inWrite() {
      return current.getStore() !== undefined;
    },
    sql,
    close: () => sql.close(),
  };
}
