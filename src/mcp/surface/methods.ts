/**
 * The resource, prompt and completion methods, answered from a profile's features: their params checked with a
 * readable -32602, their results as plain objects. The legacy path returns them through the SDK; the modern path
 * adds `resultType`, server identity and caching hints.
 */
import { completeRoomArgument } from "./room-completion.ts";
import { getRoomPrompt, ROOM_PROMPTS } from "./room-prompts.ts";
import { listRoomResources, readRoomResource, watchableRoomResource } from "./room-resources.ts";
import { ROOM_TEMPLATES } from "./room-uris.ts";
import { type CompletionRequest, type Features, McpFailure, type SurfaceCall } from "./types.ts";

/** roomd's own resources, templates, prompts and completions (every profile but the conformance fixtures). */
export const ROOM_FEATURES: Features = {
  listResources: listRoomResources,
  templates: ROOM_TEMPLATES.map(({ kind: _kind, ...template }) => ({
    ...template,
    mimeType: "application/json",
  })),
  readResource: readRoomResource,
  prompts: ROOM_PROMPTS,
  getPrompt: getRoomPrompt,
  complete: completeRoomArgument,
  watchable: watchableRoomResource,
};

/** The methods answered here. */
export const SURFACE_METHODS: ReadonlySet<string> = new Set([
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/list",
  "prompts/get",
  "completion/complete",
]);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

const invalid = (what: string) => new McpFailure(-32602, `Invalid params: ${what}`);

function stringOf(params: Record<string, unknown>, field: string): string {
  const value = params[field];
  if (typeof value !== "string" || value.length === 0) throw invalid(`params.${field}: required, a string`);
  return value;
}

function cursorOf(params: Record<string, unknown>): string | undefined {
  const { cursor } = params;
  if (cursor === undefined) return undefined;
  if (typeof cursor !== "string") throw invalid("params.cursor: must be a string");
  return cursor;
}

function stringRecord(value: unknown, field: string): Record<string, string> {
  if (value === undefined) return {};
  if (!isRecord(value) || Object.values(value).some((v) => typeof v !== "string"))
    throw invalid(`params.${field}: must be an object of string values`);
  return value as Record<string, string>;
}

function completionOf(params: Record<string, unknown>): CompletionRequest {
  const { ref, argument, context } = params;
  if (!isRecord(ref)) throw invalid("params.ref: required, {type, name} or {type, uri}");
  if (!isRecord(argument) || typeof argument.name !== "string" || typeof argument.value !== "string")
    throw invalid("params.argument: required, {name, value} (strings)");
  const chosen = isRecord(context) ? stringRecord(context.arguments, "context.arguments") : {};
  const arg = { name: argument.name, value: argument.value };
  if (ref.type === "ref/prompt" && typeof ref.name === "string")
    return { ref: { type: "ref/prompt", name: ref.name }, argument: arg, context: chosen };
  if (ref.type === "ref/resource" && typeof ref.uri === "string")
    return { ref: { type: "ref/resource", uri: ref.uri }, argument: arg, context: chosen };
  throw invalid('params.ref: {type: "ref/prompt", name} or {type: "ref/resource", uri}');
}

/** Answers one surface method (SURFACE_METHODS) for a profile's features; McpFailure for refusals. */
export async function answerSurface(
  method: string,
  rawParams: unknown,
  call: SurfaceCall,
  features: Features,
): Promise<Record<string, unknown>> {
  if (rawParams !== undefined && !isRecord(rawParams)) throw invalid("params: must be an object");
  const params = rawParams ?? {};
  switch (method) {
    case "resources/list":
      return { ...(await features.listResources(call, cursorOf(params))) };
    case "resources/templates/list":
      cursorOf(params);
      return { resourceTemplates: features.templates };
    case "resources/read":
      return { ...(await features.readResource(call, stringOf(params, "uri"))) };
    case "prompts/list":
      cursorOf(params);
      return { prompts: features.prompts };
    case "prompts/get":
      return {
        ...(await features.getPrompt(
          call,
          stringOf(params, "name"),
          stringRecord(params.arguments, "arguments"),
        )),
      };
    case "completion/complete": {
      const values = await features.complete(call, completionOf(params));
      return {
        completion: { values: values.slice(0, 100), total: values.length, hasMore: values.length > 100 },
      };
    }
    default:
      throw new McpFailure(-32601, `Method not found: ${method.slice(0, 100)}`);
  }
}
