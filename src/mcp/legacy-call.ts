/**
 * The handshake era's commonest request answered without the SDK's per-request server and transport: one plain
 * tools/call (not a batch, no `params._meta`) sent as the exact `application/json` SDK clients send, to be answered
 * as JSON. For such a request the SDK's transport and Protocol do nothing but check it, run the handler and
 * serialise `{result, jsonrpc, id}` (or `{jsonrpc, id, error}`) into a 200 `application/json` response — notifications
 * a handler sends have no stream to go to in JSON mode and are dropped. This lane does the same checks, through the
 * SDK's own rules where they are exported, and writes the same bytes (test: legacy-call.test.ts compares them with the
 * SDK's answer to the same requests); everything else — batches, `_meta` (progress), streams, other spellings of the
 * content type, unsupported versions — still goes through the SDK (legacy.ts).
 */
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { startOperation } from "./operations.ts";
import type { McpRequestDeps } from "./request-deps.ts";
import { requestVerdict } from "./sdk-guards.ts";
import { lone } from "./splice.ts";
import { McpFailure } from "./surface/types.ts";
import type { RequestIO } from "./tool.ts";
import { runTool } from "./tool-run.ts";

type RequestId = string | number;

/** The lone call's JSON-RPC request, when this lane may answer it. */
function directRequest(
  request: Request,
  body: unknown,
): { id: RequestId; name: string; args?: Record<string, unknown> } | undefined {
  if (!lone(body, "tools/call") || requestVerdict(body) !== true) return undefined;
  // The SDK's own fast path for the content type; anything else is parsed by it (and refused when not JSON).
  if (request.headers.get("content-type") !== "application/json") return undefined;
  // The transport refuses a version it does not know (400): left to it.
  const version = request.headers.get("mcp-protocol-version");
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  // readBody checked the params: a name, and arguments that are an object when present.
  const { id, params } = body as {
    id: RequestId;
    params: { name: string; arguments?: Record<string, unknown> };
  };
  return { id, name: params.name, ...(params.arguments !== undefined ? { args: params.arguments } : {}) };
}

/** A JSON-RPC answer as the SDK's transport sends it in JSON mode. */
const json = (text: string) =>
  new Response(text, { status: 200, headers: { "Content-Type": "application/json" } });

/**
 * In JSON mode a notification related to the request has no stream to go to: the SDK drops it, as here. One object
 * for every call (nothing writes to it).
 */
const IO: RequestIO = { era: "legacy", clientCapabilities: {}, notify: async () => {} };

/**
 * Answers `body` directly when it is a plain lone tools/call to be answered as JSON; undefined when the SDK's path
 * must answer it.
 */
export function directCall(
  request: Request,
  body: unknown,
  deps: McpRequestDeps,
): Promise<Response> | undefined {
  const call = directRequest(request, body);
  if (!call) return undefined;
  const { id } = call;
  const operation = startOperation(body, request.headers, deps);
  const answer = async (): Promise<Response> => {
    try {
      const { result, json: text } = await runTool(deps, call.name, call.args, request.signal, IO);
      operation?.end(result.isError === true ? { type: "tool_error" } : undefined);
      // `{result, jsonrpc, id}` serialised: the answer's JSON, serialised once by the call path, is both the text
      // content and structuredContent (the result holds nothing else then: call-path.ts).
      if (text === undefined) return json(JSON.stringify({ result, jsonrpc: "2.0", id }));
      const structured = result.structuredContent !== undefined ? `,"structuredContent":${text.raw}` : "";
      return json(
        `{"result":{"content":[{"type":"text","text":"${text.escaped}"}]${structured}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`,
      );
    } catch (error) {
      if (!(error instanceof McpFailure)) {
        operation?.end({ type: "-32603" });
        throw error;
      }
      // What the SDK's Protocol answers for a handler's error (legacy.ts hands it McpFailure as the same).
      const failure = {
        code: error.code,
        message: error.message,
        ...(error.data ? { data: error.data } : {}),
      };
      operation?.end({ type: String(failure.code), message: failure.message });
      return json(JSON.stringify({ jsonrpc: "2.0", id, error: failure }));
    }
  };
  return operation ? operation.run(answer) : answer();
}
