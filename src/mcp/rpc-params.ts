/**
 * Readable -32602 errors: the params of the methods roomd answers are checked here, before the
 * SDK sees them, so a malformed call gets "Invalid params: params.name: …" instead of the SDK's raw validation
 * dump (which it answers as -32603).
 */
import { z } from "zod";
import { describeIssues } from "../protocol/validation.ts";

/**
 * Looked up by the method the client names: a Map, so only these methods are found (an object literal would
 * also answer for `constructor`, `toString` and every other member objects inherit).
 */
const PARAMS: ReadonlyMap<string, z.ZodType> = new Map<string, z.ZodType>([
  [
    "tools/call",
    z.object({
      name: z.string({ error: "must be the tool's name, a string" }),
      arguments: z
        .record(z.string(), z.unknown(), { error: "must be an object of named arguments" })
        .optional(),
    }),
  ],
  ["tools/list", z.object({ cursor: z.string().optional() }).optional()],
  [
    "initialize",
    z.object({
      protocolVersion: z.string({ error: "must be a protocol version string, e.g. 2025-06-18" }),
      capabilities: z.record(z.string(), z.unknown(), { error: "must be an object" }),
      clientInfo: z.object({ name: z.string(), version: z.string() }, { error: "must be {name, version}" }),
    }),
  ],
]);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The params of every tool call and listing, checked by hand: the same acceptance as the schemas above, without
 * their cost on each request. Anything else (and anything this refuses) goes through the schemas, which also word
 * the error.
 */
function plainlyValid(method: unknown, params: unknown): boolean {
  if (method === "tools/call") {
    return (
      isRecord(params) &&
      typeof params.name === "string" &&
      (params.arguments === undefined || isRecord(params.arguments))
    );
  }
  if (method === "tools/list") {
    return (
      params === undefined ||
      (isRecord(params) && (params.cursor === undefined || typeof params.cursor === "string"))
    );
  }
  return false;
}

/** The first message whose params do not fit its method, as a JSON-RPC error object (with the message's id). */
export function invalidParams(messages: readonly unknown[]): { id: unknown; message: string } | null {
  for (const m of messages) {
    if (typeof m !== "object" || m === null) continue;
    const { method, params, id } = m as { method?: unknown; params?: unknown; id?: unknown };
    if (plainlyValid(method, params)) continue;
    const schema = typeof method === "string" ? PARAMS.get(method) : undefined;
    if (!schema) continue;
    const checked = schema.safeParse(params);
    if (checked.success) continue;
    const text = describeIssues(checked.error.issues.map((i) => ({ ...i, path: ["params", ...i.path] })));
    return { id: id ?? null, message: text.replace(/^Invalid arguments: /, "Invalid params: ") };
  }
  return null;
}
