/**
 * The SDK's JSON-RPC type guards, answered without zod where the answer is certain.
 *
 * The SDK's transport and Protocol check every message with zod: a tools/call request is parsed by the
 * JSON-RPC message union and then tested by isInitializeRequest, isJSONRPCRequest (3 times), isJSONRPCResultResponse
 * and isJSONRPCErrorResponse, and its response by the last two again (twice) — about ten schema parses per call,
 * most of them failing ones (which build zod issue lists), ~10% of a small call's CPU. Each guard is
 * `schema.safeParse(value).success`: this module gives those four schemas' `safeParse`, and the union's `parse`,
 * a first look that settles the common, unambiguous messages — a plain request or result without `_meta`, or a
 * message lacking the guard's required member — and hands everything else to zod unchanged. A settled failure
 * still carries zod's own error (computed when read), and a settled success returns the value itself, which has
 * exactly the members zod's copy would have. The SDK, its transport and its per-request server stay as they are.
 */
import {
  InitializeRequestSchema,
  JSONRPCErrorResponseSchema,
  JSONRPCMessageSchema,
  JSONRPCRequestSchema,
  JSONRPCResultResponseSchema,
} from "@modelcontextprotocol/sdk/types.js";

/** true: zod would accept the value; false: zod would refuse it; undefined: ask zod. */
type Verdict = boolean | undefined;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** RequestIdSchema: a string or a (safe) integer. */
const isId = (id: unknown): boolean =>
  typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id));

/** Every own key of `value` is one of `allowed` (the schemas are strict). */
function onlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  const keys = Object.keys(value);
  if (keys.length > allowed.size) return false;
  for (const key of keys) if (!allowed.has(key)) return false;
  return true;
}

const REQUEST_KEYS: ReadonlySet<string> = new Set(["jsonrpc", "id", "method", "params"]);
const RESULT_KEYS: ReadonlySet<string> = new Set(["jsonrpc", "id", "result"]);

/** JSONRPCRequestSchema: strict {jsonrpc: "2.0", id, method: string, params?: object}. */
export function requestVerdict(value: unknown): Verdict {
  if (!isRecord(value)) return undefined;
  if (typeof value.method !== "string") return false;
  const { params } = value;
  const plainParams = !("params" in value) || (isRecord(params) && !("_meta" in params));
  return value.jsonrpc === "2.0" && isId(value.id) && plainParams && onlyKeys(value, REQUEST_KEYS)
    ? true
    : undefined;
}

/** JSONRPCResultResponseSchema: strict {jsonrpc: "2.0", id, result: object}. */
export function resultVerdict(value: unknown): Verdict {
  if (!isRecord(value)) return undefined;
  if (!("result" in value)) return false;
  const { result } = value;
  return value.jsonrpc === "2.0" &&
    isId(value.id) &&
    isRecord(result) &&
    !("_meta" in result) &&
    onlyKeys(value, RESULT_KEYS)
    ? true
    : undefined;
}

/** JSONRPCErrorResponseSchema: `error` is required. */
export function errorVerdict(value: unknown): Verdict {
  return isRecord(value) && !("error" in value) ? false : undefined;
}

/** InitializeRequestSchema: `method` must be "initialize". */
export function initializeVerdict(value: unknown): Verdict {
  return isRecord(value) && typeof value.method === "string" && value.method !== "initialize"
    ? false
    : undefined;
}

type SafeParse = (value: unknown, params?: unknown) => { success: boolean; data?: unknown; error?: unknown };

function settle(schema: { safeParse: unknown }, verdict: (value: unknown) => Verdict): void {
  const zod = (schema.safeParse as SafeParse).bind(schema);
  schema.safeParse = (value: unknown, params?: unknown) => {
    const settled = params === undefined ? verdict(value) : undefined;
    if (settled === true) return { success: true, data: value };
    if (settled === false) {
      return {
        success: false,
        get error() {
          return zod(value).error;
        },
      };
    }
    return zod(value, params);
  };
}

let installed = false;

/** Installs the first looks (once per process; the SDK's schemas are module singletons). */
export function installGuards(): void {
  if (installed) return;
  installed = true;
  settle(JSONRPCRequestSchema, requestVerdict);
  settle(JSONRPCResultResponseSchema, resultVerdict);
  settle(JSONRPCErrorResponseSchema, errorVerdict);
  settle(InitializeRequestSchema, initializeVerdict);
  // The transport's parse of each incoming message: a plain request is the union's first member as it is.
  const union = JSONRPCMessageSchema as unknown as { parse: (value: unknown, params?: unknown) => unknown };
  const parse = union.parse.bind(union);
  union.parse = (value: unknown, params?: unknown) =>
    params === undefined && requestVerdict(value) === true ? value : parse(value, params);
}
