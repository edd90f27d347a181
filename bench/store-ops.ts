/**
 * `bun bench/store-ops.ts [--root <checkout>] [--ops postEvent,updateTask,…] [--rounds 3] [--batches 300]`
 * CPU per SQLite store operation, without HTTP or MCP: 16 concurrent callers per batch (as group commit sees them
 * under load) on one room seeded with 100 tasks. `--root` measures another checkout of roomd (an exported copy
 * of an older commit), so two versions can be compared run after run. The least noisy of the CPU benches: it says
 * what the store's own work costs, not what a tool call costs (bench/cpu.ts does).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { RoomStore } from "../src/store/types.ts";

const { values } = parseArgs({
  options: {
    root: { type: "string", default: join(import.meta.dir, "..") },
    ops: { type: "string" },
    rounds: { type: "string", default: "3" },
    batches: { type: "string", default: "300" },
  },
});
const root = resolve(values.root);
const { loadConfig } = (await import(join(root, "src/config.ts"))) as typeof import("../src/config.ts");
const { openStore } = (await import(
  join(root, "src/store/index.ts")
)) as typeof import("../src/store/index.ts");
const store: RoomStore = await openStore(
  loadConfig({
    API_KEYS: "bench:0123456789abcdef0123456789abcdef",
    STORE: "sqlite",
    SQLITE_PATH: join(mkdtempSync(join(tmpdir(), "roomd-store-ops-")), "roomd.sqlite"),
  }),
);
const base = { roomId: "room-1", teamId: "bench" };
const agent = (a: number) => `agent-${a}`;
const as = (a: number) => ({ ...base, actor: agent(a) });
for (let i = 1; i <= 100; i++) {
  await store.addTask(base, { title: `seed task ${i}`, description: "", depends_on: [], priority: null });
}
await store.setVar(base, "port", "8080", "seed");

const ops: Record<string, (a: number, n: number) => Promise<unknown>> = {
  postEvent: (a) =>
    store.postEvent(as(a), { type: "progress", from: agent(a), to: "all", payload: { n: a } }),
  updateTask: (a, n) =>
    store.updateTask(as(a), {
      taskId: `task-${1 + ((a * 37 + n * 11) % 100)}`,
      note: `n${n}`,
      agentId: agent(a),
    }),
  consumeEvents: (a) => store.consumeEvents(as(a), agent(a), 20),
  readPlan: () => store.readPlan(base),
  getVar: () => store.getVar(base, "port"),
  summary: (a) => store.summary(as(a), agent(a), 20),
};
const chosen = values.ops?.split(",") ?? Object.keys(ops);
const batches = Number(values.batches);
const results = new Map<string, number[]>();
for (let round = 0; round < Number(values.rounds); round++) {
  for (const name of chosen) {
    const op = ops[name];
    if (!op) throw new Error(`unknown op ${name}: use ${Object.keys(ops).join(", ")}`);
    const batch = (n: number) => Promise.all(Array.from({ length: 16 }, (_, a) => op(a, n)));
    for (let n = 0; n < 30; n++) await batch(n);
    Bun.gc(true);
    const before = process.cpuUsage();
    for (let n = 0; n < batches; n++) await batch(n);
    const used = process.cpuUsage(before);
    results.set(name, [...(results.get(name) ?? []), (used.user + used.system) / (batches * 16)]);
  }
}
console.log(`root=${root} (µs CPU per operation, by round)`);
for (const [name, xs] of results) {
  console.log(
    `${name.padEnd(14)} ${xs.map((x) => x.toFixed(1).padStart(7)).join(" ")}   min ${Math.min(...xs).toFixed(1)}`,
  );
}
await store.close?.();
