/**
 * `bun bench/pg-statements.ts`: the PostgreSQL statements (each one round trip; BEGIN and COMMIT included) of
 * single store operations, counted at the server by pg_stat_statements on a private PostgreSQL.
 * Each operation runs against a room that already has a few tasks, events and a context entry, as the acting agent
 * (so presence and renewal are included), after a warm-up, 50 times; the table shows the mean.
 */

import { createPostgresStore } from "../src/store/postgres/index.ts";
import type { RoomScope } from "../src/store/types.ts";
import { startPostgres } from "../test/support/postgres.ts";
import { pgProbe } from "./pg-probe.ts";
import { table } from "./server.ts";

const server = await startPostgres({ settings: { shared_preload_libraries: "pg_stat_statements" } });
const url = await server.createDatabase();
const probe = await pgProbe(url);
const store = await createPostgresStore({ url, timeoutMs: 5000 });
const scope = (i: number): RoomScope => ({ roomId: `r-${i}`, teamId: "bench", actor: "alice" });
const ROOMS = 50;
const task = (title: string) => ({
  title,
  description: "",
  depends_on: [],
  priority: null,
  agentId: "alice",
});

for (let i = 0; i < ROOMS; i++) {
  const s = scope(i);
  for (let n = 0; n < 4; n++) await store.addTask(s, task(`t${n}`));
  await store.writeContext(s, {
    type: "note",
    summary: "n",
    consuming_agents: ["bob"],
    payload: { text: "x" },
    author: "alice",
  });
}

const operations: [string, (s: RoomScope, i: number) => Promise<unknown>][] = [
  [
    "rate charge (every request)",
    () => store.consumeRate("bench", { bucket: "tools", limit: 1e9, windowMs: 60_000 }),
  ],
  ["read_plan", (s) => store.readPlan(s)],
  ["add_task", (s, i) => store.addTask(s, task(`new ${i}`))],
  ["update_task", (s) => store.updateTask(s, { taskId: "task-1", priority: 1, agentId: "alice" })],
  [
    "post_event",
    (s) => store.postEvent(s, { type: "note", from: "alice", to: "all", payload: { text: "hi" } }),
  ],
  ["get_unread_events", (s) => store.consumeEvents(s, "bob", 10)],
  ["get_my_summary", (s) => store.summary(s, "alice", 10)],
  ["heartbeat", (s) => store.heartbeat(s, "alice", "working")],
  ["set_shared_var", (s) => store.setVar(s, "k", "v", "alice")],
  ["acquire_lock", (s) => store.acquireLock(s, "db", "alice", 30_000)],
  [
    "write_context",
    (s) =>
      store.writeContext(s, {
        type: "note",
        summary: "n",
        consuming_agents: [],
        payload: { text: "y" },
        author: "alice",
      }),
  ],
];

const rows: Record<string, string | number>[] = [];
for (const [name, run] of operations) {
  for (let i = 0; i < ROOMS; i++) await run(scope(i), i); // warm-up: prepared statements, caches
  const before = await probe.snapshot();
  for (let i = 0; i < ROOMS; i++) await run(scope(i), i);
  const after = await probe.snapshot();
  rows.push({
    operation: name,
    "statements (round trips)": ((after.statements - before.statements) / ROOMS).toFixed(1),
  });
}
console.log(table(rows));
await store.close();
await probe.close();
await server.stop();
