/** Running a command as a separate process to completion, the way the CLI, hook and multi-process tests need it. */

export interface ProcessRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** The whole environment of the process; this process's when absent. */
  env?: Record<string, string>;
  cwd?: string;
  /** Written to stdin; stdin is closed at once without it. */
  stdin?: string;
  /** SIGKILL after this long, so a hung process fails its test instead of the whole run. */
  killAfterMs?: number;
}

/** Runs `cmd` and collects its exit code, stdout and stderr. */
export async function runToEnd(cmd: string[], options: RunOptions = {}): Promise<ProcessRun> {
  const proc = Bun.spawn(cmd, {
    cwd: options.cwd,
    env: options.env,
    stdin: options.stdin === undefined ? "ignore" : new TextEncoder().encode(options.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const watchdog =
    options.killAfterMs === undefined
      ? undefined
      : setTimeout(() => proc.kill("SIGKILL"), options.killAfterMs);
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  clearTimeout(watchdog);
  return { code, stdout, stderr };
}
