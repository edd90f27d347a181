/**
 * Client side of the live benchmark: timed posts, and SSE streams that note the moment each log event
 * arrives, so delivery latency is measured where a client sees it.
 */
import { callTool, SECRET } from "./server.ts";

export interface Posted {
  seq: number;
  /** performance.now() just before the request was sent. */
  sentAt: number;
  /** performance.now() once the acknowledged answer was read. */
  ackAt: number;
}

/** post_event, timed from just before sending and at the acknowledged answer. */
export async function timedPost(url: string, roomId: string, to = "all", from = "poster"): Promise<Posted> {
  const sentAt = performance.now();
  const event = await callTool<{ seq: number }>(url, "post_event", {
    roomId,
    type: "ping",
    from,
    to,
    payload: { sentAt },
  });
  return { seq: event.seq, sentAt, ackAt: performance.now() };
}

/** An open SSE stream of a room that records when each event (by seq) arrived. */
export interface TimedStream {
  /** performance.now() of the chunk that completed each event's frame, by seq. */
  readonly arrivals: Map<number, number>;
  /** Resolves with the arrival time of `seq`, or undefined after `ms`. */
  arrival(seq: number, ms: number): Promise<number | undefined>;
  readonly ended: boolean;
  close(): void;
}

/**
 * Opens `GET /rooms/:roomId/stream` and resolves once the stream's first frame (`retry:`) arrived, which roomd
 * sends only after the stream joined the room's hub. Frames are parsed by the SSE rules roomd uses (LF line ends,
 * a blank line ends a message); an event message's `id` is its seq.
 */
export async function openTimedStream(url: string, roomId: string): Promise<TimedStream> {
  const abort = new AbortController();
  const res = await fetch(`${url}/rooms/${roomId}/stream`, {
    headers: { Authorization: `Bearer ${SECRET}`, Accept: "text/event-stream" },
    signal: abort.signal,
  });
  if (!res.ok || !res.body) throw new Error(`stream ${roomId}: HTTP ${res.status} ${await res.text()}`);
  const arrivals = new Map<number, number>();
  const waiting = new Map<number, (at: number) => void>();
  let ended = false;
  let opened: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    opened = resolve;
  });
  const reader = res.body.getReader();
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const at = performance.now();
        buffer += decoder.decode(value, { stream: true });
        let end = buffer.indexOf("\n\n");
        while (end !== -1) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf("\n\n");
          if (frame.startsWith("retry:")) opened();
          const id = /^id: (\d+)$/m.exec(frame)?.[1];
          if (id === undefined) continue;
          const seq = Number(id);
          arrivals.set(seq, at);
          waiting.get(seq)?.(at);
          waiting.delete(seq);
        }
      }
    } catch {
      // Aborted by close(), or the connection dropped: `ended` says so.
    } finally {
      ended = true;
      opened();
    }
  })();
  await ready;
  if (ended) throw new Error(`stream ${roomId} ended before its first frame`);
  return {
    arrivals,
    get ended() {
      return ended;
    },
    arrival(seq, ms) {
      const known = arrivals.get(seq);
      if (known !== undefined) return Promise.resolve(known);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiting.delete(seq);
          resolve(undefined);
        }, ms);
        waiting.set(seq, (at) => {
          clearTimeout(timer);
          resolve(at);
        });
      });
    },
    close() {
      abort.abort();
    },
  };
}

export interface Stats {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentiles (as bench/load.ts reports them). */
export function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
  return { n: sorted.length, p50: at(50), p99: at(99), max: sorted.at(-1) ?? NaN };
}

/** "p50 / p99 / max" in ms, one decimal. */
export const triple = (s: Stats) =>
  s.n === 0 ? "—" : `${s.p50.toFixed(1)} / ${s.p99.toFixed(1)} / ${s.max.toFixed(1)}`;
