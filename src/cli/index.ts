#!/usr/bin/env bun
import { hookCommand } from "./hook.ts";
/**
 * roomctl: the room from a terminal and from an agent's harness. One file per command group; node:util parseArgs.
 * Groups so far: `hook` (the Claude Code bridge: `roomctl hook <event>`, `roomctl hook install`), `export` and
 * `import` (a room to an NDJSON file and back).
 */
import { HOOKS } from "./hook-answers.ts";
import { installCommand } from "./hook-install.ts";
import { type TransferEnv, transferCommand } from "./transfer.ts";

const USAGE = `usage:
  roomctl hook <${HOOKS.join("|")}>   answer one Claude Code hook (reads its JSON on stdin)
  roomctl hook install [--write] [--file .claude/settings.json] [--command roomctl]
                                     print (or merge into the settings file) the hooks block

  roomctl export <roomId> [--out file]   the room as NDJSON (stdout without --out)
  roomctl import <roomId> [--in file]    a new room from an export (stdin without --in)

environment of the hook: ROOMD_URL, ROOMD_KEY (the agent's own key), ROOMD_ROOM, ROOMD_AGENT (unless the key is bound)
environment of export and import: ROOMD_URL, ROOMD_KEY (a key of the room's team; unbound to import)
`;

async function main(argv: string[]): Promise<number> {
  const [group, ...rest] = argv;
  if (group === "hook") {
    if (rest[0] === "install") {
      installCommand(rest.slice(1));
      return 0;
    }
    await hookCommand(rest[0]);
    return 0;
  }
  if (group === "export" || group === "import")
    return transferCommand(group, rest, process.env as TransferEnv);
  if (group === undefined || group === "help" || group === "--help" || group === "-h") {
    process.stdout.write(USAGE);
    return group === undefined ? 1 : 0;
  }
  process.stderr.write(`roomctl: unknown command ${JSON.stringify(group)}\n${USAGE}`);
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`roomctl: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
