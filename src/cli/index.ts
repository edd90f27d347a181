#!/usr/bin/env bun
/**
 * roomctl: the room from a terminal and from an agent's harness (docs/roomctl.md). A thin client: every command
 * is HTTP requests to roomd (fetch), one file per command group, node:util parseArgs. Command modules are loaded
 * only when run, so `roomctl hook` (inside every tool call of an agent) loads nothing but the bridge.
 *
 * Exit codes: 0 ok, 1 the command failed, 2 the command was called wrongly. Errors are one line on stderr.
 */
import pkg from "../../package.json" with { type: "json" };
import { BRIDGE_HOOKS } from "../protocol/people.ts";
import { asUsageError, type Command, parse, UsageError } from "./kit.ts";

type Loader = () => Promise<Command>;

/** Every command, in the order `roomctl --help` lists them, by section. */
const SECTIONS: [string, Record<string, Loader>][] = [
  [
    "credentials",
    {
      login: async () => (await import("./auth.ts")).login,
      logout: async () => (await import("./auth.ts")).logout,
      whoami: async () => (await import("./auth.ts")).whoami,
    },
  ],
  [
    "rooms and the log",
    {
      rooms: async () => (await import("./rooms.ts")).rooms,
      watch: async () => (await import("./watch.ts")).watch,
      report: async () => (await import("./report.ts")).report,
    },
  ],
  [
    "the plan",
    {
      tasks: async () => (await import("./tasks.ts")).tasks,
      task: async () => (await import("./tasks.ts")).task,
    },
  ],
  [
    "people in the room",
    {
      post: async () => (await import("./driver.ts")).post,
      drive: async () => (await import("./driver.ts")).drive,
      steer: async () => (await import("./driver.ts")).steer,
      interrupt: async () => (await import("./driver.ts")).interrupt,
      approvals: async () => (await import("./approvals.ts")).approvals,
      approve: async () => (await import("./approvals.ts")).approve,
      reject: async () => (await import("./approvals.ts")).reject,
      roles: async () => (await import("./roles.ts")).roles,
      agents: async () => (await import("./agents.ts")).agents,
      suspend: async () => (await import("./agents.ts")).suspend,
      resume: async () => (await import("./agents.ts")).resume,
      handoff: async () => (await import("./work.ts")).handoff,
      handoffs: async () => (await import("./work.ts")).handoffs,
      fork: async () => (await import("./work.ts")).fork,
      verdicts: async () => (await import("./work.ts")).verdicts,
    },
  ],
  [
    "moving rooms",
    {
      export: async () => (await import("./transfer.ts")).exportRoom,
      import: async () => (await import("./transfer.ts")).importRoom,
    },
  ],
  [
    "keys and agents",
    {
      keys: async () => (await import("./keys.ts")).keys,
      invites: async () => (await import("./keys.ts")).invites,
      oauth: async () => (await import("./oauth.ts")).oauth,
      snippets: async () => (await import("./snippets.ts")).snippets,
      guard: async () => (await import("./guard.ts")).guard,
    },
  ],
];

const COMMANDS: Record<string, Loader> = Object.assign({}, ...SECTIONS.map(([, c]) => c));

const HOOK_HELP = `usage:
  roomctl hook <${BRIDGE_HOOKS.join("|")}>
      answer one Claude Code hook (reads its JSON on stdin; always exits 0)
  roomctl hook install [--write] [--file .claude/settings.json] [--command roomctl]
      print (or merge into the settings file) the hooks block

environment of the hook: ROOMD_URL, ROOMD_KEY (the agent's own key), ROOMD_ROOM,
ROOMD_AGENT (unless the key is bound). See docs/claude-code-bridge.md.`;

async function usage(): Promise<string> {
  const lines = [
    `roomctl ${pkg.version}: roomd from a terminal`,
    "",
    "usage: roomctl <command> [arguments] [--json] [--help]",
  ];
  for (const [section, commands] of SECTIONS) {
    lines.push("", `${section}:`);
    for (const [name, load] of Object.entries(commands))
      lines.push(`  ${name.padEnd(10)} ${(await load()).summary}`);
  }
  lines.push(
    "",
    "the Claude Code bridge:",
    `  ${"hook".padEnd(10)} answer a Claude Code hook; hook install writes the hooks block`,
    "",
    "Credentials: ROOMD_URL and ROOMD_KEY, or roomctl login <url>. Exit codes: 0 ok, 1 failed, 2 usage.",
    "roomctl <command> --help shows a command's arguments and an example.",
  );
  return lines.join("\n");
}

const say = (stream: NodeJS.WriteStream, text: string) => stream.write(`${text}\n`);

async function hookGroup(rest: string[]): Promise<number> {
  if (rest[0] === "--help" || rest[0] === "-h" || (rest[0] === "install" && rest.includes("--help"))) {
    say(process.stdout, HOOK_HELP);
    return 0;
  }
  if (rest[0] === "install") {
    const { installCommand } = await import("./hook-install.ts");
    installCommand(rest.slice(1));
    return 0;
  }
  const { hookCommand } = await import("./hook.ts");
  await hookCommand(rest[0]);
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === "hook") return hookGroup(rest);
  if (name === undefined) {
    say(process.stderr, await usage());
    return 2;
  }
  if (name === "--version" || name === "-V" || name === "version") {
    say(process.stdout, pkg.version);
    return 0;
  }
  if (name === "help" || name === "--help" || name === "-h") {
    const topic = rest[0];
    if (topic === "hook") say(process.stdout, HOOK_HELP);
    else if (topic !== undefined && COMMANDS[topic])
      say(process.stdout, (await (COMMANDS[topic] as Loader)()).help);
    else if (topic !== undefined) throw new UsageError(`unknown command ${JSON.stringify(topic)}`);
    else say(process.stdout, await usage());
    return 0;
  }
  const load = COMMANDS[name];
  if (!load)
    throw new UsageError(`unknown command ${JSON.stringify(name.slice(0, 40))} (roomctl --help lists them)`);
  const command = await load();
  try {
    const parsed = parse(command, rest);
    if (parsed === "help") {
      say(process.stdout, command.help);
      return 0;
    }
    return (await command.run(parsed)) ?? 0;
  } catch (error) {
    if (error instanceof UsageError) error.message = `${error.message} (see roomctl ${name} --help)`;
    throw error;
  }
}

/** One line, no control characters: what an error may print. */
const oneLine = (text: string) =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced.
  text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ").trim();

// `roomctl watch | head` closes the pipe early: that ends the command, it is not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
});

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    // parseArgs errors of `hook install` are usage errors too.
    const parseError = String((error as { code?: unknown })?.code ?? "").startsWith("ERR_PARSE_ARGS");
    const shown = parseError ? asUsageError(error) : error;
    const message = shown instanceof Error ? shown.message : String(shown);
    process.stderr.write(`roomctl: ${oneLine(message)}\n`);
    process.exit(shown instanceof UsageError ? 2 : 1);
  },
);
