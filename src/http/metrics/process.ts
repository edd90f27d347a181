/**
 * The standard process metrics (the names Prometheus client libraries use), read when scraped: CPU time, resident
 * and virtual memory, the JavaScript heap, open file descriptors and the start time. The /proc ones are Linux
 * only and are left out where /proc is not there.
 */
import { readdirSync, readFileSync } from "node:fs";
import { CollectedFamily, type Registry } from "./registry.ts";

/** Field `index` (1-based, as proc(5) numbers them) of /proc/self/stat, or undefined off Linux. */
function statField(index: number): number | undefined {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    // The command name (field 2) may hold spaces and parens: fields after its last ")" start at field 3.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const value = Number(fields[index - 3]);
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function openFds(): number | undefined {
  try {
    return readdirSync("/proc/self/fd").length;
  } catch {
    return undefined;
  }
}

function maxFds(): number | undefined {
  try {
    const limits = readFileSync("/proc/self/limits", "utf8");
    const soft = /^Max open files\s+(\d+)/m.exec(limits)?.[1];
    return soft === undefined ? undefined : Number(soft);
  } catch {
    return undefined;
  }
}

export function registerProcessMetrics(registry: Registry): void {
  const startedAt = Date.now() / 1000 - process.uptime();
  const cpu = () => process.cpuUsage();
  registry.add(
    new CollectedFamily(
      "process_cpu_user_seconds_total",
      "User CPU time spent by this process, in seconds.",
      "counter",
      () => cpu().user / 1e6,
    ),
  );
  registry.add(
    new CollectedFamily(
      "process_cpu_system_seconds_total",
      "System CPU time spent by this process, in seconds.",
      "counter",
      () => cpu().system / 1e6,
    ),
  );
  registry.add(
    new CollectedFamily(
      "process_cpu_seconds_total",
      "User and system CPU time spent by this process, in seconds.",
      "counter",
      () => {
        const { user, system } = cpu();
        return (user + system) / 1e6;
      },
    ),
  );
  registry.add(
    new CollectedFamily(
      "process_resident_memory_bytes",
      "Resident memory size of this process, in bytes.",
      "gauge",
      () => process.memoryUsage.rss(),
    ),
  );
  registry.add(
    new CollectedFamily(
      "process_virtual_memory_bytes",
      "Virtual memory size of this process, in bytes.",
      "gauge",
      () => statField(23),
    ),
  );
  registry.add(
    new CollectedFamily(
      "process_heap_bytes",
      "JavaScript heap in use by this process, in bytes.",
      "gauge",
      () => process.memoryUsage().heapUsed,
    ),
  );
  registry.add(
    new CollectedFamily("process_open_fds", "Open file descriptors of this process.", "gauge", openFds),
  );
  registry.add(
    new CollectedFamily("process_max_fds", "Most file descriptors this process may open.", "gauge", maxFds),
  );
  registry.add(
    new CollectedFamily(
      "process_start_time_seconds",
      "When this process started, in seconds since the Unix epoch.",
      "gauge",
      () => startedAt,
    ),
  );
}
