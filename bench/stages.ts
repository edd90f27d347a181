/**
 * `bun bench/stages.ts [--store sqlite|redis|postgres|upstash] [--calls 20000] [--agents 16] [--rounds 3]`
 * Where a small call's CPU goes, stage by stage, measured over HTTP as bench/cpu.ts measures it: requests that stop
 * at successive stages of roomd's path, each sent `--calls` times by `--agents` concurrent agents, roomd's CPU per
 * request read from /proc (bench/phase.ts), beside the bare Hono floor in the same rounds:
 *
 * - `floor`: the bare Hono JSON POST (bench/floor-server.ts);
 * - `refused key`: a tools/call with a bearer no key has — the request's middleware (request id, metrics, host and
 *   origin checks, body limit), the bearer's digest looked up among the keys in memory (a secret of no key's shape
 *   never reaches the store), and the 401;
 * - `unknown tool`: a tools/call of a tool roomd does not have — all of the above admitted, the rate charge (a store
 *   write), the JSON-RPC checks, the call path up to the tool's lookup, the tool error and the call's log line;
 * - `get_shared_var`: the small call itself — all of the above plus the argument checks, the store read and the
 *   answer.
 *
 * Each difference between two adjacent rows is the cost of the stage it adds. Rounds alternate the four, and each
 * row shows every round and the lowest (the machine's speed drifts: compare within a round).
 */
import { parseArgs } from "node:util";
import type { SpawnedServer } from "../test/support/server.ts";
import { type Call, sharedVarWorkload } from "./load.ts";
import { measuredPhase } from "./phase.ts";
import { type BenchStore, SECRET, seedPlans, startFloor, startTarget, table } from "./server.ts";

const { values } = parseArgs({
  options: {
    store: { type: "string", default: "sqlite" },
    calls: { type: "string", default: "20000" },
    agents: { type: "string", default: "16" },
    rounds: { type: "string", default: "3" },
  },
});
const calls = Number(values.calls);
const agents = Number(values.agents);
const rounds = Number(values.rounds);

const target = await startTarget(values.store as BenchStore);
const floor: SpawnedServer = await startFloor();
try {
  const rooms = await seedPlans(target.server.url, Math.max(1, agents / 4), 1);
  const small = sharedVarWorkload(rooms);
  const unknown = (agent: number): Call => ({
    method: "tools/call",
    params: { name: "no_such_tool", arguments: { roomId: rooms[agent % rooms.length] as string } },
  });
  const stages: { name: string; run: () => ReturnType<typeof measuredPhase> }[] = [
    {
      name: "floor (bare Hono JSON POST)",
      run: () =>
        measuredPhase({ servers: [floor] }, { url: floor.url, secret: SECRET, agents, calls, next: small }),
    },
    {
      name: "refused key (401)",
      run: () => measuredPhase(target, { secret: `${SECRET}-not-a-key`, agents, calls, next: small }),
    },
    {
      name: "unknown tool (tool error)",
      run: () => measuredPhase(target, { secret: SECRET, agents, calls, next: unknown }),
    },
    {
      name: "get_shared_var",
      run: () => measuredPhase(target, { secret: SECRET, agents, calls, next: small }),
    },
  ];
  // Warm-up: every stage once, unmeasured in the table.
  for (const stage of stages) await stage.run();
  const seen = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++)
    for (const stage of stages)
      seen.set(stage.name, [...(seen.get(stage.name) ?? []), (await stage.run()).cpuMsPer1000]);
  const lowest = (name: string) => Math.min(...(seen.get(name) ?? [Number.NaN]));
  let before: number | undefined;
  const rows = stages.map(({ name }) => {
    const min = lowest(name);
    const row = {
      stage: name,
      "CPU µs/request, by round": (seen.get(name) ?? []).map((us) => us.toFixed(1)).join(", "),
      lowest: min.toFixed(1),
      "added by the stage (lowest)": before === undefined ? "—" : (min - before).toFixed(1),
    };
    before = min;
    return row;
  });
  console.log(
    `store=${values.store} agents=${agents} calls/phase=${calls} rounds=${rounds} bun=${Bun.version}\n`,
  );
  console.log(table(rows));
} finally {
  await floor.stop();
  await target.stop();
}
