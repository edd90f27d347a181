/**
 * `roomctl hook install [--write] [--file .claude/settings.json] [--command roomctl]`: the hooks block that runs the
 * bridge on every Claude Code hook it serves (settings format: Claude Code hooks reference, "Configuration").
 * Prints it, or merges it into the settings file with --write: the file's other settings and hooks are kept, and
 * entries of an earlier install are replaced, so running it twice changes nothing.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import { BRIDGE_HOOKS } from "../protocol/people.ts";

/** Seconds Claude Code waits for a hook command; the bridge itself gives up after 1.5 s. */
export const TIMEOUT_SECONDS = 5;

type HookEntry = { matcher?: string; hooks: { type: string; command: string; timeout?: number }[] };
type Settings = { hooks?: Record<string, HookEntry[]> } & Record<string, unknown>;

/** The hooks block for a bridge started as `<command> hook <event>`. */
export function hooksBlock(command: string): Record<string, HookEntry[]> {
  return Object.fromEntries(
    BRIDGE_HOOKS.map((event) => {
      const run = { type: "command", command: `${command} hook ${event}`, timeout: TIMEOUT_SECONDS };
      const tools = event === "PreToolUse" || event === "PostToolUse";
      return [event, [tools ? { matcher: "*", hooks: [run] } : { hooks: [run] }]];
    }),
  );
}

/**
 * An entry of the bridge, whatever command started it (`roomctl`, `bun …/index.ts`, a path): its command ends with
 * `hook <event>`. Installing again with another --command replaces the earlier entries instead of adding a second
 * bridge (which would send every step twice).
 */
const BRIDGE_COMMAND = new RegExp(`(^|\\s)hook (${BRIDGE_HOOKS.join("|")})$`);
const isOurs = (_command: string, entry: HookEntry) =>
  entry.hooks?.some((h) => typeof h.command === "string" && BRIDGE_COMMAND.test(h.command.trim())) ?? false;

/** The settings with our block merged in: other keys and other hooks kept, our earlier entries replaced. */
export function mergeHooks(settings: Settings, command: string): Settings {
  const hooks: Record<string, HookEntry[]> = { ...(settings.hooks ?? {}) };
  for (const [event, entries] of Object.entries(hooksBlock(command))) {
    hooks[event] = [...(hooks[event] ?? []).filter((e) => !isOurs(command, e)), ...entries];
  }
  return { ...settings, hooks };
}

export function installCommand(args: string[]): void {
  const { values } = parseArgs({
    args,
    options: {
      write: { type: "boolean", default: false },
      file: { type: "string", default: ".claude/settings.json" },
      command: { type: "string", default: "roomctl" },
    },
    strict: true,
  });
  const command = values.command as string;
  if (!values.write) {
    process.stdout.write(`${JSON.stringify({ hooks: hooksBlock(command) }, null, 2)}\n`);
    return;
  }
  const file = values.file as string;
  let settings: Settings = {};
  if (existsSync(file)) {
    const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      throw new Error(`${file} does not hold a JSON object; fix it or pass another --file`);
    }
    settings = parsed as Settings;
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(mergeHooks(settings, command), null, 2)}\n`);
  process.stdout.write(
    `Wrote the roomd bridge hooks (${BRIDGE_HOOKS.join(", ")}) to ${file}.\nSet ROOMD_URL, ROOMD_KEY (the agent's bound key), ROOMD_ROOM and, for an unbound key, ROOMD_AGENT in the agent's environment.\n`,
  );
}
