/**
 * Input rules shared by tools and routes: readable validation messages (docs/protocol.md#4-results-and-errors),
 * well-formed Unicode, no control characters in one-line fields, and JSON payloads whose cost is bounded before
 * anything stores or re-reads them (docs/protocol.md#sizes-and-counts).
 */
import { z } from "zod";
import { meantArgument, orList } from "./closest.ts";
import { LIMITS } from "./limits.ts";

/** zod says "Invalid input: expected string, received undefined" for a missing field; a model reads "required". */
export function requiredOr(message: string): string {
  return message.replace(/^Invalid input: expected (\w+), received undefined$/, "required ($1)");
}

const pathText = (path: readonly PropertyKey[]) =>
  path.length === 0 ? "arguments" : path.map(String).join(".");

/**
 * The keys an object schema takes at `path` (array items and optional, nullable or defaulted wrappers looked
 * through), or undefined when no one object schema is found there.
 */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] | undefined {
  let node: z.core.$ZodType | undefined = schema;
  let rest = [...path];
  for (let guard = 0; node !== undefined && guard < 64; guard++) {
    const def = node._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
    if (def.type === "object") {
      const shape = def.shape as Record<string, z.core.$ZodType>;
      if (rest.length === 0) return Object.keys(shape);
      node = shape[String(rest.shift())];
    } else if (def.type === "array") {
      if (rest.length === 0) return undefined;
      rest = rest.slice(1);
      node = def.element as z.core.$ZodType;
    } else if ("innerType" in def) node = def.innerType as z.core.$ZodType;
    else if (def.type === "pipe") node = def.in as z.core.$ZodType;
    else return undefined;
  }
  return undefined;
}

/**
 * An unknown key, and what was meant: the closest valid name (`Unrecognized key "status" — did you mean
 * "statusText"?`), else every valid name, so the caller never has to guess twice.
 */
function unrecognized(
  issue: z.core.$ZodIssue,
  issues: readonly z.core.$ZodIssue[],
  schema: z.ZodType | undefined,
): string {
  const keys = issue.code === "unrecognized_keys" ? issue.keys : [];
  const valid = schema ? keysAt(schema, issue.path) : undefined;
  if (!valid) return issue.message;
  // A required key left out beside the unknown one is most likely what it meant.
  const depth = issue.path.length;
  const missing = issues
    .filter((i) => i.path.length === depth + 1 && requiredOr(i.message) !== i.message)
    .filter((i) => i.path.slice(0, depth).every((part, n) => part === issue.path[n]))
    .map((i) => String(i.path[depth]));
  const what = depth === 0 ? "arguments" : "keys";
  return keys.map((key) => unknownKey(key, valid, what, missing)).join("; ");
}

/**
 * `Unrecognized key "<key>" — did you mean "<closest>"?` (closestNames, preferring the required keys left out), or
 * the valid names when none is close.
 */
export function unknownKey(
  key: string,
  valid: readonly string[],
  what = "arguments",
  missing: readonly string[] = [],
): string {
  const meant = meantArgument(key, valid, missing);
  if (meant.length > 0) return `Unrecognized key ${JSON.stringify(key)} — did you mean ${orList(meant)}?`;
  const names = valid.length === 0 ? `no ${what}` : `valid ${what}: ${valid.join(", ")}`;
  return `Unrecognized key ${JSON.stringify(key)} — ${names}`;
}

/**
 * One sentence a model can act on, naming each bad field by its path. A bad room id leads ("Invalid roomId: …",
 * docs/protocol.md#2-identifiers), since nothing else matters until the room is right. Given the schema, an
 * unknown key names the closest valid one (or lists them).
 */
export function describeIssues(issues: readonly z.core.$ZodIssue[], schema?: z.ZodType): string {
  const text = (issue: z.core.$ZodIssue) =>
    issue.code === "unrecognized_keys" ? unrecognized(issue, issues, schema) : requiredOr(issue.message);
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
