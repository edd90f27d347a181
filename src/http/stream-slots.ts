/**
 * One count of the long-lived streams a roomd process holds — members' room streams, public room streams and
 * dashboard streams alike — against STREAMS_PER_PROCESS, and of each team's (members' and dashboards')
 * against STREAMS_PER_TEAM. Public streams belong to no team: they count against the process only (and against
 * their own per-address limit, room-watch.ts).
 */

import type { Context } from "hono";

export type SlotRefusal = "STREAMS_PER_PROCESS" | "STREAMS_PER_TEAM";

export interface StreamSlots {
  /** A slot for one stream (of `teamId`, or public), or which limit refused it. release() is idempotent. */
  take(teamId?: string): { release(): void } | { refused: SlotRefusal };
  /** Streams open in this process now (metrics, tests). */
  readonly open: number;
}

export function createStreamSlots(
  limits: { streamsPerTeam: number; streamsPerProcess: number },
  /** Told +1 and -1 as streams open and close (the open-streams gauge). */
  changed: (delta: 1 | -1) => void = () => {},
): StreamSlots {
  const perTeam = new Map<string, number>();
  let open = 0;
  return {
    get open() {
      return open;
    },
    take(teamId) {
      if (open >= limits.streamsPerProcess) return { refused: "STREAMS_PER_PROCESS" };
      if (teamId !== undefined && (perTeam.get(teamId) ?? 0) >= limits.streamsPerTeam)
        return { refused: "STREAMS_PER_TEAM" };
      open++;
      changed(1);
      if (teamId !== undefined) perTeam.set(teamId, (perTeam.get(teamId) ?? 0) + 1);
      let held = true;
      return {
        release() {
          if (!held) return;
          held = false;
          open--;
          changed(-1);
          if (teamId === undefined) return;
          const n = (perTeam.get(teamId) ?? 1) - 1;
          if (n <= 0) perTeam.delete(teamId);
          else perTeam.set(teamId, n);
        },
      };
    },
  };
}

/** The 429 of a refused stream, naming the limit. */
export const tooManyStreams = (which: SlotRefusal) =>
  new Response(JSON.stringify({ error: `Too many open streams (${which}); close one or retry later` }), {
    status: 429,
    headers: { "Content-Type": "application/json", "Retry-After": "5" },
  });

/**
 * Lifts the server's idle timeout for this request (Bun's `server.timeout`, reached through the Hono env): a
 * stream or a long download is long-lived by design and must not be cut while it still flows.
 */
export function untimed(c: Context): void {
  (c.env as { timeout?: (req: Request, seconds: number) => void } | undefined)?.timeout?.(c.req.raw, 0);
}

/** The answer of a long-lived Server-Sent Events stream: untimed, never cached, never buffered by a proxy. */
export function eventStream(c: Context, body: ReadableStream<Uint8Array>): Response {
  untimed(c);
  return new Response(body, {
    headers: {
      "Content-Type": "text/event-stream",
      "Cache-Control": "no-store",
      "X-Accel-Buffering": "no",
    },
  });
}
