/** File claim tools (4): who edits which files, all or nothing, expiring, renewed by the holder's calls. */
import { z } from "zod";
import { LIMITS } from "../../protocol/limits.ts";
import { normalisePath, PATH_MAX_CHARS } from "../../protocol/paths.ts";
import { FIELDS } from "../../protocol/record-fields.ts";
import { actingAgentId, otherAgentId, roomId } from "../schemas.ts";
import { defineTool } from "../tool.ts";

/** A repo-relative path or glob, normalised (protocol/paths.ts); refused with the rule it breaks. */
export const claimPath = z
  .string()
  .min(1)
  .max(PATH_MAX_CHARS * 2)
  .transform((input, ctx) => {
    const result = normalisePath(input);
    if ("error" in result) {
      ctx.addIssue({ code: "custom", message: result.error });
      return z.NEVER;
    }
    return result.path;
  });

const pathDescription =
  "Repo-relative path or glob: * within a segment, ** any depth, ? one character (e.g. src/auth.ts, src/*.ts, src/**).";

export const claimPaths = z.array(claimPath.describe(pathDescription)).min(1).max(LIMITS.claimPathsMax);

export const claimTtl = z
  .number()
  .int()
  .min(LIMITS.claimTtlMinSeconds)
  .max(LIMITS.claimTtlMaxSeconds)
  .describe(
    `Seconds the claims last past your last call in this room (${LIMITS.claimTtlMinSeconds}-${LIMITS.claimTtlMaxSeconds}, default ${LIMITS.claimTtlDefaultSeconds}); any call of yours renews them.`,
  );

export const claimReason = FIELDS.claimReason.describe("Why, in a few words (shown to others).");

const iso = z.string().describe("ISO 8601 time");
export const claimResultShape = z.object({
  claimed: z.array(z.object({ path: z.string(), expiresAt: iso })),
  conflicts: z.array(
    z.object({
      path: z.string().describe("The path you asked for."),
      heldBy: z.string(),
      pattern: z.string().describe("Their claim that overlaps it."),
      expiresAt: iso,
    }),
  ),
});

/** Distinct paths, in the order given. */
export const distinct = (paths: string[]): string[] => [...new Set(paths)];

const CHECK_MAX = 1000;

export const claimTools = [
  defineTool({
    name: "claim_files",
    title: "Claim files before editing",
    description:
      "Claim the files (paths or globs) you are about to edit, so no other agent edits them at the same time. All or nothing: if any path overlaps another agent's live claim you get conflicts (who holds what, until when) and nothing is claimed; pick other files or ask the holder. A conflict is an answer, not an error. Claiming what you hold renews it. Claims last ttlSeconds past your last call in the room. Posts a files_claimed event.",
    returns: "{claimed: [{path, expiresAt}], conflicts: [{path, heldBy, pattern, expiresAt}]}",
    input: z.strictObject({
      roomId,
      agentId: actingAgentId,
      paths: claimPaths.describe(
        `1-${LIMITS.claimPathsMax} paths or globs, relative to the repository root.`,
      ),
      ttlSeconds: claimTtl.optional(),
      reason: claimReason.optional(),
    }),
    output: claimResultShape,
    effect: "write",
    acting: ["agentId"],
    events: ["files_claimed", "files_claim_expired"],
    errors: [
      'Invalid arguments: paths.<i>: Invalid path "<path>": <rule>',
      `Claim limit reached: a room holds at most ${LIMITS.claimsPerRoom} live file claims; release some, or claim a directory with "dir/**"`,
    ],
    example: async () => ({
      agentId: "alice",
      paths: ["src/auth.ts", "src/auth/**"],
      reason: "login endpoint",
    }),
    handler: (a, call) =>
      call.store.claimFiles(call.scope, {
        agentId: a.agentId,
        paths: distinct(a.paths),
        ttlMs: (a.ttlSeconds ?? LIMITS.claimTtlDefaultSeconds) * 1000,
        reason: a.reason,
      }),
  }),
  defineTool({
    name: "release_files",
    title: "Release claimed files",
    description:
      "Release file claims you hold, named exactly as claimed; all of yours when paths is omitted. Release when you are done editing so others can claim them. Posts a files_released event.",
    returns: "{released: [path]}",
    input: z.strictObject({
      roomId,
      agentId: actingAgentId,
      paths: claimPaths
        .optional()
        .describe("The claims to release, as you claimed them; omit for all of yours."),
    }),
    output: z.object({ released: z.array(z.string()) }),
    effect: "write",
    idempotent: true,
    acting: ["agentId"],
    events: ["files_released", "files_claim_expired"],
    example: async (room) => {
      await room.call("claim_files", { agentId: "alice", paths: ["src/auth.ts"] });
      return { agentId: "alice", paths: ["src/auth.ts"] };
    },
    handler: (a, call) =>
      call.store.releaseFiles(call.scope, a.agentId, a.paths === undefined ? undefined : distinct(a.paths)),
  }),
  defineTool({
    name: "list_claims",
    title: "List file claims",
    description:
      "Live file claims in the room: path or glob, holder, expiry, reason. With agentId, only that agent's; with path, only the claims that cover it (for a glob: that overlap it).",
    returns: "FileClaim[] {path, heldBy, expiresAt, claimedAt, reason?}, by path",
    input: z.strictObject({
      roomId,
      agentId: otherAgentId.optional().describe("Only this agent's claims."),
      path: claimPath.optional().describe("Only the claims covering this path (or overlapping this glob)."),
    }),
    effect: "read",
    filters: ["agentId"],
    example: async (room) => {
      await room.call("claim_files", { agentId: "alice", paths: ["src/**"] });
      return { path: "src/auth.ts" };
    },
    handler: (a, call) => call.store.listClaims(call.scope, { agentId: a.agentId, path: a.path }),
  }),
  defineTool({
    name: "check_files",
    title: "Check files against claims",
    description:
      "For each path: held (another agent's claim covers it: heldBy, pattern), mine (one of your claims covers it) or free. Made for a pre-commit guard: check the files you are about to commit.",
    returns: "[{path, state: free|mine|held, heldBy?, pattern?}], in the order asked",
    input: z.strictObject({
      roomId,
      agentId: actingAgentId,
      paths: z
        .array(claimPath.describe(pathDescription))
        .min(1)
        .max(CHECK_MAX)
        .describe(`1-${CHECK_MAX} paths to check, relative to the repository root.`),
    }),
    effect: "read",
    acting: ["agentId"],
    example: async (room) => {
      await room.call("claim_files", { agentId: "bob", paths: ["src/**"] });
      return { agentId: "alice", paths: ["src/auth.ts", "README.md"] };
    },
    handler: (a, call) => call.store.checkFiles(call.scope, a.agentId, a.paths),
  }),
];
