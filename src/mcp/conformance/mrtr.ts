/**
 * Multi round-trip requests (2026-07-28) for the conformance fixtures: an interim `input_required` result naming
 * what the client must supply, and an integrity-protected `requestState` (HMAC-SHA256 with a key made at process
 * start) the client echoes on its retry, so a tampered state is refused. Only the fixtures ask: roomd's own tools
 * never need input from the client.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { McpFailure } from "../surface/types.ts";

const KEY = randomBytes(32);

export type InputRequests = Record<string, { method: string; params: Record<string, unknown> }>;

/** The interim result: what to ask, and the state to echo (when given). */
export const inputRequired = (inputRequests: InputRequests, state?: Record<string, unknown>) => ({
  resultType: "input_required",
  inputRequests,
  ...(state ? { requestState: seal(state) } : {}),
});

function mac(body: string): string {
  return createHmac("sha256", KEY).update(body).digest("base64url");
}

export function seal(state: Record<string, unknown>): string {
  const body = Buffer.from(JSON.stringify(state)).toString("base64url");
  return `${body}.${mac(body)}`;
}

/** The state a retry echoes, verified; -32602 when it was altered or is not one roomd made. */
export function opened(requestState: unknown): Record<string, unknown> | undefined {
  if (requestState === undefined) return undefined;
  const refused = new McpFailure(
    -32602,
    "Invalid params: requestState failed its integrity check; start the request again without it",
  );
  if (typeof requestState !== "string") throw refused;
  const [body, tag] = requestState.split(".");
  if (body === undefined || tag === undefined) throw refused;
  const expected = Buffer.from(mac(body));
  const given = Buffer.from(tag);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw refused;
  return JSON.parse(Buffer.from(body, "base64url").toString()) as Record<string, unknown>;
}

/**
 * The client's answers of a retry: a record of input responses (each an object); -32602 when the shape is wrong
 * (a client bug, not missing input); undefined when none were sent.
 */
export function responsesOf(inputResponses: unknown): Record<string, Record<string, unknown>> | undefined {
  if (inputResponses === undefined) return undefined;
  const bad = new McpFailure(
    -32602,
    "Invalid params: inputResponses must be an object of input responses (objects)",
  );
  if (inputResponses === null || typeof inputResponses !== "object" || Array.isArray(inputResponses))
    throw bad;
  for (const value of Object.values(inputResponses))
    if (value === null || typeof value !== "object" || Array.isArray(value)) throw bad;
  return inputResponses as Record<string, Record<string, unknown>>;
}

export const elicit = (message: string, properties: Record<string, unknown>, required: string[]) => ({
  method: "elicitation/create",
  params: { message, requestedSchema: { type: "object", properties, required } },
});

export const sample = (text: string, maxTokens: number) => ({
  method: "sampling/createMessage",
  params: { messages: [{ role: "user", content: { type: "text", text } }], maxTokens },
});

export const listRoots = () => ({ method: "roots/list", params: {} });
