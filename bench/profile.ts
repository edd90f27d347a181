/**
 * `bun bench/profile.ts [--store sqlite|redis] [--era 2025|2026-07-28] [--server roomd|sdk2|sdk2-mcpserver]
 * [--workload get_shared_var|mixed|tools/list] [--calls 20000] [--agents 16] [--tasks 100] [--out /tmp/roomd-prof]`
 * One roomd process (or a benchmark variant of it: bench/server.ts BENCH_SERVERS) started with `bun --cpu-prof
 * --cpu-prof-md`, warmed up, driven with one workload, then stopped: Bun writes the profile (Chrome .cpuprofile and
 * a grep-friendly markdown summary) to `--out` on exit. The bench that says how much; this says where.
 */
import { mkdirSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { spawn } from "bun";
import { freePort, startRedisServer } from "../test/support/redis-server.ts";
import { type Call, ERAS, type Era, planWorkload, runLoad, sharedVarWorkload, toolsList } from "./load.ts";
import { BENCH_SERVERS, SECRET, seedPlans } from "./server.ts";

const { values } = parseArgs({
  options: {
    store: { type: "string", default: "sqlite" },
    workload: { type: "string", default: "get_shared_var" },
    calls: { type: "string", default: "20000" },
    agents: { type: "string", default: "16" },
    tasks: { type: "string", default: "100" },
    out: { type: "string", default: join(tmpdir(), "roomd-prof") },
    era: { type: "string", default: "2025" },
    server: { type: "string", default: "roomd" },
  },
});
const served = BENCH_SERVERS[values.server];
if (!served) throw new Error(`--server: one of ${Object.keys(BENCH_SERVERS).join(", ")}`);
const era = values.era as Era;
if (!ERAS.includes(era)) throw new Error(`--era: one of ${ERAS.join(", ")}`);
const agents = Number(values.agents);
const tasks = Number(values.tasks);
mkdirSync(values.out, { recursive: true });

const redis = values.store === "redis" ? await startRedisServer() : undefined;
const storeEnv: Record<string, string> = redis
  ? { STORE: "redis", REDIS_URL: redis.url }
  : { STORE: "sqlite", SQLITE_PATH: join(mkdtempSync(join(tmpdir(), "roomd-prof-")), "roomd.sqlite") };
const port = await freePort();
const entry = served.entry ?? "src/index.ts";
const proc = spawn(["bun", "--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${values.out}`, entry], {
  cwd: join(import.meta.dir, ".."),
  env: {
    PATH: process.env.PATH ?? "",
    PORT: String(port),
    API_KEYS: `bench:${SECRET}`,
    RATE_LIMIT_PER_MINUTE: "1000000",
    ...storeEnv,
    ...served.env,
  },
  stdout: "ignore",
  stderr: "ignore",
});
const url = `http://127.0.0.1:${port}`;
try {
  for (let tries = 0; ; tries++) {
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {}
    if (tries > 200) throw new Error("roomd did not start");
    await Bun.sleep(50);
  }
  const rooms = await seedPlans(url, Math.max(1, agents / 4), tasks);
  const workloads: Record<string, (agent: number, n: number) => Call> = {
    get_shared_var: sharedVarWorkload(rooms),
    mixed: planWorkload(rooms, tasks),
    "tools/list": toolsList,
  };
  const next = workloads[values.workload];
  if (!next) throw new Error(`--workload: one of ${Object.keys(workloads).join(", ")}`);
  await runLoad({ url, secret: SECRET, agents, calls: 3000, next, era });
  const result = await runLoad({ url, secret: SECRET, agents, calls: Number(values.calls), next, era });
  console.log(
    `${values.workload} on ${values.store}, ${values.server} (${era}): ${result.calls} calls, ${Math.round(result.perSecond)}/s`,
  );
} finally {
  proc.kill("SIGTERM");
  await proc.exited;
  await redis?.stop();
}
console.log(`profiles in ${values.out}: ${readdirSync(values.out).join(", ")}`);
