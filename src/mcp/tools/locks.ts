/** Lock tools (spec §3, 3 tools): non-blocking, expiring, fenced. The resource "plan" guards plan writes. */
import { z } from "zod";
import { LIMITS } from "../../protocol/limits.ts";
import { actingAgent, scope } from "../identity.ts";
import { agentId, roomId } from "../schemas.ts";
import { defineTool } from "../tool.ts";

const resource = z
  .string()
  .min(1)
  .max(LIMITS.resourceMax)
  .describe('Any name, e.g. "src/auth.ts" or "plan".');

export const lockTools = [
  defineTool({
    name: "acquire_lock",
    description:
      'Try to take a lock; never waits. Returns acquired=false with the real holder when someone else has it. Acquire again to renew (only the holder can extend it). fence grows every time the resource changes hands: pass it along to detect stale holders. While you hold "plan", other agents\' plan writes fail fast.',
    input: z.strictObject({
      roomId,
      resource,
      agentId,
      ttlSeconds: z
        .number()
        .int()
        .min(1)
        .max(LIMITS.lockTtlMaxSeconds)
        .optional()
        .describe("Default 30, max 300."),
    }),
    output: z.object({
      acquired: z.boolean(),
      resource: z.string(),
      holder: z.string(),
      expiresAt: z.string(),
      fence: z.number().int(),
    }),
    handler: (a, ctx) =>
      ctx.store.acquireLock(
        scope(ctx, a.roomId),
        a.resource,
        actingAgent(ctx, a.agentId),
        (a.ttlSeconds ?? LIMITS.lockTtlDefaultSeconds) * 1000,
      ),
  }),
  defineTool({
    name: "release_lock",
    description: "Release a lock you hold. released=false when you are not the holder (nothing changes).",
    input: z.strictObject({ roomId, resource, agentId }),
    output: z.object({ released: z.boolean() }),
    handler: async (a, ctx) => ({
      released: await ctx.store.releaseLock(scope(ctx, a.roomId), a.resource, actingAgent(ctx, a.agentId)),
    }),
  }),
  defineTool({
    name: "list_locks",
    description: "Live locks in the room: resource, owner, expiry and fence.",
    input: z.strictObject({ roomId }),
    annotations: { readOnlyHint: true },
    handler: (a, ctx) => ctx.store.listLocks(scope(ctx, a.roomId)),
  }),
];
