/**
 * A 2026-07-28 request, answered without the SDK: envelope checks (envelope.ts), then the method — server/discover,
 * tools, resources, prompts, completion, subscriptions/listen — with every result in this revision's shape
 * (results.ts). Methods the revision removed (initialize, ping, logging/setLevel, resources/subscribe, …) and
 * unknown ones answer 404 with -32601. Nothing is built per request that does not depend on the request.
 */
import { MODERN_VERSION, SUPPORTED_VERSIONS } from "../eras.ts";
import { startOperation, type WatchedOperation } from "../operations.ts";
import { CAPABILITIES, INSTRUCTIONS, type McpRequestDeps, surfaceCallOf } from "../request-deps.ts";
import { negotiate } from "../server.ts";
import { answerSurface, SURFACE_METHODS } from "../surface/methods.ts";
import { McpFailure, type SurfaceCall } from "../surface/types.ts";
import type { RequestIO } from "../tool.ts";
import { runTool } from "../tool-run.ts";
import { checkEnvelope, errorResponse, type ModernRequest } from "./envelope.ts";
import { listen } from "./listen.ts";
import {
  answer,
  envelopeText,
  modernResult,
  RESULT_META_TEXT,
  streamedAnswer,
  toolsListText,
} from "./results.ts";

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** The discover result of a profile (its instructions differ), built once. */
const discovered = new Map<string, string>();
function discoverText(profile: keyof typeof INSTRUCTIONS): string {
  let text = discovered.get(profile);
  if (text === undefined) {
    text = JSON.stringify(
      modernResult("server/discover", {
        supportedVersions: SUPPORTED_VERSIONS,
        capabilities: CAPABILITIES,
        instructions: INSTRUCTIONS[profile],
      }),
    );
    discovered.set(profile, text);
  }
  return text;
}

export function surfaceCall(deps: McpRequestDeps, request: ModernRequest, signal: AbortSignal): SurfaceCall {
  return {
    ...surfaceCallOf(deps, signal, request.clientCapabilities),
    ...(request.params.inputResponses !== undefined ? { inputResponses: request.params.inputResponses } : {}),
    ...(request.params.requestState !== undefined ? { requestState: request.params.requestState } : {}),
  };
}

/** A method's failure as this revision answers it: 404 for an unknown method, the failure's own status else. */
const failed = (id: ModernRequest["id"], failure: McpFailure) =>
  errorResponse(
    failure.code === -32601 ? 404 : failure.status,
    id,
    failure.code,
    failure.message,
    failure.data,
  );

export async function handleModern(http: Request, body: unknown, deps: McpRequestDeps): Promise<Response> {
  const checked = checkEnvelope(http.headers, body);
  if ("refused" in checked) return checked.refused;
  // Each request or notification is one operation (metrics, and a span when tracing is on: operations.ts).
  const operation = startOperation(body, http.headers, deps);
  if ("notification" in checked) {
    operation?.end();
    return new Response(null, { status: 202 });
  }
  if (!operation) return answerRequest(http, checked.ok, deps);
  return operation.run(async () => {
    try {
      return await answerRequest(http, checked.ok, deps, operation);
    } catch (error) {
      operation.end({ type: "-32603" });
      throw error;
    }
  });
}

async function answerRequest(
  http: Request,
  request: ModernRequest,
  deps: McpRequestDeps,
  operation?: WatchedOperation,
): Promise<Response> {
  const { id, method, params } = request;
  const sse = !negotiate(http.headers.get("accept")).json;
  try {
    let response: Response;
    switch (method) {
      case "server/discover":
        response = answer(envelopeText(id, discoverText(deps.profile)), sse);
        break;
      case "tools/list":
        response = answer(
          envelopeText(id, toolsListText(deps.catalog, deps.profile, deps.principal.readOnly === true)),
          sse,
        );
        break;
      // A tool call ends its operation itself, once its result is known (a streamed one after its notifications).
      case "tools/call":
        return await toolCall(http, request, deps, sse, operation);
      case "subscriptions/listen":
        response = await listen(http, request, deps, surfaceCall(deps, request, http.signal));
        break;
      default: {
        if (!SURFACE_METHODS.has(method))
          throw new McpFailure(-32601, `Method not found: ${method.slice(0, 100)}`);
        const result = await answerSurface(
          method,
          params,
          surfaceCall(deps, request, http.signal),
          deps.features,
        );
        response = answer(envelopeText(id, JSON.stringify(modernResult(method, result))), sse);
      }
    }
    operation?.end();
    return response;
  } catch (error) {
    if (!(error instanceof McpFailure)) throw error;
    operation?.end({ type: String(error.code), message: error.message });
    return failed(id, error);
  }
}

/**
 * tools/call: the one call path. A client that accepts a stream and asked for progress or logs gets an SSE answer
 * (notifications, then the result); every other answer is one message, the tool's JSON spliced in once.
 */
async function toolCall(
  http: Request,
  request: ModernRequest,
  deps: McpRequestDeps,
  sse: boolean,
  operation?: WatchedOperation,
): Promise<Response> {
  const { id, params } = request;
  if (typeof params.name !== "string")
    throw new McpFailure(-32602, "Invalid params: params.name: must be the tool's name, a string");
  if (params.arguments !== undefined && !isRecord(params.arguments))
    throw new McpFailure(-32602, "Invalid params: params.arguments: must be an object of named arguments");
  const args = params.arguments as Record<string, unknown> | undefined;
  const accepts = (http.headers.get("accept") ?? "").includes("text/event-stream");
  const streamed =
    sse || (accepts && (request.progressToken !== undefined || request.logLevel !== undefined));
  // A stream's own end (the client going) also cancels the call; a plain answer needs only the request's signal.
  const controller = streamed ? new AbortController() : undefined;
  if (controller) http.signal.addEventListener("abort", () => controller.abort(), { once: true });
  const stream = controller ? streamedAnswer(controller) : undefined;
  const signal = controller ? controller.signal : http.signal;
  const io: RequestIO = {
    era: "modern",
    clientCapabilities: request.clientCapabilities,
    ...(request.progressToken !== undefined ? { progressToken: request.progressToken } : {}),
    ...(request.logLevel !== undefined ? { logLevel: request.logLevel } : {}),
    ...(params.inputResponses !== undefined ? { inputResponses: params.inputResponses } : {}),
    ...(params.requestState !== undefined ? { requestState: params.requestState } : {}),
    notify: async (method, notificationParams) =>
      stream?.notify({ jsonrpc: "2.0", method, params: notificationParams }),
  };
  const run = async () => {
    const { result, json } = await runTool(deps, params.name as string, args, signal, io);
    operation?.end(result.isError === true ? { type: "tool_error" } : undefined);
    if (json !== undefined && !("resultType" in result)) {
      // The answer's JSON is both the text content and structuredContent: serialised once, spliced in twice.
      const structured = result.structuredContent !== undefined ? `,"structuredContent":${json.raw}` : "";
      return envelopeText(
        id,
        `{"content":[{"type":"text","text":"${json.escaped}"}]${structured},"resultType":"complete","_meta":${RESULT_META_TEXT}}`,
      );
    }
    return envelopeText(id, JSON.stringify(modernResult("tools/call", result as Record<string, unknown>)));
  };
  if (!stream) return answer(await run(), false);
  run().then(
    (text) => stream.finish(text),
    (error: unknown) => {
      const failure =
        error instanceof McpFailure
          ? error
          : new McpFailure(-32603, `Internal error (request ${deps.requestId})`);
      operation?.end({ type: String(failure.code), message: failure.message });
      stream.finish(
        JSON.stringify({
          jsonrpc: "2.0",
          id,
          error: {
            code: failure.code,
            message: failure.message,
            ...(failure.data ? { data: failure.data } : {}),
          },
        }),
      );
    },
  );
  return stream.response;
}

export { MODERN_VERSION };
