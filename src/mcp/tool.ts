/**
 * Tools are data. Each tool is one definition: name, title, a description written for the model, zod input and
 * output schemas, its effect (which gives the MCP annotations), which arguments name the acting agent and which
 * only filter, the profiles that list it, what it documents (events, errors) and the handler. The call path
 * (call-path.ts) enforces identity, refreshes presence, applies idempotency and maps errors from these
 * declarations, so no handler can forget them; the catalog-iterated tests check every definition the same way.
 */
import { z } from "zod";
import type { LiveRooms } from "../live/hub.ts";
import type { Principal } from "../protocol/principal.ts";
import type { Act } from "../protocol/roles.ts";
import type { RoomScope, RoomStore } from "../store/types.ts";

/** Tool lists a client can ask for (`?profile=` on the MCP URL). */
export const PROFILES = ["full", "compact", "agentroom"] as const;
export type Profile = (typeof PROFILES)[number];

/**
 * Profiles read by models rather than programs: their results' text is written for a model (model-text.ts) and the
 * exact value travels as structuredContent. `full` keeps the JSON text that programs (roomctl, scripts) read.
 */
export const MODEL_FACING: ReadonlySet<Profile> = new Set<Profile>(["compact", "agentroom"]);

/**
 * Where roomId and the acting agent come from (call-path.ts fills them from the request's context: the
 * X-Roomd-Room / X-Roomd-Agent headers, else the invite's room and the key's bound agent):
 * - "arguments": they are arguments, roomId required (the full profile);
 * - "optional": they are arguments a call may leave out when the context gives them (the compact profile);
 * - "context": they are not arguments at all; only the context gives them (the agentroom profile).
 * The definition's input schema always has them (required); the published schema (publishedInput) follows the
 * mode.
 */
export type ContextMode = "arguments" | "optional" | "context";

/**
 * read: changes nothing. write: adds or changes state. destructive: may delete or overwrite what others made
 * (MCP destructiveHint). Anything but read is a mutating tool: it takes an `idempotencyKey`.
 */
export type Effect = "read" | "write" | "destructive";

/** What every handler receives besides its parsed arguments. */
export interface ToolCall {
  store: RoomStore;
  /** The process's live rooms (waits share one hub per room with the streams). */
  live: LiveRooms;
  /** Aborted when the client goes away (long calls end early). */
  signal?: AbortSignal;
  principal: Principal;
  /** The acting agent after identity enforcement (the first declared acting argument), if the tool has one. */
  agent: string | undefined;
  requestId: string;
  /** What the MCP request itself offers beyond its arguments (absent when the call does not come over MCP). */
  io?: RequestIO;
}

/**
 * The MCP request around a call: its progress token and log level, notifications related to it (sent only when
 * the answer is a stream), what the client declared it can do, and the modern era's multi round-trip input.
 */
export interface RequestIO {
  era: "legacy" | "modern";
  clientCapabilities: Record<string, unknown>;
  progressToken?: string | number;
  /** The modern era's `_meta` log level: without it no `notifications/message` may be sent. */
  logLevel?: string;
  /** Sends a notification on the request's stream (dropped when the answer is not a stream). */
  notify(method: string, params: Record<string, unknown>): Promise<void>;
  /** The 2025 era only: asks the client (a request on the answer's stream) and resolves with its result. */
  ask?(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** The modern era's `inputResponses` and `requestState` of a retried request. */
  inputResponses?: unknown;
  requestState?: unknown;
}

/**
 * What a tool says to an MCP Apps host (the `io.modelcontextprotocol/ui` extension; docs/people.md, "The room
 * board in chat clients"): the `ui://` resource its results are rendered with, and who may call it — the model and
 * the view (the default), or the view alone (`["app"]`: hosts list such a tool to no model). Visibility is never an
 * authorisation: the call path checks a tool the same whoever calls it.
 */
export interface ToolUi {
  resourceUri: string;
  visibility?: readonly ("model" | "app")[];
}

/** A room tool's handler also receives the room scope the call path built (team, claim right, actor, idempotency). */
export interface RoomToolCall extends ToolCall {
  scope: RoomScope;
  /**
   * The same room for reads a mutating handler makes besides its write (a list action, a look before waiting):
   * without the call's idempotency key, which only the write may keep (a read under it would be kept, or
   * replayed, as the call's result).
   */
  readScope: RoomScope;
}

/**
 * The example of a tool: arguments (without roomId) for a call that succeeds in a fresh room, acting as agent
 * "alice" with an unbound team key. It may first create what it needs through `room.call`. Catalog-iterated tests
 * (cross-team, invites, bound identity, bad input, round trips) and the reference use it.
 */
export type Example = (room: ExampleRoom) => Promise<Record<string, unknown>>;

export interface ExampleRoom {
  /** Calls a tool in the example's room (roomId filled in) and returns its parsed result (a record with an id). */
  call(name: string, args: Record<string, unknown>): Promise<{ id: string } & Record<string, unknown>>;
}

/** A tool as the catalog keeps it; built by defineTool. */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  /** What a successful call returns, in a few words (reference): "Task", "Event[], newest first", … */
  returns: string;
  /** The strict input schema, with `idempotencyKey` added for mutating tools. */
  input: z.ZodObject;
  /** Declared when the result is a JSON object; the result is returned as structuredContent too. */
  output?: z.ZodObject;
  effect: Effect;
  /**
   * What a person's call of the tool is among the acts roles govern (protocol/roles.ts), checked by the call path
   * against their role in the room: `tools` (member) for every write unless declared; none for reads. A tool that
   * reads or writes by its arguments names the act of the call it gets (none for a read).
   */
  personAct?: Act | ((args: Record<string, unknown>) => Act | undefined);
  /** True for tools that change nothing when called twice with the same arguments (MCP idempotentHint). */
  idempotent: boolean;
  /** Arguments naming the acting agent: a bound key forces them (and fills them in when required). */
  acting: readonly string[];
  /** Arguments naming an agent only to filter what is read: never forced or filled in. */
  filters: readonly string[];
  /** Arguments naming other agents as recipients (an event's `to`, a context entry's consumers): never forced. */
  addressees: readonly string[];
  /** False for tools that work on no room (no roomId argument). */
  room: boolean;
  profiles: readonly Profile[];
  /** Where roomId and the acting agent come from (see ContextMode). */
  context: ContextMode;
  /** Event types the tool may append (reference). */
  events: readonly string[];
  /** Refusals the tool may answer besides argument and access errors (reference; templates with <id>). */
  errors: readonly string[];
  /** Redis round trips of the tool's own work once scripts are cached (checked by a test). */
  roundTrips: number;
  /** Set for a tool an MCP Apps host renders or calls from its view (see ToolUi). */
  ui?: ToolUi;
  /**
   * Set for a tool only people may call, as the words of the refusal every other key gets ("Only people can
   * <peopleOnly>"), after the room is checked like any tool's (another team's room reads as missing).
   */
  peopleOnly?: string;
  example: Example;
  handler(args: never, call: RoomToolCall): Promise<unknown>;
}

/**
 * A result with a note beside it: the call answers the value as usual (first text content, structuredContent) and
 * the note as a second text content, JSON. For facts about a result whose shape cannot hold them (an array).
 */
export class Noted {
  constructor(
    readonly value: unknown,
    readonly note: Record<string, unknown>,
  ) {}
}

/**
 * A value with the text people and models read of it (a board, rather than its JSON): the call answers `text` as
 * the text content and the value as structuredContent (the tool declares an output).
 */
export class Readable<T = unknown> {
  constructor(
    readonly value: T,
    readonly text: string,
  ) {}
}

/**
 * A handler's answer that is already a whole MCP tool result (content blocks of any type, isError, or a modern
 * interim result): the call path returns it as it is instead of wrapping a JSON answer.
 */
export class RawResult {
  constructor(readonly result: Record<string, unknown>) {}
}

const mutates = (effect: Effect) => effect !== "read";
export const isMutating = (tool: Pick<ToolDefinition, "effect">): boolean => mutates(tool.effect);

/** 1–128 chars of [A-Za-z0-9_.:-] (docs/protocol.md#idempotency). */
const idempotencyKeyShape = z
  .string()
  .regex(/^[A-Za-z0-9_.:-]{1,128}$/, { error: "must be 1-128 chars of A-Z, a-z, 0-9, _ . : -" });
export const idempotencyKey = idempotencyKeyShape.describe(
  "Optional. Any unique string for this write (e.g. a UUID). If the call times out or the store is unavailable, retry with the same key: the write is applied at most once and the retry returns the first result with replayed=true.",
);
/** The same, described in a few words for the profiles that pay for every token (compact). */
const terseIdempotencyKey = idempotencyKeyShape.describe("Retry key: a retry with it is applied once.");

type Keys<I extends z.ZodObject> = Extract<keyof z.input<I>, string>;

interface Common<I extends z.ZodObject, O extends z.ZodObject | undefined> {
  name: string;
  title: string;
  description: string;
  returns: string;
  input: I;
  output?: O;
  effect: Effect;
  /** Default: "tools" for a write (a person needs the member role), none for a read. */
  personAct?: Act | ((args: z.output<I>) => Act | undefined);
  /** Default: true for reads, false for writes. */
  idempotent?: boolean;
  acting?: readonly Keys<I>[];
  filters?: readonly Keys<I>[];
  addressees?: readonly Keys<I>[];
  /** Default ["full"]. */
  profiles?: readonly Profile[];
  /** Default "arguments". */
  context?: ContextMode;
  /** Short descriptions of the added arguments (idempotencyKey), for profiles that pay for every token. */
  terse?: boolean;
  events?: readonly string[];
  errors?: readonly string[];
  /** Default 1. */
  roundTrips?: number;
  ui?: ToolUi;
  peopleOnly?: string;
  example: Example;
}

type Result<O> = O extends z.ZodObject ? z.input<O> : unknown;

/** A tool that works in one room: its input has `roomId`, and the handler gets the scope. */
export interface RoomToolSpec<I extends z.ZodObject, O extends z.ZodObject | undefined> extends Common<I, O> {
  room?: true;
  handler(args: z.output<I>, call: RoomToolCall): Promise<Result<O> | Readable<Result<O>>>;
}

/** A tool that works on no room (whoami, list_rooms, …). */
export interface TeamToolSpec<I extends z.ZodObject, O extends z.ZodObject | undefined> extends Common<I, O> {
  room: false;
  handler(args: z.output<I>, call: ToolCall): Promise<Result<O>>;
}

/** Typed constructor: the handler receives the parsed input of its own schema. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject | undefined = undefined>(
  spec: RoomToolSpec<I, O> | TeamToolSpec<I, O>,
): ToolDefinition {
  const writes = mutates(spec.effect);
  const key = spec.terse ? terseIdempotencyKey : idempotencyKey;
  const input = writes ? spec.input.extend({ idempotencyKey: key.optional() }) : spec.input;
  const output =
    writes && spec.output
      ? spec.output.extend({
          replayed: z.boolean().optional().describe("true when this is the kept result of an earlier call"),
        })
      : spec.output;
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    returns: spec.returns,
    input,
    ...(output ? { output } : {}),
    effect: spec.effect,
    ...(spec.personAct !== undefined
      ? { personAct: spec.personAct as ToolDefinition["personAct"] }
      : writes
        ? { personAct: "tools" as const }
        : {}),
    idempotent: spec.idempotent ?? !writes,
    acting: spec.acting ?? [],
    filters: spec.filters ?? [],
    addressees: spec.addressees ?? [],
    room: spec.room !== false,
    profiles: spec.profiles ?? ["full"],
    context: spec.context ?? "arguments",
    events: spec.events ?? [],
    errors: spec.errors ?? [],
    roundTrips: spec.roundTrips ?? 1,
    ...(spec.ui ? { ui: spec.ui } : {}),
    ...(spec.peopleOnly !== undefined ? { peopleOnly: spec.peopleOnly } : {}),
    example: spec.example,
    handler: spec.handler as ToolDefinition["handler"],
  };
}

/** The arguments a tool's context mode concerns: roomId (room tools) and its first acting argument. */
export function contextFields(tool: Pick<ToolDefinition, "room" | "acting">): string[] {
  const fields = tool.room ? ["roomId"] : [];
  const agent = tool.acting[0];
  return agent === undefined ? fields : [...fields, agent];
}

const published = new WeakMap<ToolDefinition, z.ZodObject>();
/**
 * The input schema clients see in tools/list: the definition's, with the context fields made optional
 * ("optional") or left out ("context").
 */
export function publishedInput(tool: ToolDefinition): z.ZodObject {
  let schema = published.get(tool);
  if (!schema) {
    const mask = Object.fromEntries(contextFields(tool).map((field) => [field, true])) as Record<
      string,
      true
    > &
      Record<number, never>;
    schema =
      tool.context === "arguments"
        ? tool.input
        : tool.context === "optional"
          ? tool.input.partial(mask)
          : tool.input.omit(mask);
    published.set(tool, schema);
  }
  return schema;
}
