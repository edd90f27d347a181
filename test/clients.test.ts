/** One test per client snippet: each parses and points at the server with the key (spec clients.md). */
import { describe, expect, test } from "bun:test";
import {
  agentInstructions,
  claudeCodeCommand,
  claudeCodeJson,
  codexEnv,
  codexToml,
  cursorJson,
  geminiJson,
} from "../src/clients.ts";

const info = { url: "http://localhost:3000", key: "rmd_secret", roomId: "my-project" };
const auth = { Authorization: "Bearer rmd_secret" };

describe("client configuration snippets", () => {
  test("Claude Code command", () => {
    expect(claudeCodeCommand(info)).toBe(
      'claude mcp add --transport http roomd http://localhost:3000/mcp --header "Authorization: Bearer rmd_secret"',
    );
  });
  test("Claude Code .mcp.json", () => {
    expect(JSON.parse(claudeCodeJson(info))).toEqual({
      mcpServers: { roomd: { type: "http", url: "http://localhost:3000/mcp", headers: auth } },
    });
  });
  test("Cursor mcp.json", () => {
    expect(JSON.parse(cursorJson(info))).toEqual({
      mcpServers: { roomd: { url: "http://localhost:3000/mcp", headers: auth } },
    });
  });
  test("Codex config.toml", () => {
    const toml = Bun.TOML.parse(codexToml(info)) as Record<string, any>;
    expect(toml.mcp_servers.roomd).toEqual({
      url: "http://localhost:3000/mcp",
      bearer_token_env_var: "ROOMD_API_KEY",
    });
    expect(codexEnv(info)).toBe("export ROOMD_API_KEY=rmd_secret");
  });
  test("Gemini CLI settings.json", () => {
    expect(JSON.parse(geminiJson(info))).toEqual({
      mcpServers: { roomd: { httpUrl: "http://localhost:3000/mcp", headers: auth } },
    });
  });
  test("agent instructions name the room and the working habits", () => {
    const text = agentInstructions(info);
    for (const needle of [
      "my-project",
      "get_my_summary",
      "get_unblocked_tasks",
      "expectedVersion",
      "consuming_agents",
      "change_request",
      "heartbeat",
      "get_unread_events",
    ]) {
      expect(text).toContain(needle);
    }
  });
});
