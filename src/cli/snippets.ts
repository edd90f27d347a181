/**
 * `roomctl snippets <room> --agent X [--client …]`: everything an agent needs to join a room — its environment,
 * its MCP client's configuration, the instructions block for AGENTS.md / CLAUDE.md and (Claude Code) the bridge's
 * hooks block. The texts are the ones roomd prints at start-up (src/clients.ts) and `roomctl hook install` writes
 * (hook-install.ts); none carries a secret: every client reads the key from ROOMD_KEY. Needs only the server URL.
 */
import {
  agentInstructions,
  type ConnectInfo,
  claudeCodeCommand,
  claudeCodeJson,
  codexToml,
  cursorJson,
  geminiJson,
  KEY_ENV,
} from "../clients.ts";
import { AGENT_ID } from "../protocol/ids.ts";
import { resolveUrl } from "./credentials.ts";
import { hooksBlock } from "./hook-install.ts";
import { type Command, noMore, roomArg, str, UsageError } from "./kit.ts";
import { out, paint, printJson } from "./output.ts";

const CLIENTS = ["claude", "cursor", "codex", "gemini"] as const;
type Client = (typeof CLIENTS)[number];

interface ClientSnippet {
  client: Client;
  /** Where the configuration goes. */
  file: string;
  /** The file's content (JSON or TOML text). */
  config: string;
  /** A command that writes it instead, where the client has one. */
  command?: string;
}

function clientSnippet(client: Client, info: ConnectInfo): ClientSnippet {
  switch (client) {
    case "claude":
      return { client, file: ".mcp.json", config: claudeCodeJson(info), command: claudeCodeCommand(info) };
    case "cursor":
      return { client, file: ".cursor/mcp.json (or ~/.cursor/mcp.json)", config: cursorJson(info) };
    case "codex":
      return { client, file: "~/.codex/config.toml", config: codexToml(info) };
    case "gemini":
      return { client, file: ".gemini/settings.json", config: geminiJson(info) };
  }
}

const NAMES: Record<Client, string> = {
  claude: "Claude Code",
  cursor: "Cursor",
  codex: "Codex CLI",
  gemini: "Gemini CLI",
};

const indent = (text: string) => text.replace(/^/gm, "  ");

export const snippets: Command = {
  name: "snippets",
  summary: "an agent's client configuration, instructions and hooks block",
  help: `usage: roomctl snippets <room> --agent X [--client ${CLIENTS.join("|")}] [--command roomctl] [--json]

Prints what agent X needs to join the room: the environment (${KEY_ENV} = its own key,
bound to X: roomctl keys create --agent X), the MCP configuration of its client (all
four without --client), the instructions block for AGENTS.md / CLAUDE.md, and for
Claude Code the hooks block of the bridge (roomctl hook install --write writes it).
No snippet holds a secret. --command is how the hooks call roomctl (default roomctl).

examples:
  roomctl snippets my-project --agent backend --client claude
  roomctl snippets my-project --agent backend --client codex --json | jq -r '.clients[0].config'`,
  options: {
    agent: { type: "string" },
    client: { type: "string" },
    command: { type: "string" },
    json: { type: "boolean" },
  },
  run({ values, positionals }) {
    const roomId = roomArg(positionals);
    noMore(positionals, 1);
    const agentId = str(values, "agent");
    if (agentId === undefined)
      throw new UsageError("missing --agent <agent-id> (the agent the snippets are for)");
    if (!AGENT_ID.test(agentId) || agentId.startsWith("human:"))
      throw new UsageError("--agent must be an agent id (1-64 chars of A-Z, a-z, 0-9, _ . : -)");
    const only = str(values, "client");
    if (only !== undefined && !(CLIENTS as readonly string[]).includes(only))
      throw new UsageError(`--client must be one of ${CLIENTS.join(", ")}`);
    const command = str(values, "command") ?? "roomctl";
    const url = resolveUrl();
    const info: ConnectInfo = { url, roomId, agentId, operatorKey: "" };
    const clients = (only ? [only as Client] : [...CLIENTS]).map((c) => clientSnippet(c, info));
    const env = {
      ROOMD_URL: url,
      ROOMD_ROOM: roomId,
      [KEY_ENV]: `<the secret of: roomctl keys create --agent ${agentId}>`,
    };
    const hooks = clients.some((c) => c.client === "claude") ? { hooks: hooksBlock(command) } : null;
    const instructions = agentInstructions(info);
    if (values.json) {
      printJson({ url, roomId, agentId, env, clients, instructions, hooks });
      return 0;
    }
    const heading = (text: string) => paint("bold", text);
    const parts = [
      heading(`Environment of agent ${agentId} (its shell or launcher; never a committed file):`),
      indent(
        Object.entries(env)
          .map(([k, v]) => `export ${k}=${k === KEY_ENV ? v : `'${v}'`}`)
          .join("\n"),
      ),
    ];
    for (const c of clients) {
      parts.push(heading(`${NAMES[c.client]}: ${c.file}`));
      if (c.command) parts.push(indent(`${c.command}\n# or write the file:`));
      parts.push(indent(c.config));
    }
    parts.push(heading("Instructions (AGENTS.md / CLAUDE.md):"), indent(instructions));
    if (hooks) {
      parts.push(
        heading(`Claude Code hooks (.claude/settings.json; or: ${command} hook install --write):`),
        indent(JSON.stringify(hooks, null, 2)),
      );
    }
    out(parts.join("\n\n"));
    return 0;
  },
};
