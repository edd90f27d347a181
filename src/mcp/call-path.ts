/**
 * The one call path every tools/call takes, driven by the tool's declarations (tool.ts):
 * look up → well-formed Unicode → bound identity filled in → schema → identity enforced → room scope (invites
 * confined, the actor for presence or else the caller for the suspension check, the idempotency key) → people
 * only (tools for people's acts) → the person's role → handler → result (structuredContent, replayed) or an error
 * written for the model. Handlers only do their own work.
 */

import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { LiveRooms } from "../live/hub.ts";
import { errors, RoomError, type RoomErrorKind, STORE_UNAVAILABLE } from "../protocol/errors.ts";
import { type JsonText, jsonText } from "../protocol/json-text.ts";
import { defaultRoom, keyLifeErrors, reachesRoom } from "../protocol/key-life.ts";
import { peopleErrors } from "../protocol/people.ts";
import type { Principal } from "../protocol/principal.ts";
import { describeIssues, findIllFormed, unknownKey } from "../protocol/validation.ts";
import { readRoles, requireRole } from "../store/room-roles.ts";
import type { Idempotency, RoomScope, RoomStore } from "../store/types.ts";
import type { Catalog } from "./catalog.ts";
import { McpFailure } from "./failure.ts";
import { modelText, structuredOf } from "./model-text.ts";
import { askedRoom, roomTypoHint } from "./room-typo.ts";
import {
  contextFields,
  isMutating,
  Noted,
  publishedInput,
  RawResult,
  Readable,
  type RequestIO,
  type RoomToolCall,
  type ToolDefinition,
} from "./tool.ts";

/** What a request names besides its arguments: the X-Roomd-Room and X-Roomd-Agent headers. */
export interface CallContext {
  roomId?: string;
  agentId?: string;
}

export interface CallDeps {
  store: RoomStore;
  live: LiveRooms;
  principal: Principal;
  requestId: string;
  signal?: AbortSignal;
  /** The MCP request around the call (progress, logging, client input). */
  io?: RequestIO;
  /**
   * The request's room and agent, used when the arguments leave them out. The invite's room and the bound key's
   * agent stand in for missing headers; a header naming another room or agent than the invite or key is refused
   * exactly like such an argument (the key always wins).
   */
  context?: CallContext;
  /**
   * What the result's text content is: "json" (the JSON of the value; structuredContent when the tool declares an
   * output) or "model" (model-text.ts: the value written for a model, and the exact value as structuredContent).
   * Default "json"; the MCP layer sets it from the profile (tool.ts MODEL_FACING).
   */
  resultText?: "json" | "model";
}

/**
 * How a tools/call ended, from a fixed set (metrics label values stay bounded): `ok` (the tool answered, whatever
 * it said), a RoomError's kind (the tool refused), `rate_limited` (the caller's budget was spent; set by the MCP
 * layer), `unknown_tool`, or `internal` (a bug, logged with the request id).
 */
export type ToolOutcome = "ok" | RoomErrorKind | "rate_limited" | "unknown_tool" | "internal";

/** Outcome of one call, for logging and metrics by the caller. */
export interface CallOutcome {
  result: CallToolResult;
  outcome: ToolOutcome;
  /** Set when the failure was not an expected RoomError: the caller logs it. */
  unexpected?: unknown;
  /**
   * Set when the store could not be reached: the name of the underlying error, for the log. Only the name: store
   * client messages can echo script arguments (digests, records).
   */
  storeFailure?: string;
  /**
   * A successful answer's one text content, serialised (raw: the text; escaped: the text inside a JSON string):
   * when set, the text content and structuredContent are both this JSON, which the response may splice in.
   */
  json?: JsonText;
}

export function toolError(message: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text: `Error: ${message}` }] };
}

/** What a mutating tool's client is told when the store did not answer: the write may have happened. */
export function unknownOutcome(keyed: boolean): string {
  return keyed
    ? `${STORE_UNAVAILABLE} (the write may have been applied: retry with the same idempotencyKey and it is applied at most once)`
    : `${STORE_UNAVAILABLE} (the write may have been applied: check before retrying, and pass an idempotencyKey to make retries safe)`;
}

const boundMessage = (bound: string) => `This key is bound to agent ${bound}`;

/** Acting arguments the schema requires: a bound key may leave them out (the bound id is filled in). */
const requiredActing = new WeakMap<ToolDefinition, string[]>();
function requiredActingOf(tool: ToolDefinition): string[] {
  let fields = requiredActing.get(tool);
  if (!fields) {
    fields = tool.acting.filter((field) => {
      const schema = tool.input.shape[field];
      return schema !== undefined && !schema.safeParse(undefined).success;
    });
    requiredActing.set(tool, fields);
  }
  return fields;
}

/** JSON with sorted keys, so equal arguments give equal fingerprints whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function fingerprint(tool: string, args: Record<string, unknown>): string {
  return new Bun.CryptoHasher("sha256").update(`${tool}\n${canonical(args)}`).digest("hex");
}

/** Refusals that are not worth a handler: each is an expected RoomError. */
function prepare(tool: ToolDefinition, raw: unknown, deps: CallDeps) {
  // A read-only key: every write is refused before its arguments are looked at (protocol/key-life.ts).
  if (deps.principal.readOnly === true && isMutating(tool))
    throw keyLifeErrors.readOnly(tool.name, deps.principal.kind);
  if (raw !== undefined && (raw === null || typeof raw !== "object" || Array.isArray(raw))) {
    throw new RoomError("invalid", "Invalid arguments: arguments: expected an object");
  }
  const given: Record<string, unknown> = { ...(raw as Record<string, unknown> | undefined) };
  const bad = findIllFormed(given);
  if (bad) {
    const where = bad.path === "roomId" ? "Invalid roomId" : `Invalid arguments: ${bad.path}`;
    throw new RoomError(
      "invalid",
      `${where}: contains invalid Unicode (a lone surrogate); send well-formed text`,
    );
  }
  const bound = deps.principal.boundAgentId;
  fillFromContext(tool, given, deps);
  const parsed = tool.input.safeParse(given);
  if (!parsed.success)
    throw new RoomError("invalid", describeIssues(parsed.error.issues, publishedInput(tool)));
  const { idempotencyKey, ...args } = parsed.data as Record<string, unknown> & { idempotencyKey?: string };
  // The room first: an invite's call on another room must read exactly like a missing room.
  const scope = tool.room ? roomScope(deps.principal, args.roomId as string) : undefined;
  if (bound !== undefined) {
    for (const field of tool.acting) {
      const value = args[field];
      if (typeof value === "string" && value !== bound) {
        const fromHeader =
          deps.context?.agentId === value && (raw as Record<string, unknown>)?.[field] !== value;
        throw new RoomError(
          "forbidden",
          fromHeader
            ? `${boundMessage(bound)} (the X-Roomd-Agent header names ${value})`
            : boundMessage(bound),
        );
      }
    }
  }
  const first = tool.acting[0];
  const agent = first !== undefined && typeof args[first] === "string" ? (args[first] as string) : undefined;
  const idempotency: Idempotency | undefined =
    idempotencyKey !== undefined && isMutating(tool)
      ? { key: idempotencyKey, fingerprint: fingerprint(tool.name, args) }
      : undefined;
  if (scope && agent !== undefined) scope.actor = agent;
  else if (scope) {
    // A tool that names no agent (read_plan, list_context, …) called by a known agent — a bound key's, or the
    // X-Roomd-Agent header's — is refused while that agent is suspended in the room (protocol/suspensions.ts), by
    // the store in the operation's own step (RoomScope.caller): no read of its own, no presence recorded.
    const caller = bound ?? deps.context?.agentId;
    if (caller !== undefined) scope.caller = caller;
  }
  if (scope && idempotency) scope.idempotency = idempotency;
  return { args, agent, idempotency, scope };
}

/**
 * Fills what the arguments leave out from the request's context (headers, else the invite's room and the bound
 * agent): roomId, and the acting arguments the schema requires. Tools of the compact and agentroom profiles get a
 * hint when neither gives them; agentroom tools take them from the context only.
 */
function fillFromContext(tool: ToolDefinition, given: Record<string, unknown>, deps: CallDeps): void {
  const fields = contextFields(tool);
  if (tool.context === "context") {
    const sent = fields.find((field) => field in given);
    if (sent) {
      const known = Object.keys(publishedInput(tool).shape);
      const where = "the room and agent come from the X-Roomd-Room and X-Roomd-Agent headers";
      throw new RoomError("invalid", `Invalid arguments: arguments: ${unknownKey(sent, known)} (${where})`);
    }
  }
  const room = deps.context?.roomId ?? defaultRoom(deps.principal);
  const agent = deps.context?.agentId ?? deps.principal.boundAgentId;
  if (tool.room && room !== undefined) given.roomId ??= room;
  if (agent !== undefined) for (const field of requiredActingOf(tool)) given[field] ??= agent;
  // A bound key acts as its agent: an optional actor argument (add_task's agentId, …) is filled in too, so the
  // call is attributed and judged as that agent rather than as "system" (docs/protocol.md#identity). Only the actor:
  // other acting arguments (update_task's owner) are choices — left out they change nothing, null unassigns.
  const bound = deps.principal.boundAgentId;
  const actor = tool.acting[0];
  if (bound !== undefined && actor !== undefined && given[actor] === undefined) given[actor] = bound;
  if (tool.context === "arguments") return;
  const only = tool.context === "context";
  for (const field of fields) {
    if (given[field] !== undefined) continue;
    if (field === "roomId") {
      throw new RoomError(
        "invalid",
        only
          ? "Invalid roomId: none given; send the X-Roomd-Room header, or use an invite for the room"
          : "Invalid roomId: required; pass roomId, or send the X-Roomd-Room header (an invite gives its room)",
      );
    }
    throw new RoomError(
      "invalid",
      only
        ? "Invalid arguments: agent: none given; send the X-Roomd-Agent header, or use a key bound to your agent"
        : `Invalid arguments: ${field}: required; pass ${field}, or send the X-Roomd-Agent header (a key bound to an agent gives it)`,
    );
  }
}

/**
 * The room a call works on: an invite reaches only its own room and never claims; a scoped key only its rooms
 * (protocol/key-life.ts). Any other room reads as missing.
 */
function roomScope(principal: Principal, roomId: string): RoomScope {
  const { allowedRoomId, teamId } = principal;
  if (!reachesRoom(principal, roomId)) throw errors.denied();
  if (allowedRoomId === undefined) return { roomId, teamId };
  return { roomId, teamId, mayClaim: false };
}

/** Runs a tool of the catalog. Expected failures become tool errors; unknown ones a generic error with the request id. */
export async function callTool(
  catalog: Catalog,
  name: string,
  raw: unknown,
  deps: CallDeps,
): Promise<CallOutcome> {
  const tool = catalog.get(name);
  if (!tool)
    return {
      result: toolError(`Unknown tool: ${name}; call tools/list for the tools roomd offers`),
      outcome: "unknown_tool",
    };
  let keyed = false;
  try {
    const { args, agent, idempotency, scope } = prepare(tool, raw, deps);
    keyed = idempotency !== undefined;
    if (tool.peopleOnly !== undefined && deps.principal.humanId === undefined) {
      // Read first, so another team's room reads as missing here too, exactly as for every other tool.
      if (scope) await readRoles(deps.store, scope);
      throw peopleErrors.peopleOnly(tool.peopleOnly);
    }
    // A person's key acts through tools as the agent it names: what it may write depends on its role in the room.
    const act = typeof tool.personAct === "function" ? tool.personAct(args) : tool.personAct;
    if (scope && act !== undefined) await requireRole(deps.store, scope, deps.principal, act);
    const call = {
      store: deps.store,
      live: deps.live,
      principal: deps.principal,
      agent,
      requestId: deps.requestId,
      ...(deps.signal ? { signal: deps.signal } : {}),
      ...(deps.io ? { io: deps.io } : {}),
    };
    const readScope = scope ? { ...scope, idempotency: undefined } : undefined;
    const answered = await tool.handler(args as never, { ...call, scope, readScope } as RoomToolCall);
    if (answered instanceof RawResult) return { result: answered.result as CallToolResult, outcome: "ok" };
    if (answered instanceof Readable) {
      const { value, text } = answered;
      return {
        result: { content: [{ type: "text", text }], structuredContent: structuredOf(value) },
        outcome: "ok",
      };
    }
    const value = answered instanceof Noted ? answered.value : answered;
    const replayed = scope?.idempotency?.replayed === true;
    const shaped = replayed && isObject(value) ? { ...value, replayed: true } : value;
    if (deps.resultText === "model") {
      const result: CallToolResult = {
        content: [{ type: "text", text: modelText(shaped) }],
        structuredContent: structuredOf(shaped),
      };
      if (answered instanceof Noted) result.content.push({ type: "text", text: modelText(answered.note) });
      return { result, outcome: "ok" };
    }
    // Serialised once: the text content, and what the response splices in for it and for structuredContent.
    const json = jsonText(shaped);
    const result: CallToolResult = { content: [{ type: "text", text: json?.raw as string }] };
    if (answered instanceof Noted) result.content.push({ type: "text", text: JSON.stringify(answered.note) });
    if (tool.output) result.structuredContent = shaped as Record<string, unknown>;
    return json && !(answered instanceof Noted) ? { result, outcome: "ok", json } : { result, outcome: "ok" };
  } catch (error) {
    // A protocol-level refusal (a client capability the call needs, say) is the request's error, not the tool's.
    if (error instanceof McpFailure) throw error;
    if (!(error instanceof RoomError)) {
      return {
        result: toolError(`Internal error (request ${deps.requestId}); retry, and report it if it persists`),
        outcome: "internal",
        unexpected: error,
      };
    }
    if (error.kind === "denied" && tool.room) {
      const asked = askedRoom(raw, deps.context?.roomId, deps.principal);
      const hint = await roomTypoHint(asked, deps.principal, deps.store);
      return { result: toolError(error.message + hint), outcome: error.kind };
    }
    if (error.kind !== "store_unavailable") return { result: toolError(error.message), outcome: error.kind };
    const cause = error.cause instanceof Error ? error.cause.name : "unknown";
    const message = isMutating(tool) ? unknownOutcome(keyed) : error.message;
    return { result: toolError(message), outcome: "store_unavailable", storeFailure: cause };
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);
