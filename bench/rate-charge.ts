/**
 * The rate charge every request pays (CONSUME_RATE), as `redis-benchmark` sends it: the script's own team keys and
 * arguments exactly as the driver passes them (call.ts `team`: now, then the script's declared arguments), one charge per
 * call at a fixed instant and a limit it never reaches. `checkedRateCharge` runs it once first and refuses an
 * error reply: redis-benchmark counts error replies as answered requests, so a stale argument list would be timed
 * as if it worked. `redisBenchmark` runs redis-benchmark itself, as the capacity benches do.
 */
import type { RedisClient } from "bun";
import { scriptKeys } from "../src/store/redis/call.ts";
import { teamKeys } from "../src/store/redis/keys.ts";
import { TEAM_SCRIPTS } from "../src/store/redis/scripts.ts";

/** `EVALSHA <sha> <numkeys> <keys…> <args…>` for one charge of `teamId`'s tools bucket; the script is loaded. */
export async function checkedRateCharge(client: RedisClient, teamId: string): Promise<string[]> {
  const script = TEAM_SCRIPTS.CONSUME_RATE;
  await client.send("SCRIPT", ["LOAD", script.text]);
  const keys = scriptKeys(script, teamKeys(teamId), false);
  const argv = [String(Date.now())];
  script.encode(
    { bucket: "tools", limit: 1_000_000, window: 60_000, n: 1, agent: "", agentLimit: null },
    argv,
  );
  const command = [script.sha, String(keys.length), ...keys, ...argv];
  const reply = await client.send("EVALSHA", command);
  if (typeof reply !== "string" || !reply.startsWith('{"ok":'))
    throw new Error(`CONSUME_RATE did not charge: ${String(reply)}`);
  return ["EVALSHA", ...command];
}

/** requests/s of one redis-benchmark run (50 clients, no pipelining) of `args` against the server on `port`. */
export function redisBenchmark(port: number, args: string[]): number {
  const proc = Bun.spawnSync(["redis-benchmark", "-p", String(port), "-q", "-c", "50", "-P", "1", ...args]);
  const out = proc.stdout.toString();
  const rates = [...out.matchAll(/([\d.]+) requests per second/g)].map((m) => Number(m[1]));
  if (rates.length === 0) throw new Error(`redis-benchmark ${args.join(" ")}: ${out}${proc.stderr}`);
  return rates.at(-1) as number;
}
