/**
 * `bun bench/sql-timing.ts [bench/inproc.ts options, e.g. --workloads mixed --rounds 1 --calls 8000]`
 * Where a SQLite store's time goes, statement by statement: every prepared statement's get/all/run/iterate/values
 * is wrapped and timed (Bun.nanoseconds, before the store opens its file), then bench/inproc.ts runs with the same
 * arguments on the embedded store, and the statements are listed by total time with their executions and mean µs per
 * execution (seeding and warm-up included; the wrapper itself adds well under a µs). A statement's mean, not the
 * process's CPU per call: bench/cpu.ts says how much, this says which statement.
 */
import { Database } from "bun:sqlite";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { store: { type: "string", default: "sqlite" } }, strict: false });
if (values.store !== "sqlite") throw new Error("--store: SQLite only (its statements run in this process)");

const spent = new Map<string, { runs: number; ns: number }>();
const timed = ["get", "all", "run", "iterate", "values"];
const proto = Database.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
for (const make of ["query", "prepare"]) {
  const original = proto[make] as (this: Database, ...args: unknown[]) => object;
  proto[make] = function (this: Database, ...args: unknown[]) {
    const statement = original.apply(this, args);
    const text = String(args[0]).replace(/\s+/g, " ").trim();
    return new Proxy(statement, {
      get(target, name) {
        const value = Reflect.get(target, name, target);
        if (typeof value !== "function") return value;
        if (!timed.includes(String(name))) return value.bind(target);
        return (...a: unknown[]) => {
          const started = Bun.nanoseconds();
          try {
            return value.apply(target, a);
          } finally {
            const entry = spent.get(text) ?? { runs: 0, ns: 0 };
            entry.runs++;
            entry.ns += Bun.nanoseconds() - started;
            spent.set(text, entry);
          }
        };
      },
    });
  };
}

await import("./inproc.ts");

const total = [...spent.values()].reduce((sum, e) => sum + e.ns, 0);
console.log(`\nSQLite statements: ${(total / 1e6).toFixed(0)} ms in all, the 25 costliest`);
console.log("| total ms | executions | µs each | statement |\n|---:|---:|---:|---|");
for (const [text, e] of [...spent].sort((a, b) => b[1].ns - a[1].ns).slice(0, 25))
  console.log(
    `| ${(e.ns / 1e6).toFixed(0)} | ${e.runs} | ${(e.ns / e.runs / 1000).toFixed(1)} | \`${text.slice(0, 110)}\` |`,
  );
