/**
 * subscriptions/listen: a long-lived SSE answer carrying the notifications the client opted in to. roomd's lists
 * never change while it runs, so of the filter only `resourceSubscriptions` is honoured: each URI is checked like
 * a read (a room the key may not read is refused with the read's -32602, nothing more), the stream takes a stream
 * slot (STREAMS_PER_TEAM / STREAMS_PER_PROCESS, like room streams: 429 beyond), then acknowledges first and tags
 * every notification with the subscription id (the request's id). At shutdown the listen's result ends it.
 */
import { META_SUBSCRIPTION } from "../eras.ts";
import type { McpRequestDeps } from "../request-deps.ts";
import { notifyStream } from "../subscriptions/notify-stream.ts";
import type { WatchedResource } from "../subscriptions/room-watch.ts";
import { parseRoomUri } from "../surface/room-uris.ts";
import { McpFailure, type SurfaceCall } from "../surface/types.ts";
import { errorResponse, type ModernRequest } from "./envelope.ts";
import { RESULT_META, SSE_HEADERS } from "./results.ts";

/** Resources one listen may watch. */
export const MAX_SUBSCRIBED = 100;

const invalid = (what: string) => new McpFailure(-32602, `Invalid params: ${what}`);

function filterOf(params: Record<string, unknown>): string[] {
  const filter = params.notifications;
  if (filter === null || typeof filter !== "object" || Array.isArray(filter))
    throw invalid(
      "params.notifications: required, the notifications to receive, e.g. {resourceSubscriptions: [uri]}",
    );
  const { resourceSubscriptions: uris, ...flags } = filter as Record<string, unknown>;
  for (const [name, value] of Object.entries(flags))
    if (typeof value !== "boolean")
      throw invalid(`params.notifications.${name.slice(0, 40)}: must be a boolean`);
  if (uris === undefined) return [];
  if (!Array.isArray(uris) || uris.some((u) => typeof u !== "string"))
    throw invalid("params.notifications.resourceSubscriptions: must be an array of resource URIs");
  if (uris.length > MAX_SUBSCRIBED)
    throw invalid(`params.notifications.resourceSubscriptions: at most ${MAX_SUBSCRIBED} URIs per listen`);
  return [...new Set(uris as string[])];
}

export async function listen(
  http: Request,
  request: ModernRequest,
  deps: McpRequestDeps,
  call: SurfaceCall,
): Promise<Response> {
  const uris = filterOf(request.params);
  const watched: WatchedResource[] = [];
  for (const uri of uris) {
    const room = await deps.features.watchable?.(call, uri);
    const resource = parseRoomUri(uri);
    if (room && resource) watched.push({ uri, resource });
  }
  const slot = deps.streams.take();
  if ("refused" in slot)
    return errorResponse(
      429,
      request.id,
      -32000,
      `Too many open streams (${slot.refused}); close one or retry later`,
    );
  const tag = { [META_SUBSCRIPTION]: request.id };
  const body = await notifyStream({
    live: deps.live,
    teamId: deps.principal.teamId,
    resources: watched,
    first: [
      {
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { notifications: uris.length > 0 ? { resourceSubscriptions: uris } : {}, _meta: tag },
      },
    ],
    notification: (uri) => ({
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: { uri, _meta: tag },
    }),
    closing: () => ({
      jsonrpc: "2.0",
      id: request.id,
      result: { resultType: "complete", _meta: { ...RESULT_META, ...tag } },
    }),
    signal: http.signal,
    release: () => slot.release(),
    ...(deps.keepAliveMs !== undefined ? { keepAliveMs: deps.keepAliveMs } : {}),
  });
  return new Response(body, { headers: SSE_HEADERS });
}
