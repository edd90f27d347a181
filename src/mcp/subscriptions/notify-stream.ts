/**
 * The Server-Sent Events stream that carries resource update notifications: its first messages (the modern era's
 * acknowledgement, the legacy era's `{}` response), then one `notifications/resources/updated` per touched URI,
 * and SSE comments as keep-alives. Pending updates are a set of URIs (a slow client gets each URI once, however
 * often it changed), so memory is bounded by what was subscribed. The stream ends when the client goes, when a
 * room's feed fails, or at shutdown (with the era's closing message, if any).
 */
import type { LiveRooms } from "../../live/hub.ts";
import { type WatchedResource, watchResources } from "./room-watch.ts";

/** How often a quiet stream sends a comment, so proxies and clients keep it open. */
export const KEEP_ALIVE_MS = 15_000;

export interface NotifyStreamOptions {
  live: LiveRooms;
  teamId: string;
  resources: readonly WatchedResource[];
  /** JSON-RPC messages sent before any notification. */
  first: readonly object[];
  /** The notification of one updated URI. */
  notification(uri: string): object;
  /** The message sent when roomd ends the stream at shutdown. */
  closing?: () => object;
  /** Aborted when the client goes. */
  signal: AbortSignal;
  /** Called once when the stream ends, however it ends (the stream slot). */
  release(): void;
  keepAliveMs?: number;
}

const encoder = new TextEncoder();
const frame = (message: object) => encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`);

/** Starts watching (rejects, with nothing left behind, when a room cannot be watched) and returns the stream. */
export async function notifyStream(options: NotifyStreamOptions): Promise<ReadableStream<Uint8Array>> {
  const pending = new Set<string>();
  let wake: (() => void) | undefined;
  let ended = false;
  let closingMessage: object | undefined;
  const poke = () => wake?.();
  let watch: { stop(): void };
  try {
    watch = await watchResources(
      options.live,
      options.teamId,
      options.resources,
      (uri) => {
        pending.add(uri);
        poke();
      },
      () => end(),
    );
  } catch (error) {
    options.release();
    throw error;
  }
  const offClose = options.live.onClose(() => {
    closingMessage = options.closing?.();
    end();
  });
  const onAbort = () => end();
  options.signal.addEventListener("abort", onAbort);
  function end() {
    if (ended) return;
    ended = true;
    watch.stop();
    offClose();
    options.signal.removeEventListener("abort", onAbort);
    options.release();
    poke();
  }
  const idle = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        wake = undefined;
        resolve();
      }, ms);
      wake = () => {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
    });
  let started = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!started) {
          started = true;
          for (const message of options.first) controller.enqueue(frame(message));
          return;
        }
        if (pending.size === 0 && !ended) await idle(options.keepAliveMs ?? KEEP_ALIVE_MS);
        if (pending.size > 0) {
          const uris = [...pending];
          pending.clear();
          for (const uri of uris) controller.enqueue(frame(options.notification(uri)));
          return;
        }
        if (ended) {
          if (closingMessage) controller.enqueue(frame(closingMessage));
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(":\n\n"));
      },
      cancel() {
        end();
      },
    },
    { highWaterMark: 1 },
  );
}
