/**
 * Rooms as MCP resources. Every read is the call of a read tool through the one call path (call-path.ts), so a
 * resource obeys exactly the tools' access rules: another team's room, an invite's other room and a missing
 * record all answer the same -32602 "Resource not found", a bound key reads only what it may.
 */
import { BOARD_RESOURCE, readBoardResource } from "../board/resource.ts";
import { BOARD_URI } from "../board/ui.ts";
import { type CallDeps, callTool } from "../call-path.ts";
import { parseRoomUri, type RoomResource, roomUri } from "./room-uris.ts";
import {
  type ListedResource,
  McpFailure,
  type ResourceContents,
  resourceNotFound,
  type SurfaceCall,
} from "./types.ts";

/** Rooms listed by resources/list per page (each gives its summary, plan and events). */
const ROOMS_PER_PAGE = 50;
/** Events the events resource shows. */
const RECENT_EVENTS = 50;

const JSON_TYPE = "application/json";

export const callDeps = (call: SurfaceCall): CallDeps => ({
  store: call.store,
  live: call.live,
  principal: call.principal,
  requestId: call.requestId,
  ...(call.signal ? { signal: call.signal } : {}),
  ...(call.context ? { context: call.context } : {}),
});

/** The read tool (and its arguments) behind a resource. */
function readOf(resource: RoomResource): { tool: string; args: Record<string, unknown> } {
  const { roomId } = resource;
  switch (resource.kind) {
    case "summary":
      return { tool: "get_room_info", args: { roomId } };
    case "plan":
      return { tool: "read_plan", args: { roomId } };
    case "task":
      return { tool: "get_task", args: { roomId, taskId: resource.taskId } };
    case "context":
      return { tool: "read_context", args: { roomId, id: resource.contextId } };
    case "version":
      return { tool: "get_context_history", args: { roomId, id: resource.contextId } };
    case "events":
      return { tool: "read_events", args: { roomId, limit: RECENT_EVENTS } };
    case "agent-tasks":
      return { tool: "get_my_tasks", args: { roomId, agentId: resource.agentId } };
  }
}

/**
 * Runs a read tool for a resource: its JSON answer, or the resource's -32602 when the tool refused (the refusal's
 * own words: they never say more than a tool's would). An unexpected failure is logged and answered generically.
 */
export async function readRoomJson(call: SurfaceCall, uri: string, resource: RoomResource): Promise<unknown> {
  const { tool, args } = readOf(resource);
  const outcome = await callTool(call.catalog, tool, args, callDeps(call));
  const text = (outcome.result.content[0] as { text?: string } | undefined)?.text ?? "";
  if (outcome.unexpected !== undefined) {
    call.logger.log("error", "resource read failed", {
      requestId: call.requestId,
      tool,
      error: String(outcome.unexpected),
    });
    throw new McpFailure(-32603, `Internal error (request ${call.requestId})`);
  }
  if (outcome.outcome === "store_unavailable") throw new McpFailure(-32603, text.replace(/^Error: /, ""));
  if (outcome.result.isError) throw resourceNotFound(uri, text.replace(/^Error: /, ""));
  return JSON.parse(text);
}

/** resources/read of a room resource, or of the room board's view (the same for every key). */
export async function readRoomResource(
  call: SurfaceCall,
  uri: string,
): Promise<{ contents: ResourceContents[] }> {
  if (uri === BOARD_URI) return readBoardResource();
  const resource = parseRoomUri(uri);
  if (!resource) throw resourceNotFound(uri);
  let value = await readRoomJson(call, uri, resource);
  if (resource.kind === "version") {
    const versions = (value as { versions: { version: string }[] }).versions;
    value = versions.find((v) => v.version === resource.version);
    if (value === undefined) throw resourceNotFound(uri, `Version ${resource.version} not found`);
  }
  return { contents: [{ uri, mimeType: JSON_TYPE, text: JSON.stringify(value) }] };
}

/**
 * resources/list: the room board's view (board/ui.ts) first, then the summary, plan and events of each room the
 * key may use (an invite: its one room), oldest room first, ROOMS_PER_PAGE rooms a page; the cursor is the index
 * of the next room.
 */
export async function listRoomResources(
  call: SurfaceCall,
  cursor?: string,
): Promise<{ resources: ListedResource[]; nextCursor?: string }> {
  const start = cursor === undefined ? 0 : Number(cursor);
  if (!Number.isSafeInteger(start) || start < 0 || (cursor !== undefined && !/^\d{1,9}$/.test(cursor)))
    throw new McpFailure(-32602, "Invalid params: cursor: not one this server gave");
  const outcome = await callTool(call.catalog, "list_rooms", {}, callDeps(call));
  if (outcome.result.isError) throw new McpFailure(-32603, "Could not list rooms; retry shortly");
  const { rooms } = JSON.parse((outcome.result.content[0] as { text: string }).text) as {
    rooms: { roomId: string }[];
  };
  const page = rooms.slice(start, start + ROOMS_PER_PAGE);
  const resources = page.flatMap(({ roomId }) => [
    listed({ kind: "summary", roomId }, `${roomId}: summary`),
    listed({ kind: "plan", roomId }, `${roomId}: plan`),
    listed({ kind: "events", roomId }, `${roomId}: recent events`),
  ]);
  // The board's view heads the first page: MCP Apps hosts find (and may fetch ahead) the UI resources here.
  if (start === 0) resources.unshift({ ...BOARD_RESOURCE });
  const next = start + ROOMS_PER_PAGE;
  return next < rooms.length ? { resources, nextCursor: String(next) } : { resources };
}

const listed = (resource: RoomResource, name: string): ListedResource => ({
  uri: roomUri(resource),
  name,
  mimeType: JSON_TYPE,
});

/**
 * Whether a room resource may be watched by this caller: reads it once (the same access rules as a read, the same
 * answer when it may not), then names its room.
 */
export async function watchableRoomResource(call: SurfaceCall, uri: string): Promise<{ roomId: string }> {
  const resource = parseRoomUri(uri);
  if (!resource) throw resourceNotFound(uri);
  await readRoomJson(call, uri, resource);
  return { roomId: resource.roomId };
}
