/**
 * One Server-Sent Events stream of a room's log (docs/http.md#get-roomsroomidstream). The stream is pulled: the
 * runtime asks for more only when the client has taken what was sent, and each pull reads by seq from the room's hub
 * (its cache, or the store for a client that fell behind it). So a slow client costs no memory beyond one batch, the
 * switch from replay to live can neither skip nor repeat an event, and a reconnect with Last-Event-ID resumes exactly
 * after it.
 */
import { errors } from "../protocol/errors.ts";
import type { RoomEvent } from "../protocol/records.ts";
import type { RoomScope, SignalKind } from "../store/types.ts";
import type { LiveRooms, RoomHub, Watcher } from "./hub.ts";

/** Events read per pull. */
const BATCH = 100;

export interface StreamOptions {
  /** Joins the room's hub for this stream's watcher (rejects when the room cannot be read). */
  join(watcher: Watcher): Promise<RoomHub & { start: number }>;
  /** Replay every event with a larger seq first; null: start with the next new event. */
  after: number | null;
  /** Only events addressed to "all" or this agent. */
  agent?: string;
  /** Only events of these types. */
  types?: ReadonlySet<string>;
  keepAliveMs: number;
  /** Called once when the stream ends, however it ends. */
  onClose(): void;
  /** What each event's `data:` shows (default: the whole event); the public stream leaves payloads out. */
  present?: (event: RoomEvent) => object;
}

/**
 * The `join` of a stream of a room that must exist in `scope`'s team: joining reads the room once, and a room the
 * team does not own (another team's, an unknown one) is denied with nothing left behind.
 */
export const joinExisting =
  (live: LiveRooms, scope: RoomScope) =>
  async (watcher: Watcher): Promise<RoomHub & { start: number }> => {
    const hub = await live.join(scope, watcher);
    if (hub.exists) return hub;
    hub.leave();
    throw errors.denied();
  };

const encoder = new TextEncoder();

/** The SSE wire form of one log event: `id: <seq>` and the event as JSON (no `event:` line). */
export const eventFrame = (event: RoomEvent, present: (event: RoomEvent) => object = (e) => e) =>
  `id: ${event.seq}\ndata: ${JSON.stringify(present(event))}\n\n`;
export const signalFrame = (kind: SignalKind) => `event: signal\ndata: ${JSON.stringify({ kind })}\n\n`;

/**
 * Joins the room (rejecting, with nothing left behind, when it cannot be read) and returns its stream: `retry`,
 * then the replay after `options.after`, then live events, signals and keep-alives until the client goes.
 */
export async function openRoomStream(options: StreamOptions): Promise<ReadableStream<Uint8Array>> {
  let hub: RoomHub | undefined;
  let lastSeq = 0;
  let dirty = false;
  let failed: unknown;
  let wake: (() => void) | undefined;
  let ended = false;
  const signals = new Set<SignalKind>();
  const watcher: Watcher = {
    onEvents(error) {
      if (error !== undefined) failed = error;
      dirty = true;
      wake?.();
    },
    onSignal(kind) {
      signals.add(kind);
      wake?.();
    },
  };
  const wanted = (e: RoomEvent) =>
    (options.agent === undefined || e.to === "all" || e.to === options.agent) &&
    (options.types === undefined || options.types.has(e.type));
  const end = () => {
    if (ended) return;
    ended = true;
    wake?.();
    hub?.leave();
    options.onClose();
  };
  /** Waits for a wake-up or `ms`; true when woken. */
  const idle = (ms: number) =>
    new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        wake = undefined;
        resolve(false);
      }, ms);
      wake = () => {
        clearTimeout(timer);
        wake = undefined;
        resolve(true);
      };
    });

  let joined: RoomHub & { start: number };
  try {
    joined = await options.join(watcher);
    hub = joined;
  } catch (error) {
    ended = true;
    options.onClose();
    throw error;
  }
  // A seq beyond the room's last event (a log that was reset: the room deleted and made again, or a wrong id)
  // names no position in this log: the stream starts with the next new event, as without one.
  lastSeq = Math.min(options.after ?? joined.start, joined.start);

  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(encoder.encode("retry: 2000\n\n"));
      },
      async pull(controller) {
        try {
          await pump(controller);
        } catch {
          // A store read failed mid-stream: end it; the client reconnects with Last-Event-ID and loses nothing.
          end();
          controller.close();
        }
      },
      cancel() {
        end();
      },
    },
    { highWaterMark: 1 },
  );

  async function pump(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    while (!ended && hub) {
      // A failed read, shutdown, or the room deleted (RoomGone): the stream ends. A deleted room's stream does not
      // go on into whatever is made under its id next; the client reconnects and is told what the room is now.
      if (failed !== undefined) {
        end();
        controller.close();
        return;
      }
      if (signals.size > 0) {
        const kinds = [...signals];
        signals.clear();
        controller.enqueue(encoder.encode(kinds.map(signalFrame).join("")));
        return;
      }
      dirty = false;
      if (lastSeq < hub.head) {
        const events = await hub.eventsAfter(lastSeq, BATCH);
        if (events.length > 0) {
          lastSeq = (events.at(-1) as RoomEvent).seq;
          const frames = events
            .filter(wanted)
            .map((e) => eventFrame(e, options.present))
            .join("");
          if (frames !== "") {
            controller.enqueue(encoder.encode(frames));
            return;
          }
          continue;
        }
      }
      if (dirty) continue;
      if (!(await idle(options.keepAliveMs)) || ended) {
        if (!ended) controller.enqueue(encoder.encode(": keep-alive\n\n"));
        return;
      }
    }
  }
}
