/**
 * What an MCP endpoint offers besides its tools, era-neutral: resources (with templates), prompts and completions.
 * Both eras answer these methods from the same features (the legacy path through the SDK's fallback handler, the
 * modern path directly); only the envelope of the answer differs.
 */
import type { LiveRooms } from "../../live/hub.ts";
import type { Logger } from "../../log.ts";
import type { Principal } from "../../protocol/principal.ts";
import type { RoomStore } from "../../store/types.ts";
import type { CallContext } from "../call-path.ts";
import type { Catalog } from "../catalog.ts";

export { INVALID_PARAMS, McpFailure, METHOD_NOT_FOUND, resourceNotFound } from "../failure.ts";

/** Everything a feature may use to answer one request. */
export interface SurfaceCall {
  catalog: Catalog;
  store: RoomStore;
  live: LiveRooms;
  principal: Principal;
  requestId: string;
  logger: Logger;
  signal?: AbortSignal;
  context?: CallContext;
  /** The client's declared capabilities (modern era: from `_meta`; legacy: unknown, so empty). */
  clientCapabilities: Record<string, unknown>;
  /** The modern era's `params.inputResponses` / `params.requestState` (multi round-trip requests). */
  inputResponses?: unknown;
  requestState?: unknown;
}

export interface ListedResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** Extensions' metadata (MCP Apps: `ui`). */
  _meta?: Record<string, unknown>;
}

export interface ListedTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

export type ResourceContents =
  | { uri: string; mimeType: string; text: string; _meta?: Record<string, unknown> }
  | { uri: string; mimeType: string; blob: string; _meta?: Record<string, unknown> };

export interface ListedPrompt {
  name: string;
  title?: string;
  description: string;
  arguments?: { name: string; description?: string; required?: boolean }[];
}

export interface PromptMessage {
  role: "user" | "assistant";
  content: Record<string, unknown>;
}

/** What completion/complete is asked about: a prompt argument or a resource template variable. */
export interface CompletionRequest {
  ref: { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string };
  argument: { name: string; value: string };
  /** Arguments already chosen (a room picked before its tasks are completed). */
  context?: Record<string, string>;
}

/**
 * Resources, prompts and completions of one profile. A method may answer a multi round-trip interim result
 * (`{resultType: "input_required", …}`) in the modern era; the legacy era never asks (no fixture does there).
 */
export interface Features {
  listResources(
    call: SurfaceCall,
    cursor?: string,
  ): Promise<{ resources: ListedResource[]; nextCursor?: string }>;
  readonly templates: readonly ListedTemplate[];
  readResource(call: SurfaceCall, uri: string): Promise<{ contents: ResourceContents[] }>;
  readonly prompts: readonly ListedPrompt[];
  getPrompt(
    call: SurfaceCall,
    name: string,
    args: Record<string, string>,
  ): Promise<{ description?: string; messages: PromptMessage[] } | Record<string, unknown>>;
  complete(call: SurfaceCall, request: CompletionRequest): Promise<string[]>;
  /**
   * Whether `uri` names a resource this caller may subscribe to, and which room it watches: resolves the room
   * scope (throws the resource's -32602 when it cannot be read, exactly like a read).
   */
  watchable?(call: SurfaceCall, uri: string): Promise<{ roomId: string } | null>;
}
