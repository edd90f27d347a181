/**
 * resources/subscribe for 2025-era clients that keep a stream. A stateless server has no session and no GET stream
 * to deliver updates on, so a lone subscribe whose client accepts SSE is answered with a stream: the `{}` result
 * first (the client's request resolves at once), then `notifications/resources/updated` for the URI as the room
 * changes — driven by the process's live rooms like every stream — until the client closes it (unsubscribing is
 * closing; resources/unsubscribe is acknowledged). A client that only takes JSON gets `{}` and no updates.
 */

import { SSE_HEADERS } from "./modern/results.ts";
import { type McpRequestDeps, surfaceCallOf } from "./request-deps.ts";
import { lone } from "./splice.ts";
import { notifyStream } from "./subscriptions/notify-stream.ts";
import { parseRoomUri } from "./surface/room-uris.ts";
import { McpFailure, type SurfaceCall } from "./surface/types.ts";

/** Whether this body is a subscribe this path answers (a lone request, from a client that accepts a stream). */
export function isStreamedSubscribe(request: Request, body: unknown): boolean {
  return (
    lone(body, "resources/subscribe") && (request.headers.get("accept") ?? "").includes("text/event-stream")
  );
}

const errorFrame = (id: unknown, failure: McpFailure) =>
  Response.json(
    {
      jsonrpc: "2.0",
      id,
      error: {
        code: failure.code,
        message: failure.message,
        ...(failure.data ? { data: failure.data } : {}),
      },
    },
    { status: 200 },
  );

export async function streamedSubscribe(
  request: Request,
  body: unknown,
  deps: McpRequestDeps,
): Promise<Response> {
  const { id, params } = body as { id: unknown; params?: { uri?: unknown } };
  const uri = params?.uri;
  if (typeof uri !== "string")
    return errorFrame(id, new McpFailure(-32602, "Invalid params: params.uri: required, a string"));
  const call: SurfaceCall = surfaceCallOf(deps, request.signal);
  try {
    const room = await deps.features.watchable?.(call, uri);
    const resource = parseRoomUri(uri);
    const slot = deps.streams.take();
    if ("refused" in slot)
      return Response.json(
        {
          jsonrpc: "2.0",
          id,
          error: {
            code: -32000,
            message: `Too many open streams (${slot.refused}); close one or retry later`,
          },
        },
        { status: 429 },
      );
    const stream = await notifyStream({
      live: deps.live,
      teamId: deps.principal.teamId,
      resources: room && resource ? [{ uri, resource }] : [],
      first: [{ jsonrpc: "2.0", id, result: {} }],
      notification: (updated) => ({
        jsonrpc: "2.0",
        method: "notifications/resources/updated",
        params: { uri: updated },
      }),
      signal: request.signal,
      release: () => slot.release(),
      ...(deps.keepAliveMs !== undefined ? { keepAliveMs: deps.keepAliveMs } : {}),
    });
    return new Response(stream, { headers: SSE_HEADERS });
  } catch (error) {
    if (error instanceof McpFailure) return errorFrame(id, error);
    throw error;
  }
}
