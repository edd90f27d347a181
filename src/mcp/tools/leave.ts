/** leave_room: say you are done with the room; your leases, file claims, locks and the wheel go back at once. */
import { z } from "zod";
import { missingRoomHint } from "../room-typo.ts";
import { actingAgentId, roomId } from "../schemas.ts";
import { defineTool } from "../tool.ts";

export const leaveShape = z.object({
  agentId: z.string(),
  roomExists: z.boolean().describe("false when the room has no state yet: nothing was recorded."),
  hint: z.string().optional(),
  released: z.object({
    tasks: z.array(z.string()).describe("Tasks whose lease you held: back to pending, unowned."),
    paths: z.array(z.string()).describe("File claims released."),
    locks: z.array(z.string()).describe("Locks released."),
  }),
});

export const leaveTools = [
  defineTool({
    name: "leave_room",
    title: "Leave the room",
    description:
      "Say you are leaving the room: your presence becomes left (until your next call), the tasks you claimed with claim_task go back to pending for others, and your file claims, locks and the room's wheel (if you drive it) are released, in one step. Call it when you stop working. Posts agent_left (and files_released when you held claims, driver_changed when you drove).",
    returns: "{agentId, roomExists, released: {tasks, paths, locks}}",
    input: z.strictObject({ roomId, agentId: actingAgentId }),
    output: leaveShape,
    effect: "write",
    idempotent: true,
    acting: ["agentId"],
    events: ["agent_left", "files_released", "driver_changed", "task_lease_expired", "files_claim_expired"],
    example: async (room) => {
      await room.call("claim_files", { agentId: "alice", paths: ["src/auth.ts"] });
      return { agentId: "alice" };
    },
    handler: async (a, call) => {
      const left = await call.store.leaveRoom(call.scope, a.agentId);
      return left.roomExists ? left : { ...left, hint: await missingRoomHint(a.roomId, call) };
    },
  }),
];
