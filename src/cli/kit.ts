/**
 * What every roomctl command shares: the two kinds of failure (exit 1 and exit 2), a command's shape, and argument
 * parsing with node:util parseArgs (strict: an unknown option is a usage error, never silently ignored).
 */
import { type ParseArgsOptionsConfig, parseArgs } from "node:util";
import { isRoomId } from "../protocol/ids.ts";

/** A failure of the command (the server refused, the server is unreachable, …): exit 1, one line on stderr. */
export class CliError extends Error {
  override name = "CliError";
}

/** The command was called wrongly (unknown option, missing argument, bad value): exit 2, one line on stderr. */
export class UsageError extends Error {
  override name = "UsageError";
}

export type OptionValues = Record<string, string | boolean | string[] | undefined>;

export interface Parsed {
  values: OptionValues;
  positionals: string[];
}

export interface Command {
  /** The word that runs it: `roomctl <name> …`. */
  name: string;
  /** One line for `roomctl --help`. */
  summary: string;
  /** The whole `--help` text: usage lines, options, an example. */
  help: string;
  /** Options besides --help (and --json, added for every command that lists `json: true`). */
  options: ParseArgsOptionsConfig;
  /** Runs the command; resolves to its exit code (0 when nothing is returned). */
  run(args: Parsed): Promise<number | undefined> | number | undefined;
}

const COMMON: ParseArgsOptionsConfig = {
  help: { type: "boolean", short: "h" },
};

/** Parses argv for a command; parseArgs' own errors become usage errors naming the command. */
export function parse(command: Command, argv: string[]): Parsed | "help" {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { ...COMMON, ...command.options },
      allowPositionals: true,
      strict: true,
    });
    if (values.help === true) return "help";
    return { values: values as OptionValues, positionals };
  } catch (error) {
    throw asUsageError(error);
  }
}

/** A parseArgs error as one short usage line (parseArgs explains at length). */
export function asUsageError(error: unknown): UsageError {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string }).code;
  const option = /'([^']+)'/.exec(message)?.[1]?.split(" ")[0];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && option) return new UsageError(`unknown option ${option}`);
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && option)
    return new UsageError(
      /does not take/.test(message) ? `${option} takes no value` : `${option} needs a value`,
    );
  return new UsageError(message.split(/\.\s|\n/)[0] ?? "bad arguments");
}

/** A string option's value, if given. */
export const str = (values: OptionValues, name: string): string | undefined => {
  const v = values[name];
  return typeof v === "string" ? v : undefined;
};

/** A repeatable option, each value also split on commas: `--task t1 --task t2,t3` → [t1, t2, t3]. */
export const list = (values: OptionValues, name: string): string[] | undefined => {
  const v = values[name];
  const raw = typeof v === "string" ? [v] : Array.isArray(v) ? v : undefined;
  return raw
    ?.flatMap((item) => item.split(","))
    .map((item) => item.trim())
    .filter((item) => item !== "");
};

/** A whole number option (e.g. a seq or a priority); anything else is a usage error naming the option. */
export function int(values: OptionValues, name: string, min = Number.MIN_SAFE_INTEGER): number | undefined {
  const v = str(values, name);
  if (v === undefined) return undefined;
  if (!/^-?\d{1,15}$/.test(v) || Number(v) < min) {
    throw new UsageError(`--${name} must be a whole number${min === 0 ? " ≥ 0" : min === 1 ? " ≥ 1" : ""}`);
  }
  return Number(v);
}

/** The positional at `index`, required: a usage error naming it when absent. */
export function required(positionals: string[], index: number, what: string): string {
  const v = positionals[index];
  if (v === undefined || v === "") throw new UsageError(`missing ${what}`);
  return v;
}

/** A room id from the command line, checked here so a typo is a usage error rather than a 404. */
export function roomArg(positionals: string[], index = 0): string {
  const roomId = required(positionals, index, "<room>");
  if (!isRoomId(roomId)) {
    throw new UsageError(
      `invalid room id ${JSON.stringify(roomId.slice(0, 80))}: 2-64 chars of a-z, 0-9, _ and -, starting with a letter or digit, no "__"`,
    );
  }
  return roomId;
}

/** Refuses positionals beyond the expected count (a misplaced word is a mistake, not something to ignore). */
export function noMore(positionals: string[], count: number): void {
  const extra = positionals[count];
  if (extra !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(extra.slice(0, 80))}`);
}

/** Asks a question on stderr and reads one line from the terminal (echoed). */
export async function askLine(question: string): Promise<string> {
  const { createInterface } = await import("node:readline/promises");
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

/**
 * Confirms a destructive action: `--yes` skips the question; on a terminal the user types `word` back; without a
 * terminal and without --yes it is a usage error (a script must say it means it).
 */
export async function confirm(yes: boolean, what: string, word: string): Promise<void> {
  if (yes) return;
  if (!process.stdin.isTTY) throw new UsageError(`${what}: pass --yes to confirm (stdin is not a terminal)`);
  const answer = await askLine(`${what}. Type ${word} to confirm: `);
  if (answer !== word) throw new CliError("not confirmed; nothing was changed");
}

/** Refuses options that do not apply to this form of a command (silently ignoring them would mislead). */
export function only(values: OptionValues, allowed: string[], form: string): void {
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined && name !== "help" && !allowed.includes(name))
      throw new UsageError(`--${name} does not go with ${form}`);
  }
}
