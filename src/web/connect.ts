/**
 * `GET /dashboard/connect?roomId=&agentId=` — the dashboard's connect panel (docs/web.md): for one room and agent,
 * the client configuration of Claude Code, Cursor, Codex and Gemini CLI (src/clients.ts, the same text roomd prints at
 * first start), the agent instructions block, and the Claude Code hooks block of the bridge (`roomctl hook install`).
 * No snippet holds a secret: each reads the agent's key from ROOMD_KEY. A person of the team only (no invite).
 */
import { Hono } from "hono";
import { hooksBlock } from "../cli/hook-install.ts";
import {
  agentInstructions,
  claudeCodeCommand,
  claudeCodeJson,
  codexToml,
  cursorJson,
  geminiJson,
  KEY_ENV,
} from "../clients.ts";
import { checkBearer } from "../http/auth.ts";
import { ownOrigin } from "../http/origin.ts";
import { RoomError } from "../protocol/errors.ts";
import { AGENT_ID, isRoomId } from "../protocol/ids.ts";
import type { WebDeps } from "./shared.ts";

export function connectRoutes(deps: WebDeps): Hono {
  const app = new Hono();
  app.get("/dashboard/connect", async (c) => {
    const admitted = await checkBearer(c, deps, "meta");
    if ("failure" in admitted) return admitted.failure;
    const { principal } = admitted;
    if (principal.humanId === undefined || principal.kind === "invite")
      throw new RoomError("forbidden", "Only a person of the team can see the connect panel");
    const roomId = c.req.query("roomId") ?? "";
    const agentId = c.req.query("agentId") ?? "";
    if (!isRoomId(roomId)) throw new RoomError("invalid", "Invalid arguments: roomId: must be a room id");
    if (!AGENT_ID.test(agentId) || agentId.startsWith("human:"))
      throw new RoomError(
        "invalid",
        "Invalid arguments: agentId: must be 1-64 chars of A-Z, a-z, 0-9, _ . : -",
      );
    const url = ownOrigin(c.req.raw)?.origin ?? new URL(c.req.url).origin;
    const info = { url, roomId, agentId, operatorKey: "" };
    const env = [`ROOMD_URL=${url}`, `${KEY_ENV}=<the agent's key>`, `ROOMD_ROOM=${roomId}`];
    return c.json({
      roomId,
      agentId,
      keyEnv: KEY_ENV,
      clients: [
        {
          name: "Claude Code",
          file: "command, or .mcp.json",
          text: `${claudeCodeCommand(info)}\n\n${claudeCodeJson(info)}`,
        },
        { name: "Cursor", file: "~/.cursor/mcp.json or .cursor/mcp.json", text: cursorJson(info) },
        { name: "Codex CLI", file: "~/.codex/config.toml", text: codexToml(info) },
        { name: "Gemini CLI", file: ".gemini/settings.json", text: geminiJson(info) },
      ],
      instructions: agentInstructions(info),
      hooks: {
        file: ".claude/settings.json",
        text: JSON.stringify({ hooks: hooksBlock("roomctl") }, null, 2),
        env: env.join("\n"),
      },
    });
  });
  return app;
}
