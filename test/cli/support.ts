/**
 * Running the real roomctl as a separate process, the way a person or a git hook does: `bun src/cli/index.ts`
 * with its own environment (HOME and XDG_CONFIG_HOME in a temp dir, so no test reads or writes the real
 * credentials), its stdin, and — for what only a terminal shows — under a pseudo-terminal made by util-linux
 * `script`.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ProcessRun, runToEnd } from "../support/run.ts";

export const ROOT = join(import.meta.dir, "..", "..");
const ENTRY = join(ROOT, "src", "cli", "index.ts");

export type CliRun = ProcessRun;

export interface CliOptions {
  env?: Record<string, string>;
  stdin?: string;
  cwd?: string;
}

/** A fresh home for a test: HOME and XDG_CONFIG_HOME point into a new temp dir. */
export function freshHome(): { HOME: string; XDG_CONFIG_HOME: string } {
  const home = mkdtempSync(join(tmpdir(), "roomctl-home-"));
  return { HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
}

/** The environment a run starts from: PATH only, plus a fresh home, plus the test's own. */
const baseEnv = (env: Record<string, string> = {}) => ({
  PATH: process.env.PATH ?? "",
  ...freshHome(),
  ...env,
});

/** Runs `roomctl <args>` to completion (killed after 20 s). */
export async function roomctl(args: string[], options: CliOptions = {}): Promise<CliRun> {
  return runToEnd(["bun", ENTRY, ...args], {
    cwd: options.cwd ?? ROOT,
    env: baseEnv(options.env),
    stdin: options.stdin,
    killAfterMs: 20_000,
  });
}

/**
 * Runs roomctl once per argument list, at most four at a time, in order: each process starts a Bun runtime, and
 * dozens started at once on a busy 2-core machine each outlast their 20 s before any finishes.
 */
export async function roomctlEach(argLists: string[][], options: CliOptions = {}): Promise<CliRun[]> {
  const runs: CliRun[] = new Array(argLists.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < argLists.length; i = next++)
      runs[i] = await roomctl(argLists[i] as string[], options);
  };
  await Promise.all(Array.from({ length: Math.min(4, argLists.length) }, worker));
  return runs;
}

/** roomctl, expecting exit 0 and JSON on stdout; returns the parsed document. */
export async function roomctlJson(args: string[], options: CliOptions = {}): Promise<any> {
  const run = await roomctl([...args, "--json"], options);
  if (run.code !== 0) throw new Error(`roomctl ${args.join(" ")} exited ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

const shellQuote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

export interface PtyRun {
  /** Everything the terminal showed (stdout and stderr together, with \r\n line ends). */
  screen: string;
  code: number;
}

/**
 * Runs `roomctl <args>` on a pseudo-terminal (stdin, stdout and stderr are the terminal). `answer`, when given,
 * is typed once `prompt` has appeared on the screen — as a person would, after the question.
 */
export async function roomctlOnPty(
  args: string[],
  options: { env?: Record<string, string>; prompt?: string; answer?: string } = {},
): Promise<PtyRun> {
  const command = ["bun", ENTRY, ...args].map(shellQuote).join(" ");
  const proc = Bun.spawn(["script", "-qec", command, "/dev/null"], {
    cwd: ROOT,
    env: { TERM: "dumb", ...baseEnv(options.env) },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const watchdog = setTimeout(() => proc.kill("SIGKILL"), 20_000);
  let screen = "";
  let typed = false;
  const decoder = new TextDecoder();
  for await (const chunk of proc.stdout) {
    screen += decoder.decode(chunk, { stream: true });
    if (!typed && options.prompt !== undefined && screen.includes(options.prompt)) {
      typed = true;
      proc.stdin.write(`${options.answer ?? ""}\r`);
      proc.stdin.flush();
    }
  }
  const code = await proc.exited;
  clearTimeout(watchdog);
  return { screen, code };
}

/** ANSI escape sequences (colour and the like). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is what is looked for.
export const ANSI = /\u001b\[/;
