/**
 * `bun bench/memory.ts [--store sqlite|redis] [--calls 100000]`
 * Resident size of one roomd process across a long mixed workload, sampled every tenth of the run: it must level
 * off (no growth per request) and stay under 150 MB.
 */
import { parseArgs } from "node:util";
import { mixedWorkload, runLoad } from "./load.ts";
import { type BenchStore, rssMb, SECRET, seedRooms, startTarget, table } from "./server.ts";

const { values } = parseArgs({
  options: { store: { type: "string", default: "sqlite" }, calls: { type: "string", default: "100000" } },
});
const calls = Number(values.calls);
const target = await startTarget(values.store as BenchStore);
try {
  const url = target.server.url;
  const pid = target.server.proc.pid;
  // Fresh rooms per slice keep the plans small, so the sample measures the server, not growing room data.
  const rows: Record<string, string | number>[] = [{ "calls so far": 0, "RSS MB": Math.round(rssMb(pid)) }];
  const slice = Math.ceil(calls / 10);
  for (let done = 0; done < calls; done += slice) {
    const rooms = await seedRooms(url, 4);
    const r = await runLoad({ url, secret: SECRET, agents: 16, calls: slice, next: mixedWorkload(rooms) });
    rows.push({
      "calls so far": done + r.calls,
      "RSS MB": Math.round(rssMb(pid)),
      "calls/s": Math.round(r.perSecond),
      errors: r.errors,
    });
  }
  console.log(`store=${values.store} calls=${calls} bun=${Bun.version}\n`);
  console.log(table(rows));
} finally {
  await target.stop();
}
