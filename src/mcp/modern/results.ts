/**
 * The 2026-07-28 shape of an answer: every result carries `resultType` and the server's identity in `_meta`;
 * list and read results carry caching hints (`ttlMs`, `cacheScope`). Answers go out as one JSON object, or as a
 * one-request SSE stream (notifications related to the request, then the response) when the client prefers it or
 * asked for progress or logs. What does not depend on the request (each profile's tools/list result) is
 * serialised once per process.
 */

import type { Catalog } from "../catalog.ts";
import { META_SERVER } from "../eras.ts";
import { SERVER_INFO } from "../server-info.ts";
import type { Profile } from "../tool.ts";
import type { RequestId } from "./envelope.ts";

/** `_meta` of every result: who answered. */
export const RESULT_META = { [META_SERVER]: SERVER_INFO } as const;
/** RESULT_META serialised once: a tool call's answer is assembled around it as text. */
export const RESULT_META_TEXT = JSON.stringify(RESULT_META);

/**
 * Caching hints per method. The tool, template and prompt lists change only with roomd's version (5 minutes),
 * and hold nothing of the caller (public; the profile is in the URL). Resources are the caller's rooms: private,
 * and live (0 ms).
 */
export const CACHING: Record<string, { ttlMs: number; cacheScope: "public" | "private" }> = {
  "server/discover": { ttlMs: 300_000, cacheScope: "public" },
  "tools/list": { ttlMs: 300_000, cacheScope: "public" },
  "prompts/list": { ttlMs: 300_000, cacheScope: "public" },
  "resources/templates/list": { ttlMs: 300_000, cacheScope: "public" },
  "resources/list": { ttlMs: 0, cacheScope: "private" },
  "resources/read": { ttlMs: 0, cacheScope: "private" },
};

/** A result with what this revision adds: `resultType` (kept when the method set it), caching hints, `_meta`. */
export function modernResult(method: string, result: Record<string, unknown>): Record<string, unknown> {
  const meta = result._meta as Record<string, unknown> | undefined;
  return {
    ...result,
    resultType: result.resultType ?? "complete",
    ...CACHING[method],
    _meta: meta ? { ...meta, ...RESULT_META } : RESULT_META,
  };
}

const encoder = new TextEncoder();

/** `{"jsonrpc":"2.0","id":<id>,"result":` and `}` around an already serialised result. */
export const envelopeText = (id: RequestId, result: string) =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`;

/** Each catalog's tools/list result per profile, serialised once (~116 KB for `full`). */
const listings = new WeakMap<Catalog, Map<string, string>>();
export function toolsListText(catalog: Catalog, profile: Profile, readOnly = false): string {
  let byProfile = listings.get(catalog);
  if (!byProfile) {
    byProfile = new Map();
    listings.set(catalog, byProfile);
  }
  const id = readOnly ? `${profile} read` : profile;
  let text = byProfile.get(id);
  if (text === undefined) {
    const result = modernResult("tools/list", { tools: catalog.listing(profile, readOnly) });
    // A read-only key's list depends on the key (protocol/key-life.ts): not to be shared with other callers.
    text = JSON.stringify(readOnly ? { ...result, cacheScope: "private" } : result);
    byProfile.set(id, text);
  }
  return text;
}

export const SSE_HEADERS = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-store",
  "X-Accel-Buffering": "no",
} as const;

export const sseFrame = (message: string) => encoder.encode(`event: message\ndata: ${message}\n\n`);

/** One answer as the client asked: JSON, or an SSE stream of that one message. */
export function answer(text: string, sse: boolean, status = 200): Response {
  if (!sse) return new Response(text, { status, headers: { "Content-Type": "application/json" } });
  return new Response(sseFrame(text), { status, headers: SSE_HEADERS });
}

/**
 * A streamed answer: returned at once; `notify` sends a notification related to the request; the response ends
 * the stream. Closing the stream (the client going) aborts `signal`: the revision's cancellation.
 */
export function streamedAnswer(controller: AbortController): {
  response: Response;
  notify(message: object): void;
  finish(text: string): void;
} {
  let sink: ReadableStreamDefaultController<Uint8Array> | undefined;
  let done = false;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      sink = c;
    },
    cancel() {
      done = true;
      controller.abort();
    },
  });
  return {
    response: new Response(body, { headers: SSE_HEADERS }),
    notify(message) {
      if (!done) sink?.enqueue(sseFrame(JSON.stringify(message)));
    },
    finish(text) {
      if (done) return;
      done = true;
      sink?.enqueue(sseFrame(text));
      sink?.close();
    },
  };
}
