/**
 * `bun run bench [--store sqlite|redis] [--agents 16] [--calls 20000]`
 * For each store: a roomd process, the MCP transport floor (tools/list only), then a mixed coordination workload
 * with the same concurrency. Prints calls/s, latency percentiles, the ratio to the floor and the server's RSS.
 */
import { parseArgs } from "node:util";
import { mixedWorkload, runLoad, toolsList } from "./load.ts";
import { type BenchStore, rssMb, SECRET, seedRooms, startTarget, table } from "./server.ts";

const { values } = parseArgs({
  options: {
    store: { type: "string" },
    agents: { type: "string", default: "16" },
    calls: { type: "string", default: "20000" },
  },
});
const agents = Number(values.agents);
const calls = Number(values.calls);
const stores: BenchStore[] = values.store ? [values.store as BenchStore] : ["sqlite", "redis"];

const rows: Record<string, string | number>[] = [];
for (const store of stores) {
  const target = await startTarget(store);
  try {
    const url = target.server.url;
    const rooms = await seedRooms(url, Math.max(1, agents / 4));
    await runLoad({ url, secret: SECRET, agents, calls: 2000, next: toolsList }); // warm-up
    const floor = await runLoad({ url, secret: SECRET, agents, calls, next: toolsList });
    const mixed = await runLoad({ url, secret: SECRET, agents, calls, next: mixedWorkload(rooms) });
    const rss = rssMb(target.server.proc.pid);
    for (const [name, r] of [
      ["tools/list (floor)", floor],
      ["mixed tools/call", mixed],
    ] as const) {
      rows.push({
        store,
        workload: name,
        calls: r.calls,
        errors: r.errors,
        "calls/s": Math.round(r.perSecond),
        "p50 ms": r.p50,
        "p95 ms": r.p95,
        "p99 ms": r.p99,
        "vs floor":
          name === "mixed tools/call" ? `${Math.round((100 * mixed.perSecond) / floor.perSecond)}%` : "100%",
        "server RSS MB": Math.round(rss),
      });
    }
  } finally {
    await target.stop();
  }
}
console.log(`agents=${agents} calls=${calls} bun=${Bun.version}\n`);
console.log(table(rows));
