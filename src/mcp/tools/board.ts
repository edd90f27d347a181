/**
 * The room board for chat clients (docs/people.md, "The room board in chat clients"): show_room_board, which MCP
 * Apps hosts render in the board's view (board/ui.ts) and every other client reads as text, and board_changes, the
 * view's poll — held open on the room's change feed, since hosts pass no server push on to a view.
 */
import { z } from "zod";
import { waitForChange } from "../../live/change-wait.ts";
import { boardShape } from "../board/shape.ts";
import { lookAtRoom, readBoard } from "../board/snapshot.ts";
import { boardText } from "../board/text.ts";
import { BOARD_APP_ONLY, BOARD_UI } from "../board/ui.ts";
import { roomId } from "../schemas.ts";
import { defineTool, Readable } from "../tool.ts";

/** How long the poll holds a call open at most, and by default, in seconds. */
export const BOARD_WAIT = { max: 10, default: 5 } as const;

export const boardTools = [
  defineTool({
    name: "show_room_board",
    title: "Show the room board",
    description:
      "Show the person the room at a glance: tasks with owners, dependencies and leases, who is here, file claims, the wheel, approvals waiting for a decision and recent events. Chat clients that render MCP Apps open the live board, where the person messages agents, approves or rejects and hands work over; others get the same as text.",
    returns:
      "The board as text, and as structuredContent {roomId, seq, viewer, driver, tasks, presence, claims, locks, approvals, handoffs, events, omitted?}",
    input: z.strictObject({ roomId }),
    output: boardShape,
    effect: "read",
    ui: BOARD_UI,
    roundTrips: 7,
    example: async () => ({}),
    handler: async (_a, call) => {
      const board = await readBoard(call, call.readScope);
      return new Readable(board, boardText(board));
    },
  }),
  defineTool({
    name: "board_changes",
    title: "Wait for the board to change",
    description: `The room board's poll: waits (up to waitSeconds) until the room changes after afterSeq and afterState — an event, or who is here, claims, locks, the wheel — then answers the board again; changed: false when nothing did.`,
    returns: "{changed, seq, board (when changed)}",
    input: z.strictObject({
      roomId,
      afterSeq: z.number().int().min(0).describe("The seq of the board shown now."),
      afterState: z
        .string()
        .regex(/^[0-9a-f]{16}$/, { error: "must be a board's state, as show_room_board returned it" })
        .optional()
        .describe("The state of the board shown now."),
      waitSeconds: z
        .number()
        .int()
        .min(0)
        .max(BOARD_WAIT.max)
        .optional()
        .describe(`Longest wait, 0-${BOARD_WAIT.max}; default ${BOARD_WAIT.default}.`),
    }),
    // The board's own shape is show_room_board's outputSchema: not repeated here, where only the board reads it.
    output: z.object({
      changed: z.boolean(),
      seq: z.number().int(),
      board: z
        .record(z.string(), z.unknown())
        .optional()
        .describe("When changed: the board, as show_room_board's structuredContent."),
    }),
    effect: "read",
    ui: BOARD_APP_ONLY,
    // The look at where the room stands; a change adds the board's seven reads.
    roundTrips: 3,
    example: async () => ({ afterSeq: 0, waitSeconds: 0 }),
    handler: async (a, call) => {
      const changed = await waitForChange({
        live: call.live,
        scope: call.readScope,
        afterSeq: a.afterSeq,
        changed: async () => {
          const now = await lookAtRoom(call.store, call.readScope);
          return now.seq !== a.afterSeq || (a.afterState !== undefined && now.state !== a.afterState);
        },
        timeoutMs: (a.waitSeconds ?? BOARD_WAIT.default) * 1000,
        ...(call.signal ? { signal: call.signal } : {}),
      });
      if (!changed)
        return new Readable({ changed, seq: a.afterSeq }, `No change after event #${a.afterSeq}.`);
      const board = await readBoard(call, call.readScope);
      return new Readable({ changed, seq: board.seq, board }, boardText(board));
    },
  }),
];
