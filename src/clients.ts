/**
 * Ready-to-paste configuration for the MCP clients roomd supports (spec clients.md), with the server URL and
 * key filled in, plus the instructions block an agent needs.
 */
export interface ConnectInfo {
  /** Base URL, e.g. http://localhost:3000 */
  url: string;
  /** Bearer secret, or a placeholder telling where to find it. */
  key: string;
  roomId: string;
}

export function claudeCodeCommand({ url, key }: ConnectInfo): string {
  return `claude mcp add --transport http roomd ${url}/mcp --header "Authorization: Bearer ${key}"`;
}

export function claudeCodeJson({ url, key }: ConnectInfo): string {
  const config = {
    mcpServers: { roomd: { type: "http", url: `${url}/mcp`, headers: { Authorization: `Bearer ${key}` } } },
  };
  return JSON.stringify(config, null, 2);
}

export function cursorJson({ url, key }: ConnectInfo): string {
  return JSON.stringify(
    { mcpServers: { roomd: { url: `${url}/mcp`, headers: { Authorization: `Bearer ${key}` } } } },
    null,
    2,
  );
}

export function codexToml({ url }: ConnectInfo): string {
  return `[mcp_servers.roomd]\nurl = ${JSON.stringify(`${url}/mcp`)}\nbearer_token_env_var = "ROOMD_API_KEY"`;
}

export function codexEnv({ key }: ConnectInfo): string {
  return `export ROOMD_API_KEY=${key}`;
}

export function geminiJson({ url, key }: ConnectInfo): string {
  return JSON.stringify(
    { mcpServers: { roomd: { httpUrl: `${url}/mcp`, headers: { Authorization: `Bearer ${key}` } } } },
    null,
    2,
  );
}

export function agentInstructions({ roomId }: ConnectInfo): string {
  return [
    "## Coordination (roomd)",
    `- Room: \`${roomId}\`. Your agentId: a unique name such as \`backend-claude\`; use it in every roomd call.`,
    "- Start every session with `get_my_summary` (your tasks, unread events, new context, who is online).",
    "- Pick work with `get_unblocked_tasks`; take a task with `update_task` (owner = you, status in_progress, expectedVersion = the version you read).",
    "- Publish API contracts and decisions with `write_context`, listing the agents that depend on them in `consuming_agents`.",
    "- Ask another agent for a change with a `change_request` context entry (not an event).",
    "- Send `heartbeat` about every 60 s while working; consume events with one `get_unread_events` call per turn.",
  ].join("\n");
}

/** Everything printed at start-up, as one block of text. */
export function connectBlock(info: ConnectInfo): string {
  return [
    `Claude Code:\n  ${claudeCodeCommand(info)}\n  or .mcp.json:\n${indent(claudeCodeJson(info))}`,
    `Cursor (~/.cursor/mcp.json or .cursor/mcp.json):\n${indent(cursorJson(info))}`,
    `Codex CLI (~/.codex/config.toml):\n${indent(codexToml(info))}\n  and in your shell:\n  ${codexEnv(info)}`,
    `Gemini CLI (.gemini/settings.json):\n${indent(geminiJson(info))}`,
    `Agent instructions (AGENTS.md / CLAUDE.md):\n${indent(agentInstructions(info))}`,
  ].join("\n\n");
}

const indent = (text: string) => text.replace(/^/gm, "  ");
