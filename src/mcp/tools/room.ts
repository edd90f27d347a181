/** Room and identity tools (docs/people.md#room-info, `whoami`): what a room is, and who the calling key is. */
import { z } from "zod";
import { principalType } from "../../protocol/principal.ts";
import { TASK_STATUSES } from "../../protocol/records.ts";
import { roomId } from "../schemas.ts";
import { defineTool } from "../tool.ts";
import { driverShape } from "./people.ts";

const iso = z.string().describe("ISO 8601 time");

export const roomTools = [
  defineTool({
    name: "get_room_info",
    title: "Describe the room",
    description:
      "What a room is without reading it: counts of tasks (by status), context entries, events and agents, when it was created and last used, who drives it, and the room and seq it was forked from. A room with no state yet answers exists=false.",
    returns:
      "RoomInfo {roomId, exists, createdAt, lastActivity, taskCount, tasksByStatus, contextCount, eventCount, agentCount, driver, forkedFrom}",
    input: z.strictObject({ roomId }),
    output: z.object({
      roomId: z.string(),
      exists: z.boolean(),
      createdAt: iso.nullable(),
      lastActivity: iso.nullable(),
      taskCount: z.number().int(),
      tasksByStatus: z.object(Object.fromEntries(TASK_STATUSES.map((s) => [s, z.number().int()]))),
      contextCount: z.number().int(),
      eventCount: z.number().int(),
      agentCount: z.number().int(),
      driver: driverShape,
      forkedFrom: z.object({ roomId: z.string(), seq: z.number().int() }).nullable(),
    }),
    effect: "read",
    example: async () => ({}),
    handler: (_a, call) => call.store.roomInfo(call.scope),
  }),
  defineTool({
    name: "whoami",
    title: "Who am I",
    description:
      "Who the key you call with is: its team, its kind (operator, static, dynamic, invite, proxy, oauth), whether it is a person's or an agent's, what it is bound to (an agent id, an invite's one room) and its scope (the rooms it may use, read-only).",
    returns: "{teamId, kind, type, humanId?, keyId?, boundAgentId?, allowedRoomId?, rooms?, readOnly?}",
    input: z.strictObject({}),
    output: z.object({
      teamId: z.string(),
      kind: z.enum(["operator", "static", "dynamic", "invite", "proxy", "oauth"]),
      type: z.enum(["agent", "human"]),
      humanId: z.string().optional(),
      keyId: z.string().optional(),
      boundAgentId: z.string().optional(),
      allowedRoomId: z.string().optional(),
      rooms: z.array(z.string()).optional(),
      readOnly: z.boolean().optional(),
    }),
    effect: "read",
    room: false,
    roundTrips: 0,
    example: async () => ({}),
    handler: async (_a, call) => {
      const { teamId, kind, humanId, keyId, boundAgentId, allowedRoomId, rooms, readOnly } = call.principal;
      return {
        teamId,
        kind,
        type: principalType(call.principal),
        ...(humanId !== undefined ? { humanId } : {}),
        ...(keyId !== undefined ? { keyId } : {}),
        ...(boundAgentId !== undefined ? { boundAgentId } : {}),
        ...(allowedRoomId !== undefined ? { allowedRoomId } : {}),
        ...(rooms !== undefined ? { rooms: [...rooms] } : {}),
        ...(readOnly === true ? { readOnly } : {}),
      };
    },
  }),
];
