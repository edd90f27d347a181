/**
 * One test per client snippet (docs/security.md#network-exposure): each parses as its client reads it, points at the
 * server, reads the agent's key from ROOMD_KEY with the expansion syntax that client documents, and embeds no secret.
 */

import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  agentInstructions,
  claudeCodeCommand,
  claudeCodeJson,
  codexToml,
  connectBlock,
  cursorJson,
  geminiJson,
  KEY_ENV,
  keyExport,
  mintKeyCommand,
} from "../src/clients.ts";

const info = {
  url: "http://localhost:3000",
  roomId: "my-project",
  operatorKey: "$(cat 'data/operator.key')",
};

/** Anything shaped like a roomd secret (dynamic key, invite) or a literal bearer that is not a variable reference. */
function embeddedSecrets(text: string): string[] {
  const shaped = text.match(/\b(rk|ri)_[a-z0-9-]+_[A-Za-z0-9_-]{20,}/g) ?? [];
  const literalBearers = [...text.matchAll(/Bearer\s+([^\s"']+)/g)]
    .map((m) => m[1] as string)
    // The operator key is referenced as a shell command substitution, `$(cat <file>)`.
    .filter((value) => !/^\$\{(env:)?ROOMD_KEY\}$/.test(value) && value !== "$(cat");
  return [...shaped, ...literalBearers];
}

describe("client configuration snippets", () => {
  test(`Claude Code command keeps \${ROOMD_KEY} unexpanded for the project's .mcp.json`, () => {
    const command = claudeCodeCommand(info);
    expect(command).toBe(
      `claude mcp add --transport http roomd "http://localhost:3000/mcp?profile=compact" --scope project --header 'Authorization: Bearer \${ROOMD_KEY}'`,
    );
    // The header argument is single-quoted, so the shell passes the reference through literally.
    const header = /--header '([^']*)'/.exec(command)?.[1];
    expect(header).toBe(`Authorization: Bearer \${${KEY_ENV}}`);
    expect(embeddedSecrets(command)).toEqual([]);
  });

  test(`Claude Code .mcp.json reads the key with \${ROOMD_KEY}`, () => {
    const text = claudeCodeJson(info);
    expect(JSON.parse(text)).toEqual({
      mcpServers: {
        roomd: {
          type: "http",
          url: "http://localhost:3000/mcp?profile=compact",
          headers: { Authorization: `Bearer \${ROOMD_KEY}` },
        },
      },
    });
    expect(embeddedSecrets(text)).toEqual([]);
  });

  test(`Cursor mcp.json reads the key with \${env:ROOMD_KEY}`, () => {
    const text = cursorJson(info);
    expect(JSON.parse(text)).toEqual({
      mcpServers: {
        roomd: {
          url: "http://localhost:3000/mcp?profile=compact",
          headers: { Authorization: `Bearer \${env:ROOMD_KEY}` },
        },
      },
    });
    expect(embeddedSecrets(text)).toEqual([]);
  });

  test("Codex config.toml names ROOMD_KEY in bearer_token_env_var", () => {
    const text = codexToml(info);
    const toml = Bun.TOML.parse(text) as Record<string, any>;
    expect(toml.mcp_servers.roomd).toEqual({
      url: "http://localhost:3000/mcp?profile=compact",
      bearer_token_env_var: "ROOMD_KEY",
    });
    expect(embeddedSecrets(text)).toEqual([]);
  });

  test(`Gemini CLI settings.json reads the key with \${ROOMD_KEY}`, () => {
    const text = geminiJson(info);
    expect(JSON.parse(text)).toEqual({
      mcpServers: {
        roomd: {
          httpUrl: "http://localhost:3000/mcp?profile=compact",
          headers: { Authorization: `Bearer \${ROOMD_KEY}` },
        },
      },
    });
    expect(embeddedSecrets(text)).toEqual([]);
  });

  test("each agent's key is minted bound to its agent id with the operator key, then exported", () => {
    const command = mintKeyCommand({ ...info, agentId: "backend-claude" });
    expect(command).toBe(
      `curl -s -X POST http://localhost:3000/admin/keys -H "Authorization: Bearer $(cat 'data/operator.key')" -d '{"boundAgentId":"backend-claude"}'`,
    );
    const body = /-d '([^']*)'/.exec(command)?.[1] ?? "";
    expect(JSON.parse(body)).toEqual({ boundAgentId: "backend-claude" });
    expect(JSON.parse(/-d '([^']*)'/.exec(mintKeyCommand(info))?.[1] ?? "")).toEqual({
      boundAgentId: "<agent-id>",
    });
    expect(keyExport()).toStartWith("export ROOMD_KEY=");
    expect(embeddedSecrets(command)).toEqual([]);
  });

  test("the whole printed block embeds no secret and names the operator key as the person's", () => {
    const block = connectBlock(info);
    expect(embeddedSecrets(block)).toEqual([]);
    expect(block).toContain("/admin/keys");
    expect(block).toContain("boundAgentId");
    expect(block).toContain("export ROOMD_KEY=");
    expect(block).toContain("the operator key is yours, not your agents'");
  });

  test("the claiming-work guide and the README show exactly the instructions block roomd prints", () => {
    for (const doc of [["docs", "guides", "claiming-work.md"], ["README.md"]]) {
      const text = readFileSync(join(import.meta.dir, "..", ...doc), "utf8");
      expect(text).toContain(agentInstructions({ ...info, roomId: "my-project" }));
    }
  });

  test("the secret detector finds a pasted key (so the checks above can fail)", () => {
    const pasted = claudeCodeJson(info).replace(`\${ROOMD_KEY}`, "rk_local_yfX-_u03eGVYhkX1xeuTcLnTk-U5DX");
    expect(embeddedSecrets(pasted).length).toBeGreaterThan(0);
    expect(embeddedSecrets('"Authorization": "Bearer my-long-static-secret"')).toEqual([
      "my-long-static-secret",
    ]);
  });

  test("agent instructions name the room and the working habits, with the printed profile's tools", () => {
    const text = agentInstructions(info);
    for (const needle of [
      "my-project",
      "ROOMD_KEY",
      "`summary`",
      "`plan`",
      "`claim`",
      "`files`",
      "`update`",
      "`context_write`",
      "`consuming_agents`",
      "change_request",
      "`wait`",
      "`ask`",
      "`handoff`",
      "`leave`",
    ]) {
      expect(text).toContain(needle);
    }
    const full = agentInstructions(info, "full");
    for (const needle of ["get_my_summary", "claim_task", "claim_files", "consuming_agents", "leave_room"])
      expect(full).toContain(needle);
  });
});
