/**
 * The room resources' URIs: `roomd://rooms/{roomId}/…`, one template per kind. Parsing is strict (every part must
 * have its identifier's shape), so a malformed URI reads exactly like a missing resource.
 */
import { isRoomId } from "../../protocol/ids.ts";

export type RoomResource =
  | { kind: "summary"; roomId: string }
  | { kind: "plan"; roomId: string }
  | { kind: "task"; roomId: string; taskId: string }
  | { kind: "context"; roomId: string; contextId: string }
  | { kind: "version"; roomId: string; contextId: string; version: string }
  | { kind: "events"; roomId: string }
  | { kind: "agent-tasks"; roomId: string; agentId: string };

export const ROOM_URI_PREFIX = "roomd://rooms/";

/** Each kind's template (RFC 6570 level 1) and what it is, in the order resources/templates/list gives them. */
export const ROOM_TEMPLATES = [
  {
    kind: "summary",
    uriTemplate: "roomd://rooms/{roomId}/summary",
    name: "room-summary",
    title: "Room summary",
    description:
      "What a room holds without reading it: task counts by status, context entries, events, agents, driver.",
  },
  {
    kind: "plan",
    uriTemplate: "roomd://rooms/{roomId}/plan",
    name: "room-plan",
    title: "Room plan",
    description:
      "The room's whole plan: every task with status, owner, dependencies and version, in plan order.",
  },
  {
    kind: "task",
    uriTemplate: "roomd://rooms/{roomId}/tasks/{taskId}",
    name: "room-task",
    title: "One task",
    description: "One task of the room's plan.",
  },
  {
    kind: "context",
    uriTemplate: "roomd://rooms/{roomId}/context/{contextId}",
    name: "room-context",
    title: "Context entry",
    description: "One context entry, its current version.",
  },
  {
    kind: "version",
    uriTemplate: "roomd://rooms/{roomId}/context/{contextId}/versions/{version}",
    name: "room-context-version",
    title: "Context entry version",
    description: "One version of a context entry (e.g. 1.0, 1.1): it never changes once written.",
  },
  {
    kind: "events",
    uriTemplate: "roomd://rooms/{roomId}/events",
    name: "room-events",
    title: "Recent events",
    description: "The room's 50 most recent events, newest first (nothing is consumed).",
  },
  {
    kind: "agent-tasks",
    uriTemplate: "roomd://rooms/{roomId}/agents/{agentId}/tasks",
    name: "agent-tasks",
    title: "An agent's tasks",
    description: "The tasks one agent owns, in plan order.",
  },
] as const;

const RECORD = /^[A-Za-z0-9_.:-]{1,100}$/;
const AGENT = /^[A-Za-z0-9_.:-]{1,64}$/;
const VERSION = /^\d{1,9}\.\d{1,9}$/;

/** The resource a URI names, or undefined for anything that is not exactly one of the templates filled in. */
export function parseRoomUri(uri: string): RoomResource | undefined {
  if (!uri.startsWith(ROOM_URI_PREFIX) || uri.length > 400) return undefined;
  const parts = uri.slice(ROOM_URI_PREFIX.length).split("/").map(decode);
  const [roomId, what, id, sub, version] = parts;
  if (roomId === undefined || !isRoomId(roomId) || parts.some((p) => p === undefined)) return undefined;
  const only = (n: number) => parts.length === n;
  if (what === "summary" && only(2)) return { kind: "summary", roomId };
  if (what === "plan" && only(2)) return { kind: "plan", roomId };
  if (what === "events" && only(2)) return { kind: "events", roomId };
  if (what === "tasks" && only(3) && RECORD.test(id ?? ""))
    return { kind: "task", roomId, taskId: id as string };
  if (what === "agents" && only(4) && sub === "tasks" && AGENT.test(id ?? ""))
    return { kind: "agent-tasks", roomId, agentId: id as string };
  if (what !== "context" || !RECORD.test(id ?? "")) return undefined;
  if (only(3)) return { kind: "context", roomId, contextId: id as string };
  if (only(5) && sub === "versions" && VERSION.test(version ?? ""))
    return { kind: "version", roomId, contextId: id as string, version: version as string };
  return undefined;
}

function decode(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

/** The URI of a resource (ids are URI-safe by their shapes, encoded anyway). */
export function roomUri(resource: RoomResource): string {
  const base = `${ROOM_URI_PREFIX}${encodeURIComponent(resource.roomId)}`;
  switch (resource.kind) {
    case "summary":
    case "plan":
    case "events":
      return `${base}/${resource.kind}`;
    case "task":
      return `${base}/tasks/${encodeURIComponent(resource.taskId)}`;
    case "agent-tasks":
      return `${base}/agents/${encodeURIComponent(resource.agentId)}/tasks`;
    case "context":
      return `${base}/context/${encodeURIComponent(resource.contextId)}`;
    case "version":
      return `${base}/context/${encodeURIComponent(resource.contextId)}/versions/${resource.version}`;
  }
}
