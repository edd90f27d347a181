/**
 * Input rules shared by tools and routes: readable validation messages (docs/protocol.md#4-results-and-errors),
 * well-formed Unicode, no control characters in one-line fields, and JSON payloads whose cost is bounded before
 * anything stores or re-reads them (docs/protocol.md#sizes-and-counts).
 */
import { z } from "zod";
import { LIMITS } from "./limits.ts";

/** zod says "Invalid input: expected string, received undefined" for a missing field; a model reads "required". */
export function requiredOr(message: string): string {
  return message.replace(/^Invalid input: expected (\w+), received undefined$/, "required ($1)");
}

const pathText = (path: readonly PropertyKey[]) =>
  path.length === 0 ? "arguments" : path.map(String).join(".");

/**
 * One sentence a model can act on, naming each bad field by its path. A bad room id leads ("Invalid roomId: …",
 * docs/protocol.md#2-identifiers), since nothing else matters until the room is right.
 */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const text = (issue: z.core.$ZodIssue) => requiredOr(issue.message);
  const room = issues.find((i) => i.path[0] === "roomId");
  const rest = issues
    .filter((i) => i !== room)
    .slice(0, 5)
    .map((i) => `${pathText(i.path)}: ${text(i)}`);
  if (room) {
    const head = room.message.startsWith("Invalid roomId") ? room.message : `Invalid roomId: ${text(room)}`;
    return rest.length === 0 ? head : `${head}; other invalid arguments: ${rest.join("; ")}`;
  }
  return `Invalid arguments: ${rest.join("; ")}`;
}

/** C0 controls other than tab and newline: refused in ids and one-line fields. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u0008\u000b-\u001f]/;

/** True when `s` holds a control character a one-line field refuses. */
export const hasControl = (s: string): boolean => CONTROL.test(s);

/** A one-line field (title, event type, key, resource…): well-formed, no control characters. */
export const line = (min: number, max: number) =>
  z
    .string()
    .min(min)
    .max(max)
    .refine((s) => !CONTROL.test(s), { error: "must not contain control characters" });

/** Removes every C0 control (tab and newline included): status text is shown on one line. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
export const stripControls = (s: string): string => s.replace(/[\u0000-\u001f\u007f]/g, "");

export interface BadUnicode {
  path: string;
}

/**
 * The first string (or object key) holding a lone surrogate, depth first; null when every string is
 * well-formed. Iterative, so no input can exhaust the stack; callers bound the size first.
 */
export function findIllFormed(value: unknown): BadUnicode | null {
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: "" }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop() as { value: unknown; path: string };
    if (typeof v === "string") {
      if (!v.isWellFormed()) return { path: path || "arguments" };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--)
        stack.push({ value: v[i], path: path ? `${path}.${i}` : String(i) });
    } else if (v !== null && typeof v === "object") {
      for (const [key, item] of Object.entries(v)) {
        const at = path ? `${path}.${key}` : key;
        if (!key.isWellFormed()) return { path: path ? `${path} (a key)` : "arguments (a key)" };
        stack.push({ value: item, path: at });
      }
    }
  }
  return null;
}

export type PayloadProblem = "depth" | "values" | "bytes";

/**
 * Why a JSON payload is refused, or null: deeper than LIMITS.payloadDepthMax levels of arrays/objects, more than
 * LIMITS.payloadValuesMax values in all, or more than LIMITS.payloadBytesMax bytes serialised. The walk is
 * iterative and stops at the first excess, so checking costs at most what the limits allow.
 */
export function payloadProblem(value: unknown): { problem: PayloadProblem; message: string } | null {
  let count = 0;
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop() as { value: unknown; depth: number };
    if (++count > LIMITS.payloadValuesMax) {
      return { problem: "values", message: `Payload too large (max ${LIMITS.payloadValuesMax} values)` };
    }
    if (v === null || typeof v !== "object") continue;
    if (depth + 1 > LIMITS.payloadDepthMax) {
      return {
        problem: "depth",
        message: `Payload nested too deeply (max ${LIMITS.payloadDepthMax} levels)`,
      };
    }
    for (const item of Array.isArray(v) ? v : Object.values(v)) stack.push({ value: item, depth: depth + 1 });
  }
  const bytes = Buffer.byteLength(JSON.stringify(value) ?? "");
  if (bytes > LIMITS.payloadBytesMax) {
    return { problem: "bytes", message: `Payload too large: ${bytes} bytes (max ${LIMITS.payloadBytesMax})` };
  }
  return null;
}

/** A JSON object payload, bounded by payloadProblem. */
export const jsonObject = z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
  const found = payloadProblem(value);
  if (found) ctx.addIssue({ code: "custom", message: found.message });
});
