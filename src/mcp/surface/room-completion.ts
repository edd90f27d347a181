/**
 * completion/complete for the room resources' templates and the room prompts: room ids, agent ids, task ids,
 * context ids and context versions, from what the caller's key may read (each list comes from a read tool through
 * the one call path, so completion never shows what a read would refuse). A refused or failed read completes
 * nothing rather than failing the request: completion is a hint.
 */
import { defaultRoom } from "../../protocol/key-life.ts";
import { callTool } from "../call-path.ts";
import { callDeps } from "./room-resources.ts";
import { ROOM_TEMPLATES } from "./room-uris.ts";
import type { CompletionRequest, SurfaceCall } from "./types.ts";

/** What each completable argument holds, whatever it is called where it appears. */
type Kind = "room" | "agent" | "task" | "context" | "version";

const BY_NAME: Record<string, Kind> = {
  roomId: "room",
  room: "room",
  agentId: "agent",
  agent: "agent",
  taskId: "task",
  contextId: "context",
  version: "version",
};

const TEMPLATE_URIS: ReadonlySet<string> = new Set(ROOM_TEMPLATES.map((t) => t.uriTemplate));
const PROMPTS: ReadonlySet<string> = new Set(["join_room", "handoff"]);

async function read(call: SurfaceCall, tool: string, args: Record<string, unknown>): Promise<unknown> {
  const outcome = await callTool(call.catalog, tool, args, callDeps(call));
  if (outcome.result.isError) return undefined;
  return JSON.parse((outcome.result.content[0] as { text: string }).text);
}

const ids = (value: unknown, field: string): string[] =>
  Array.isArray(value) ? value.map((v) => String((v as Record<string, unknown>)[field])) : [];

async function candidates(call: SurfaceCall, kind: Kind, context: Record<string, string>): Promise<string[]> {
  if (kind === "room") {
    const listed = (await read(call, "list_rooms", {})) as { rooms?: { roomId: string }[] } | undefined;
    return ids(listed?.rooms, "roomId");
  }
  const roomId = context.roomId ?? context.room ?? call.context?.roomId ?? defaultRoom(call.principal);
  if (roomId === undefined) return [];
  if (kind === "agent") return ids(await read(call, "get_presence", { roomId }), "agentId");
  if (kind === "task") {
    const plan = (await read(call, "read_plan", { roomId })) as { tasks?: unknown[] } | undefined;
    return ids(plan?.tasks, "id");
  }
  if (kind === "context") return ids(await read(call, "list_context", { roomId }), "id");
  const contextId = context.contextId;
  if (contextId === undefined) return [];
  const history = (await read(call, "get_context_history", { roomId, id: contextId })) as
    | { versions?: unknown[] }
    | undefined;
  return ids(history?.versions, "version");
}

/** Completion values (at most 100) for one argument; [] for anything roomd does not complete. */
export async function completeRoomArgument(call: SurfaceCall, request: CompletionRequest): Promise<string[]> {
  const { ref, argument } = request;
  const known = ref.type === "ref/prompt" ? PROMPTS.has(ref.name) : TEMPLATE_URIS.has(ref.uri);
  const kind = BY_NAME[argument.name];
  if (!known || kind === undefined) return [];
  const values = await candidates(call, kind, request.context ?? {});
  return [...new Set(values)].filter((v) => v.startsWith(argument.value));
}
