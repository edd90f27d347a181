/**
 * The board's published shape (protocol/board.ts): the outputSchema of show_room_board and of the board's poll,
 * built from the record shapes the other tools publish.
 */
import { z } from "zod";
import { BOARD_LISTS } from "../../protocol/board.ts";
import { ROLES } from "../../protocol/roles.ts";
import { eventShape, presenceShape, taskShape } from "../schemas.ts";
import { approvalShape, driverShape, handoffShape } from "../tools/people.ts";

const iso = z.string().describe("ISO 8601 time");

export const boardShape = z.object({
  roomId: z.string(),
  seq: z.number().int().describe("The log's head when read: pass it to board_changes as afterSeq."),
  state: z.string().describe("Where the rest stands (who is here, claims, locks, the wheel): afterState."),
  viewer: z.object({
    person: z.string().nullable(),
    role: z.enum(ROLES).nullable(),
    operator: z.boolean(),
  }),
  driver: driverShape,
  tasks: z.array(taskShape.extend({ description: z.string().optional() })),
  presence: z.array(presenceShape),
  claims: z.array(
    z.object({
      path: z.string(),
      heldBy: z.string(),
      expiresAt: iso,
      claimedAt: iso,
      reason: z.string().optional(),
    }),
  ),
  locks: z.array(z.object({ resource: z.string(), owner: z.string(), expiresAt: iso, fence: z.number() })),
  approvals: z.array(approvalShape),
  handoffs: z.array(handoffShape),
  events: z.array(eventShape.omit({ read_by: true })),
  omitted: z
    .object(
      Object.fromEntries([...BOARD_LISTS, "descriptions"].map((list) => [list, z.number().int().optional()])),
    )
    .optional()
    .describe("How many items of each list (and how many task descriptions) the size limits left out."),
});
