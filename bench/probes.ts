/**
 * Counters read around a benchmark phase: a process's CPU time (Linux /proc) and a redis-server's own statistics
 * (INFO commandstats and INFO cpu), so costs are measured where they are spent rather than inferred.
 */
import { readFileSync } from "node:fs";
import { RedisClient } from "bun";

/** Clock ticks per second of /proc/<pid>/stat times (`getconf CLK_TCK`; 100 on Linux x86-64). */
export const CLK_TCK = (() => {
  const out = Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim();
  const ticks = Number(out);
  return Number.isInteger(ticks) && ticks > 0 ? ticks : 100;
})();

/** User + system CPU time of a process so far (all its threads), in ms. Resolution is one clock tick. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name (field 2) may hold spaces; fields after its closing paren start at field 3 (state).
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / CLK_TCK;
}

/** Busy CPU time of the whole machine so far (all cores, everything but idle and iowait), in ms. */
export function machineBusyMs(): number {
  const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0] ?? "";
  // cpu user nice system idle iowait irq softirq steal guest guest_nice (guest time is inside user)
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return ((user + nice + system + irq + softirq + steal) * 1000) / CLK_TCK;
}

/** One snapshot of a redis-server's counters. */
export interface RedisSnapshot {
  /**
   * Commands clients sent so far (round trips): the script commands and connection commands in CLIENT_COMMANDS,
   * excluding the INFO calls this probe makes itself. Commands that scripts run through redis.call() are not in
   * it, although INFO commandstats (and total_commands_processed) count them too.
   */
  clientCommands: number;
  /** Every command executed so far, including those run inside scripts (and excluding INFO). */
  allCommands: number;
  /** Per command name (lowercase, e.g. "evalsha"): calls (incl. rejected) and total µs spent executing them. */
  byCommand: Map<string, { calls: number; usec: number }>;
  /** CPU seconds of the main thread (user + sys), the one that executes commands and scripts. */
  mainThreadCpuSeconds: number;
  /** CPU seconds of the whole redis-server process (user + sys, all threads). */
  cpuSeconds: number;
}

/** Reads INFO commandstats and INFO cpu from a redis-server over its own connection. */
export interface RedisProbe {
  snapshot(): Promise<RedisSnapshot>;
  close(): void;
}

/**
 * What a client sends: roomd's drivers send only EVALSHA, EVAL (after NOSCRIPT) and PING, plus the connection
 * handshake; the front of the upstash store sends the same over RESP. None of these runs inside roomd's scripts.
 */
export const CLIENT_COMMANDS = new Set([
  ..."eval evalsha eval_ro evalsha_ro fcall fcall_ro script ping".split(" "),
  ..."hello auth select client multi exec".split(" "),
]);

function parseInfo(text: string): RedisSnapshot {
  const byCommand = new Map<string, { calls: number; usec: number }>();
  let clientCommands = 0;
  let allCommands = 0;
  let cpu = 0;
  let total = 0;
  for (const line of text.split(/\r?\n/)) {
    const stat = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+),usec_per_call=[\d.]+,rejected_calls=(\d+)/.exec(
      line,
    );
    if (stat) {
      const [, name = "", ok = "0", usec = "0", rejected = "0"] = stat;
      const calls = Number(ok) + Number(rejected);
      byCommand.set(name, { calls, usec: Number(usec) });
      if (name === "info") continue;
      allCommands += calls;
      if (CLIENT_COMMANDS.has(name)) clientCommands += calls;
      continue;
    }
    const used = /^used_cpu_(?:sys|user)_main_thread:([\d.]+)/.exec(line);
    if (used) cpu += Number(used[1]);
    const process = /^used_cpu_(?:sys|user):([\d.]+)/.exec(line);
    if (process) total += Number(process[1]);
  }
  return { clientCommands, allCommands, byCommand, mainThreadCpuSeconds: cpu, cpuSeconds: total };
}

/** A probe on the redis-server at `url`; opens its connection now, so the handshake is not inside a phase. */
export async function redisProbe(url: string): Promise<RedisProbe> {
  const client = new RedisClient(url);
  await client.connect();
  return {
    snapshot: async () => parseInfo(String(await client.send("INFO", ["cpu", "commandstats"]))),
    close: () => client.close(),
  };
}

/** Differences between two snapshots, per tool call. */
export interface RedisCost {
  /** Commands clients sent (round trips) per call. */
  roundTripsPerCall: number;
  /** Every command executed per call, including those inside scripts. */
  commandsPerCall: number;
  /** µs the main thread spent per call (command execution, Lua and network I/O). */
  cpuUsPerCall: number;
  /** CPU ms of the whole redis-server process during the phase. */
  processCpuMs: number;
  /** Mean µs inside one EVALSHA (Lua execution only), or undefined if none ran. */
  evalshaUsec?: number;
}

export function redisCost(before: RedisSnapshot, after: RedisSnapshot, calls: number): RedisCost {
  const a = after.byCommand.get("evalsha");
  const b = before.byCommand.get("evalsha") ?? { calls: 0, usec: 0 };
  const evalshaCalls = (a?.calls ?? 0) - b.calls;
  return {
    roundTripsPerCall: (after.clientCommands - before.clientCommands) / calls,
    commandsPerCall: (after.allCommands - before.allCommands) / calls,
    cpuUsPerCall: ((after.mainThreadCpuSeconds - before.mainThreadCpuSeconds) * 1e6) / calls,
    processCpuMs: (after.cpuSeconds - before.cpuSeconds) * 1000,
    ...(a && evalshaCalls > 0 ? { evalshaUsec: (a.usec - b.usec) / evalshaCalls } : {}),
  };
}
