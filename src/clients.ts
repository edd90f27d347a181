/**
 * Ready-to-paste configuration for the MCP clients roomd supports, plus the instructions block an agent needs.
 * No snippet carries a secret: each agent gets its own key, bound to its agent id, minted with the operator key
 * (which stays with the person), and every snippet reads it from the environment variable ROOMD_KEY, using the
 * expansion syntax its client documents. The files they go in can then be committed.
 */

/**
 * The tool profile roomd prints wherever it tells a person how to connect an agent (start banner, README,
 * dashboard, roomctl): lean, and enough for every step of the printed instructions. `?profile=full` lists every
 * tool (docs/profiles.md; test/instructions.test.ts holds it to its budget and to the instructions).
 */
export const PRINTED_PROFILE = "compact";

/** The environment variable every snippet reads the agent's key from. */
export const KEY_ENV = "ROOMD_KEY";

export interface ConnectInfo {
  /** Base URL, e.g. http://localhost:3000 */
  url: string;
  roomId: string;
  /** A shell expression giving the operator key, e.g. `$(cat data/operator.key)`; never the key itself. */
  operatorKey: string;
  /** The agent id the key is bound to (a placeholder by default). */
  agentId?: string;
}

const AGENT_PLACEHOLDER = "<agent-id>";

/**
 * The MCP URL every snippet configures: the printed profile (lean, and enough for every step of the instructions);
 * `?profile=full` lists every tool.
 */
export const mcpUrl = ({ url }: ConnectInfo): string => `${url}/mcp?profile=${PRINTED_PROFILE}`;
const agentOf = (info: ConnectInfo) => info.agentId ?? AGENT_PLACEHOLDER;

/** Mints one key bound to the agent, with the operator key; the answer's `secret` is the agent's ROOMD_KEY. */
export function mintKeyCommand(info: ConnectInfo): string {
  const body = JSON.stringify({ boundAgentId: agentOf(info) });
  return `curl -s -X POST ${info.url}/admin/keys -H "Authorization: Bearer ${info.operatorKey}" -d '${body}'`;
}

/** Where the minted secret goes: the agent's environment, never a file that gets committed. */
export function keyExport(): string {
  return `export ${KEY_ENV}=<the "secret" from that answer>`;
}

/** Writes the project's .mcp.json (the same as claudeCodeJson); the URL is quoted (a shell would glob its `?`), single quotes keep `${ROOMD_KEY}` unexpanded. */
export function claudeCodeCommand(info: ConnectInfo): string {
  return `claude mcp add --transport http roomd "${mcpUrl(info)}" --scope project --header 'Authorization: Bearer \${${KEY_ENV}}'`;
}

/** Claude Code expands `${VAR}` in the headers of .mcp.json. */
export function claudeCodeJson(info: ConnectInfo): string {
  const headers = { Authorization: `Bearer \${${KEY_ENV}}` };
  return JSON.stringify({ mcpServers: { roomd: { type: "http", url: mcpUrl(info), headers } } }, null, 2);
}

/** Cursor expands `${env:VAR}` in mcp.json (command, args, env, url and headers). */
export function cursorJson(info: ConnectInfo): string {
  const headers = { Authorization: `Bearer \${env:${KEY_ENV}}` };
  return JSON.stringify({ mcpServers: { roomd: { url: mcpUrl(info), headers } } }, null, 2);
}

/** Codex reads the bearer from the variable it names. */
export function codexToml(info: ConnectInfo): string {
  return `[mcp_servers.roomd]\nurl = ${JSON.stringify(mcpUrl(info))}\nbearer_token_env_var = "${KEY_ENV}"`;
}

/** Gemini CLI expands `$VAR` and `${VAR}` in every string of settings.json. */
export function geminiJson(info: ConnectInfo): string {
  const headers = { Authorization: `Bearer \${${KEY_ENV}}` };
  return JSON.stringify({ mcpServers: { roomd: { httpUrl: mcpUrl(info), headers } } }, null, 2);
}

/** The steps of the printed instructions in the printed profile (compact), each naming the tool it uses. */
const COMPACT_STEPS = [
  "- Start every session with `summary`: people's messages to you first, then your tasks, unread events, new context and who is online.",
  "- Pick work with `plan` (`ready: true` lists what you can take now) and take it with `claim`: exactly one agent gets a task; if you are told another agent owns it, pick another. Your calls keep the task's lease alive; when you go silent the task returns to the plan.",
  "- Before editing files, claim them with `files` (`action: claim`, paths or globs such as `src/auth/**`). On conflicts, edit something else or ask the holder; never edit files another agent holds. `action: release` when you are done with them; `action: check` before you commit.",
  "- Report progress and finish a task with `update` (`status: done`, with a note). `lock` guards anything else shared for a while (acquire, release).",
  "- Publish API contracts and decisions with `context_write`, listing the agents that depend on them in `consuming_agents`; read entries with `context_read`.",
  "- Ask another agent for a change with a `change_request` entry (`context_write`), not an event.",
  "- Between turns, call `wait`: it returns what arrived for you at once, or as soon as something comes. `post` tells others something (e.g. that you are blocked).",
  "- People in the room come first: their messages lead `summary`; follow a steer from the room's driver.",
  "- Before a step a person must approve (a deploy, a migration, deleting data), `ask` with the action, and go on only once it is approved.",
  "- To hand your work to another agent, `handoff` with `action: offer`, the tasks and a note on where things stand; an offer made to you is taken with `action: accept`.",
  "- When you stop, call `leave`: your tasks, file claims and locks go back at once.",
];

/** The same steps with the full profile's tools (for clients configured with `?profile=full`). */
const FULL_STEPS = [
  "- Start every session with `get_my_summary` (your tasks, unread events, new context, who is online).",
  "- Pick work with `get_unblocked_tasks` and take it with `claim_task`: exactly one agent gets a task; if you are told another agent owns it, pick another. Your calls keep the task's lease alive (`renew_lease` when you have nothing else to call); when you go silent the task returns to the plan.",
  "- Before editing files, claim them with `claim_files` (paths or globs such as `src/auth/**`). On conflicts, edit something else or ask the holder; never edit files another agent holds. `release_files` when you are done with them; `check_files` before you commit.",
  "- Finish a task with `update_task` (status done, with a note).",
  "- Publish API contracts and decisions with `write_context`, listing the agents that depend on them in `consuming_agents`.",
  "- Ask another agent for a change with a `change_request` context entry (not an event).",
  "- Send `heartbeat` about every 60 s while working; consume events with one `get_unread_events` call per turn. When you are waiting for someone, call `wait_for_events` instead of polling: it returns as soon as something arrives for you.",
  "- People in the room come first: their messages lead `get_my_summary` (`messages`); follow a steer from the room's driver.",
  "- Before a step a person must approve, `request_approval` and read the decision with `get_approval`.",
  "- To hand your work to another agent, `offer_handoff`; an offer made to you is taken with `accept_handoff`.",
  "- When you stop, call `leave_room`: the tasks you claimed with `claim_task`, your file claims and your locks go back at once.",
];

/**
 * The instructions block for an agent's CLAUDE.md / AGENTS.md, naming the tools of the profile its snippet
 * configures (the printed one unless told; test/instructions.test.ts checks every named tool is listed there).
 */
export function agentInstructions(
  { roomId, agentId }: ConnectInfo,
  profile: "compact" | "full" = PRINTED_PROFILE,
): string {
  const identity = agentId
    ? `Your agentId: \`${agentId}\` (your roomd key, \`${KEY_ENV}\`, is bound to it); use it in every roomd call.`
    : `Your agentId: the one your roomd key (\`${KEY_ENV}\`) is bound to, such as \`backend-claude\`; use it in every roomd call.`;
  return [
    "## Coordination (roomd)",
    `- Room: \`${roomId}\`. ${identity}`,
    ...(profile === "compact" ? COMPACT_STEPS : FULL_STEPS),
  ].join("\n");
}

/** Everything printed at start-up after the operator key, as one block of text. */
export function connectBlock(info: ConnectInfo): string {
  return [
    `Give each agent its own key, bound to its agent id (the operator key is yours, not your agents'):\n\n  ${mintKeyCommand(info)}\n\n  and put the secret it returns in that agent's environment, not in a file you commit:\n\n  ${keyExport()}`,
    `Then connect the agent; every snippet reads the key from ${KEY_ENV}.`,
    `Claude Code:\n  ${claudeCodeCommand(info)}\n  or .mcp.json:\n${indent(claudeCodeJson(info))}`,
    `Cursor (~/.cursor/mcp.json or .cursor/mcp.json):\n${indent(cursorJson(info))}`,
    `Codex CLI (~/.codex/config.toml):\n${indent(codexToml(info))}`,
    `Gemini CLI (.gemini/settings.json):\n${indent(geminiJson(info))}`,
    `Agent instructions (AGENTS.md / CLAUDE.md):\n${indent(agentInstructions(info))}`,
  ].join("\n\n");
}

const indent = (text: string) => text.replace(/^/gm, "  ");
