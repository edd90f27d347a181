/**
 * The agentroom profile (?profile=agentroom): exactly the five tools of the AgentRoom protocol — room_claim,
 * room_release, room_state, room_broadcast, room_read — over roomd's own store (file claims, the event log,
 * presence). The room and the agent are never arguments: the X-Roomd-Room / X-Roomd-Agent headers, an invite or a
 * bound key give them (context "context").
 */
import { z } from "zod";
import { agentIdSchema, roomIdSchema } from "../../protocol/ids.ts";
import { LIMITS } from "../../protocol/limits.ts";
import { line, stripControls } from "../../protocol/validation.ts";
import { defineTool, type Profile } from "../tool.ts";
import { claimPath } from "./claims.ts";

const AGENTROOM: readonly Profile[] = ["agentroom"];
/** Filled from the request's context, never sent by the client (not in the published schema). */
const hidden = {
  roomId: roomIdSchema.describe("The room, from the X-Roomd-Room header or the invite."),
  agentId: agentIdSchema.describe("Your agent, from the X-Roomd-Agent header or your key."),
};
const common = { context: "context", profiles: AGENTROOM, terse: true, acting: ["agentId"] } as const;
const path = claimPath.describe("A file path (or glob: src/*.ts, src/**), relative to the repository root.");

export const agentroomTools = [
  defineTool({
    ...common,
    name: "room_claim",
    title: "Claim a file",
    description:
      "Claim a file before you create or edit it. claimed=false means another agent holds it (heldBy): pick another file.",
    returns: "{claimed, path, expiresAt} or {claimed: false, path, heldBy, pattern, expiresAt}",
    input: z.strictObject({ ...hidden, path }),
    effect: "write",
    events: ["files_claimed"],
    example: async () => ({ path: "src/auth.ts" }),
    handler: async (a, call) => {
      const result = await call.store.claimFiles(call.scope, {
        agentId: a.agentId,
        paths: [a.path],
        ttlMs: LIMITS.claimTtlDefaultSeconds * 1000,
      });
      const conflict = result.conflicts[0];
      if (conflict) return { claimed: false, ...conflict };
      return { claimed: true, ...(result.claimed[0] as { path: string; expiresAt: string }) };
    },
  }),
  defineTool({
    ...common,
    name: "room_release",
    title: "Release a file",
    description:
      "Release a file you claimed (as you claimed it) once you are done with it, so others can take it.",
    returns: "{released, path}",
    input: z.strictObject({ ...hidden, path }),
    effect: "write",
    idempotent: true,
    events: ["files_released"],
    example: async (room) => {
      await room.call("claim_files", { agentId: "alice", paths: ["src/auth.ts"] });
      return { path: "src/auth.ts" };
    },
    handler: async (a, call) => {
      const { released } = await call.store.releaseFiles(call.scope, a.agentId, [a.path]);
      return { released: released.length > 0, path: a.path };
    },
  }),
  defineTool({
    ...common,
    name: "room_state",
    title: "Room state",
    description:
      "Read before you write: who holds which files, each agent's status, and the newest message's seq (room_read since it).",
    returns: "{claims: [{path, heldBy, expiresAt}], agents: [{agentId, status, statusText?}], lastSeq}",
    input: z.strictObject({ ...hidden }),
    effect: "read",
    example: async (room) => {
      await room.call("claim_files", { agentId: "bob", paths: ["src/db.ts"] });
      return {};
    },
    handler: async (_a, call) => {
      const state = await call.store.roomState(call.scope);
      return {
        claims: state.claims.map(({ path, heldBy, expiresAt }) => ({ path, heldBy, expiresAt })),
        agents: state.presence.map(({ agentId, status, statusText }) => ({
          agentId,
          status,
          ...(statusText === undefined ? {} : { statusText }),
        })),
        lastSeq: state.lastSeq,
      };
    },
  }),
  defineTool({
    ...common,
    name: "room_broadcast",
    title: "Broadcast",
    description:
      "Tell every agent something (what you claim, what is done, what you need); status sets your status line.",
    returns: "Event (type broadcast)",
    input: z.strictObject({
      ...hidden,
      message: z.string().min(1).max(LIMITS.broadcastMax).describe("The message."),
      status: line(0, LIMITS.presenceStatusMax).optional().describe("Your status, e.g. working or done."),
    }),
    effect: "write",
    events: ["broadcast"],
    example: async () => ({ message: "CLAIMING src/auth.ts", status: "working" }),
    handler: (a, call) =>
      call.store.broadcast(call.scope, {
        agentId: a.agentId,
        message: a.message,
        ...(a.status === undefined ? {} : { status: stripControls(a.status) }),
      }),
  }),
  defineTool({
    ...common,
    name: "room_read",
    title: "Read messages",
    description:
      "Messages and room events you have not read yet, oldest first (each once); since=<seq> re-reads what came after it. trimmedBefore: older events were trimmed by the room's retention.",
    returns:
      "{events (oldest first), remaining} or, with since, {events, more} (+ trimmedBefore when old events were trimmed)",
    input: z.strictObject({
      ...hidden,
      since: z.number().int().min(0).optional().describe("An event seq: read what came after it."),
    }),
    effect: "write",
    example: async (room) => {
      await room.call("post_event", { type: "broadcast", from: "bob", payload: { message: "hi" } });
      return {};
    },
    handler: async (a, call) => {
      if (a.since !== undefined) {
        // Seqs have no gaps, so the next page after `since` is the seq range (since, since + limit] — or, when
        // retention trimmed the events after `since`, the range after the last trimmed one.
        const limit = LIMITS.readEventsMax;
        const page = (after: number) => ({ sinceSeq: after, beforeSeq: after + limit + 1, limit });
        let list = await call.store.readEvents(call.readScope, page(a.since));
        const { trimmedBefore } = list;
        if (trimmedBefore !== undefined && list.length === 0 && a.since < trimmedBefore - 1) {
          list = await call.store.readEvents(call.readScope, page(trimmedBefore - 1));
        }
        const events = [...list].reverse();
        const trimmed = trimmedBefore === undefined ? {} : { trimmedBefore };
        return { events, more: events.length === limit, ...trimmed };
      }
      const batch = await call.store.consumeEvents(call.scope, a.agentId, LIMITS.unreadDefault);
      const trimmed = batch.trimmedBefore === undefined ? {} : { trimmedBefore: batch.trimmedBefore };
      return { events: batch.events, remaining: batch.remaining, ...trimmed };
    },
  }),
];
