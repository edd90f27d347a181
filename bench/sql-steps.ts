/**
 * `bun bench/sql-steps.ts [--rounds 40] [--ops 5000] [--statements 15]`: what running a SQLite body as a generator
 * costs (store/sql/run.ts). The same work — `--statements` primary-key reads per operation, each through a helper
 * as the bodies nest their sub-steps — is run as plain synchronous functions and as generator bodies whose every
 * statement is a `yield*` step driven by runSync; the best round of each is kept (the least disturbed by the
 * machine's other work), and the difference is divided by the statements run.
 */
import { Database } from "bun:sqlite";
import { parseArgs } from "node:util";
import { type Op, runSync } from "../src/store/sql/run.ts";
import { sqliteClient } from "../src/store/sqlite/client.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "40" },
    ops: { type: "string", default: "5000" },
    statements: { type: "string", default: "15" },
  },
});
const ROUNDS = Number(values.rounds);
const OPS = Number(values.ops);
const STATEMENTS = Number(values.statements);

const db = new Database(":memory:");
db.run("CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT) STRICT");
const keys = Array.from({ length: 100 }, (_, i) => `k${i}`);
for (const k of keys) db.run("INSERT INTO t VALUES (?, ?)", [k, `value of ${k}`]);

const plain = db.query<{ v: string }, [string]>("SELECT v FROM t WHERE k = ?");
const inner = (i: number) => plain.get(keys[i % 100] as string)?.v.length ?? 0;
function plainOp(): number {
  let sum = 0;
  for (let i = 0; i < STATEMENTS; i++) sum += inner(i);
  return sum;
}

const stmt = sqliteClient(db).query<{ v: string }, [string]>("SELECT v FROM t WHERE k = ?");
function* step(i: number): Op<number> {
  return (yield* stmt.get(keys[i % 100] as string))?.v.length ?? 0;
}
function* bodyOp(): Op<number> {
  let sum = 0;
  for (let i = 0; i < STATEMENTS; i++) sum += yield* step(i);
  return sum;
}

const best = { plain: Number.POSITIVE_INFINITY, body: Number.POSITIVE_INFINITY };
for (let round = 0; round < ROUNDS; round++) {
  let t = performance.now();
  for (let i = 0; i < OPS; i++) plainOp();
  best.plain = Math.min(best.plain, performance.now() - t);
  t = performance.now();
  for (let i = 0; i < OPS; i++) runSync(bodyOp());
  best.body = Math.min(best.body, performance.now() - t);
}
const perOp = (ms: number) => (ms / OPS) * 1000;
console.log(
  `${STATEMENTS} statements per operation, best of ${ROUNDS} rounds of ${OPS}: plain ${perOp(best.plain).toFixed(2)} µs, ` +
    `generator body ${perOp(best.body).toFixed(2)} µs per operation; ` +
    `${(((best.body - best.plain) / OPS / STATEMENTS) * 1e6).toFixed(0)} ns per statement`,
);
