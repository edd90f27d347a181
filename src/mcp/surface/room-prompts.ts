/**
 * Prompts a client shows as slash commands. `join_room` starts an agent on a room in one step: the coordination
 * instructions roomd prints at first start, filled in, and the agent's current summary (get_my_summary, through
 * the one call path: the same access rules, and the same first call an agent makes). `handoff` drafts a handoff
 * note from what the agent holds: its tasks and the context entries it wrote.
 */

import { agentInstructions } from "../../clients.ts";
import { AGENT_ID, isRoomId } from "../../protocol/ids.ts";
import { defaultRoom } from "../../protocol/key-life.ts";
import { callTool } from "../call-path.ts";
import { callDeps } from "./room-resources.ts";
import { type ListedPrompt, McpFailure, type PromptMessage, type SurfaceCall } from "./types.ts";

export const ROOM_PROMPTS: readonly ListedPrompt[] = [
  {
    name: "join_room",
    title: "Join a roomd room",
    description:
      "Start working in a room: roomd's coordination instructions for this room and agent, and the agent's current summary (its tasks, unread events, new context, who is online).",
    arguments: [
      { name: "room", description: "Room id (2-64 chars of a-z, 0-9, _ and -).", required: true },
      {
        name: "agent",
        description: "Your agent id in the room (a bound key's agent if left out).",
        required: false,
      },
    ],
  },
  {
    name: "handoff",
    title: "Hand off my work",
    description:
      "Draft a handoff note: the tasks you own and the context entries you wrote, with what to do next, so another agent (or a person) can take over.",
    arguments: [
      { name: "room", description: "Room id.", required: true },
      { name: "agent", description: "Your agent id (a bound key's agent if left out).", required: false },
    ],
  },
];

const text = (value: string): PromptMessage => ({ role: "user", content: { type: "text", text: value } });

/** The room and agent a prompt is about: arguments, else the request's headers and key (as for tools). */
function roomAndAgent(call: SurfaceCall, args: Record<string, string>): { roomId: string; agentId: string } {
  const roomId = args.room?.trim() || call.context?.roomId || defaultRoom(call.principal);
  const agentId = args.agent?.trim() || call.context?.agentId || call.principal.boundAgentId;
  if (roomId === undefined || !isRoomId(roomId))
    throw new McpFailure(
      -32602,
      "Invalid params: arguments.room: a room id (2-64 chars of a-z, 0-9, _ and -)",
    );
  if (agentId === undefined || !AGENT_ID.test(agentId))
    throw new McpFailure(
      -32602,
      "Invalid params: arguments.agent: your agent id (1-64 chars of A-Z, a-z, 0-9, _ . : -)",
    );
  return { roomId, agentId };
}

/** A tool's JSON answer, or the prompt's -32602 carrying the tool's refusal. */
async function toolJson(call: SurfaceCall, tool: string, args: Record<string, unknown>): Promise<unknown> {
  const outcome = await callTool(call.catalog, tool, args, callDeps(call));
  const answer = (outcome.result.content[0] as { text?: string } | undefined)?.text ?? "";
  if (outcome.result.isError) throw new McpFailure(-32602, answer.replace(/^Error: /, ""));
  return JSON.parse(answer);
}

export async function getRoomPrompt(
  call: SurfaceCall,
  name: string,
  args: Record<string, string>,
): Promise<{ description: string; messages: PromptMessage[] }> {
  const prompt = ROOM_PROMPTS.find((p) => p.name === name);
  if (!prompt)
    throw new McpFailure(-32602, `Invalid params: unknown prompt ${name.slice(0, 100)}; see prompts/list`);
  const { roomId, agentId } = roomAndAgent(call, args);
  if (name === "join_room") {
    const summary = await toolJson(call, "get_my_summary", { roomId, agentId });
    return {
      description: `Join room ${roomId} as ${agentId}`,
      messages: [
        text(
          `${agentInstructions({ url: "", roomId, operatorKey: "", agentId })}\n\nYour current summary (get_my_summary):\n\n${JSON.stringify(summary, null, 2)}`,
        ),
      ],
    };
  }
  const tasks = (await toolJson(call, "get_my_tasks", { roomId, agentId })) as {
    id: string;
    title: string;
    status: string;
  }[];
  const entries = (await toolJson(call, "list_context", { roomId, author: agentId })) as {
    id: string;
    type: string;
    summary: string;
  }[];
  const open = tasks.filter((t) => t.status !== "done");
  const lines = [
    `Write a handoff note for room ${roomId}: you (${agentId}) are stopping, and another agent or a person takes over.`,
    "For each open task below say where it stands and what comes next; name the context entries they need; then offer the tasks with offer_handoff (or release them with leave_room).",
    "",
    `Open tasks you own (${open.length}):`,
    ...(open.length ? open.map((t) => `- ${t.id} [${t.status}] ${t.title}`) : ["- none"]),
    "",
    `Context entries you wrote (${entries.length}):`,
    ...(entries.length ? entries.map((e) => `- ${e.id} (${e.type}) ${e.summary}`) : ["- none"]),
  ];
  return { description: `Handoff note for ${agentId} in ${roomId}`, messages: [text(lines.join("\n"))] };
}
