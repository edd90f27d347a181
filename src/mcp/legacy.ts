/**
 * The 2025-era request path (initialize handshake revisions): every POST gets a fresh low-level SDK Server and
 * web-standard transport, no session. Tools, resources, prompts and completions are served by the server's
 * fallback handler (no second zod parse of the request or the result; a lone tools/list and a large lone tools/call
 * are spliced, splice.ts); initialize, ping and notifications stay the SDK's. A plain lone tools/call answered as
 * JSON, the commonest request, skips the server and transport altogether (legacy-call.ts).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { ErrorCode, ResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { JsonText } from "../protocol/json-text.ts";
import { routeAsks } from "./legacy-asks.ts";
import { directCall } from "./legacy-call.ts";
import { observeOperations } from "./operations.ts";
import { CAPABILITIES, INSTRUCTIONS, type McpRequestDeps, surfaceCallOf } from "./request-deps.ts";
import { installGuards } from "./sdk-guards.ts";
import { negotiate } from "./server.ts";
import { SERVER_INFO } from "./server-info.ts";
import {
  LISTING_MARKER,
  LISTING_QUOTED,
  listingBytes,
  lone,
  SPLICE_FROM,
  STRUCTURED_MARKER,
  STRUCTURED_VALUE,
  spliced,
  TEXT_MARKER,
  TEXT_VALUE,
} from "./splice.ts";
import { answerSurface, SURFACE_METHODS } from "./surface/methods.ts";
import { McpFailure, type SurfaceCall } from "./surface/types.ts";
import type { RequestIO } from "./tool.ts";
import { runTool } from "./tool-run.ts";

/**
 * The SDK's Server builds a fresh Ajv instance unless given one, which cost about a fifth of every request's CPU
 * (measured with --cpu-prof). One instance made at module load serves every per-request server.
 */
const VALIDATOR = new AjvJsonSchemaValidator();

// The SDK's JSON-RPC type guards settle common messages without zod (sdk-guards.ts).
installGuards();

/** What the SDK answers for a method no handler serves (as it would without the fallback handler). */
const methodNotFound = () => Object.assign(new Error("Method not found"), { code: ErrorCode.MethodNotFound });

/** A method's refusal as the SDK sends it: its code, message and data. */
const sdkError = (failure: McpFailure) =>
  Object.assign(new Error(failure.message), {
    code: failure.code,
    ...(failure.data ? { data: failure.data } : {}),
  });

/** The headers the transport reads: the negotiated Accept, the body's type and the protocol version. */
function transportHeaders(request: Request, accept: string): Headers {
  const headers = new Headers({ accept, "content-type": request.headers.get("content-type") ?? "" });
  const version = request.headers.get("mcp-protocol-version");
  if (version !== null) headers.set("mcp-protocol-version", version);
  return headers;
}

export interface LegacyOptions {
  /** Answer as a stream whatever the client prefers (a call that sends notifications or asks the client). */
  stream?: boolean;
  /** The profile also answers logging/setLevel and may send log notifications (the conformance fixtures). */
  logging?: boolean;
}

/** Answers one parsed JSON-RPC request (or batch) of the handshake era with a fresh server and transport. */
export async function handleLegacy(
  request: Request,
  body: unknown,
  deps: McpRequestDeps,
  options: LegacyOptions = {},
): Promise<Response> {
  const negotiated = negotiate(request.headers.get("accept"));
  const json = negotiated.json && !options.stream;
  // A plain lone tools/call answered as JSON needs nothing of the SDK's per-request machinery (legacy-call.ts).
  const direct = json && !options.logging ? directCall(request, body, deps) : undefined;
  if (direct) return direct;
  const server = new Server(SERVER_INFO, {
    capabilities: options.logging ? { ...CAPABILITIES, logging: {} } : CAPABILITIES,
    instructions: INSTRUCTIONS[deps.profile],
    jsonSchemaValidator: VALIDATOR,
  });
  const splice = lone(body, "tools/list");
  // Only a lone tools/call answered as JSON is read back and spliced: a batch's answers are left as the SDK made
  // them, and an SSE stream keeps sending its headers at once (a long wait_for_events is not held back).
  const loneCall = json && lone(body, "tools/call");
  // A tool call's answer, serialised once by the call path: spliced into the response for both of its places.
  let answer: { text: JsonText; structured: boolean } | undefined;
  const surface = (): SurfaceCall => surfaceCallOf(deps, request.signal);
  server.fallbackRequestHandler = async (req, extra) => {
    if (req.method === "tools/list") {
      const readOnly = deps.principal.readOnly === true;
      return { tools: (splice ? LISTING_MARKER : deps.catalog.listing(deps.profile, readOnly)) as never };
    }
    try {
      if (SURFACE_METHODS.has(req.method))
        return (await answerSurface(req.method, req.params, surface(), deps.features)) as never;
      if (req.method === "resources/subscribe" || req.method === "resources/unsubscribe") {
        // A subscription is kept only on a stream (mcp-route.ts answers a lone subscribe that accepts one); here
        // the URI is checked like a read and the request acknowledged.
        const uri = (req.params as { uri?: unknown } | undefined)?.uri;
        if (typeof uri !== "string")
          throw new McpFailure(-32602, "Invalid params: params.uri: required, a string");
        if (req.method === "resources/subscribe") await deps.features.watchable?.(surface(), uri);
        return {} as never;
      }
      if (req.method === "logging/setLevel" && options.logging) return {} as never;
      if (req.method !== "tools/call") throw methodNotFound();
      // readBody checked the params: a name, and arguments that are an object when present.
      const params = req.params as {
        name: string;
        arguments?: Record<string, unknown>;
        _meta?: { progressToken?: string | number };
      };
      const token = params._meta?.progressToken;
      const io: RequestIO = {
        era: "legacy",
        clientCapabilities: {},
        ...(token !== undefined ? { progressToken: token } : {}),
        notify: (method, notificationParams) =>
          extra.sendNotification({ method, params: notificationParams } as never),
        ...(json
          ? {}
          : {
              ask: (method, askParams) =>
                extra.sendRequest({ method, params: askParams } as never, ResultSchema),
            }),
      };
      const { result, json: text } = await runTool(deps, params.name, params.arguments, request.signal, io);
      if (text === undefined || !loneCall || text.raw.length < SPLICE_FROM) return result as never;
      const structured = result.structuredContent !== undefined;
      answer = { text, structured };
      return {
        content: [{ type: "text", text: TEXT_VALUE }],
        ...(structured ? { structuredContent: STRUCTURED_VALUE } : {}),
      } as never;
    } catch (error) {
      throw error instanceof McpFailure ? sdkError(error) : error;
    }
  };
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: json,
  });
  await server.connect(transport);
  if (!json) routeAsks(transport, deps.principal);
  if (deps.onOperation || deps.tracer) observeOperations(transport, request.headers, deps);
  // The transport reads only headers (the body is given parsed); most clients already list both types.
  const given = request.headers.get("accept") ?? "";
  const forTransport =
    given.includes("application/json") && given.includes("text/event-stream")
      ? request
      : new Request(request.url, { method: "POST", headers: transportHeaders(request, negotiated.accept) });
  const response = await transport.handleRequest(forTransport, { parsedBody: body });
  if (splice)
    return spliced(response, () => [
      [LISTING_QUOTED, listingBytes(deps.catalog, deps.profile, deps.principal.readOnly === true)],
    ]);
  if (!loneCall) return response;
  return spliced(response, () => {
    if (answer === undefined) return [];
    const { text, structured } = answer;
    return [
      [TEXT_MARKER, `"${text.escaped}"`],
      ...(structured ? [[STRUCTURED_MARKER, text.raw] as [string, string]] : []),
    ];
  });
}
