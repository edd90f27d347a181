/** Lock tools (3): non-blocking, expiring, fenced. The resource "plan" guards plan writes. */
import { z } from "zod";
import { LIMITS } from "../../protocol/limits.ts";
import { FIELDS } from "../../protocol/record-fields.ts";
import { actingAgentId, roomId } from "../schemas.ts";
import { defineTool } from "../tool.ts";

const resource = FIELDS.lockResource.describe(
  'What the lock guards: any name, e.g. "src/auth.ts" or "plan".',
);

export const lockTools = [
  defineTool({
    name: "acquire_lock",
    title: "Take a lock",
    description:
      'Try to take a lock; never waits. Returns acquired=false with the real holder when someone else has it. Acquire again to renew (only the holder can extend it). fence grows every time the resource changes hands: pass it along to detect stale holders. While you hold "plan", other agents\' plan writes fail fast.',
    returns: "{acquired, resource, holder, expiresAt, fence}",
    input: z.strictObject({
      roomId,
      resource,
      agentId: actingAgentId,
      ttlSeconds: z
        .number()
        .int()
        .min(1)
        .max(LIMITS.lockTtlMaxSeconds)
        .optional()
        .describe("Seconds until the lock expires unless renewed: default 30, max 300."),
    }),
    output: z.object({
      acquired: z.boolean(),
      resource: z.string(),
      holder: z.string(),
      expiresAt: z.string(),
      fence: z.number().int(),
    }),
    effect: "write",
    acting: ["agentId"],
    example: async () => ({ resource: "src/auth.ts", agentId: "alice", ttlSeconds: 60 }),
    handler: (a, call) =>
      call.store.acquireLock(
        call.scope,
        a.resource,
        a.agentId,
        (a.ttlSeconds ?? LIMITS.lockTtlDefaultSeconds) * 1000,
      ),
  }),
  defineTool({
    name: "release_lock",
    title: "Release a lock",
    description:
      "Release a lock you hold. released=false when you are not the holder (nothing changes); then holder and expiresAt say who holds it and until when.",
    returns: "{released, holder?, expiresAt?}",
    input: z.strictObject({ roomId, resource, agentId: actingAgentId }),
    output: z.object({
      released: z.boolean(),
      holder: z.string().optional().describe("Who holds the lock, when someone else does."),
      expiresAt: z.string().optional().describe("When their hold expires unless renewed."),
    }),
    effect: "write",
    idempotent: true,
    acting: ["agentId"],
    example: async (room) => {
      await room.call("acquire_lock", { resource: "src/auth.ts", agentId: "alice" });
      return { resource: "src/auth.ts", agentId: "alice" };
    },
    handler: (a, call) => call.store.releaseLock(call.scope, a.resource, a.agentId),
  }),
  defineTool({
    name: "list_locks",
    title: "List live locks",
    description: "Live locks in the room: resource, owner, expiry and fence.",
    returns: "Lock[] {resource, owner, expiresAt, fence}, by resource",
    input: z.strictObject({ roomId }),
    effect: "read",
    example: async (room) => {
      await room.call("acquire_lock", { resource: "src/auth.ts", agentId: "alice" });
      return {};
    },
    handler: (_a, call) => call.store.listLocks(call.scope),
  }),
];
