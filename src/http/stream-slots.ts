/**
 * One count of the long-lived streams a roomd process holds — members' room streams, public room streams and
 * dashboard streams alike — against STREAMS_PER_PROCESS, and of each team's (members' and dashboards')
 * against STREAMS_PER_TEAM. Inside the team's, an invite's streams count against STREAMS_PER_INVITE and those of
 * the keys bound to one agent against STREAMS_PER_AGENT, so a guest or one agent cannot take every place of the
 * team and lock its own keys and dashboard out. Public streams belong to no team: they count against the process
 * only (and against their own per-address limit, room-watch.ts). Counted in this process: each process of a
 * deployment has the same limits.
 */

import type { Context } from "hono";
import type { Principal } from "../protocol/principal.ts";

export type SlotRefusal =
  | "STREAMS_PER_PROCESS"
  | "STREAMS_PER_TEAM"
  | "STREAMS_PER_INVITE"
  | "STREAMS_PER_AGENT";

/** Whose stream it is: a team's, and within it an invite's or a bound agent's own budget (streamOwnerOf). */
export interface StreamOwner {
  teamId: string;
  holder?: { budget: "STREAMS_PER_INVITE" | "STREAMS_PER_AGENT"; id: string };
}

export interface StreamSlots {
  /**
   * A slot for one stream (of `owner`, or public when absent), or which limit refused it. release() is
   * idempotent.
   */
  take(owner?: StreamOwner): { release(): void } | { refused: SlotRefusal };
  /** Streams open in this process now (metrics, tests). */
  readonly open: number;
}

/**
 * The stream owner a principal is: an invite holds its own budget (by its token), a key bound to an agent the
 * agent's (every key bound to that agent together); any other key, a person or the proxy only the team's.
 */
export function streamOwnerOf(principal: Principal): StreamOwner {
  const { teamId } = principal;
  if (principal.kind === "invite" && principal.keyId !== undefined)
    return { teamId, holder: { budget: "STREAMS_PER_INVITE", id: `invite:${principal.keyId}` } };
  if (principal.boundAgentId !== undefined)
    return { teamId, holder: { budget: "STREAMS_PER_AGENT", id: `agent:${principal.boundAgentId}` } };
  return { teamId };
}

/** Adds `by` to `key`'s count, dropping the entry at zero. */
function add(counts: Map<string, number>, key: string, by: 1 | -1): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n <= 0) counts.delete(key);
  else counts.set(key, n);
}

export function createStreamSlots(
  limits: {
    streamsPerTeam: number;
    streamsPerProcess: number;
    streamsPerInvite: number;
    streamsPerAgent: number;
  },
  /** Told +1 and -1 as streams open and close (the open-streams gauge). */
  changed: (delta: 1 | -1) => void = () => {},
): StreamSlots {
  const perTeam = new Map<string, number>();
  // Keyed by team and holder: an invite token or agent id names a holder only within its team.
  const perHolder = new Map<string, number>();
  const budget = { STREAMS_PER_INVITE: limits.streamsPerInvite, STREAMS_PER_AGENT: limits.streamsPerAgent };
  let open = 0;
  return {
    get open() {
      return open;
    },
    take(owner) {
      if (open >= limits.streamsPerProcess) return { refused: "STREAMS_PER_PROCESS" };
      const holder = owner?.holder;
      const holderKey = holder ? `${owner.teamId}\n${holder.id}` : undefined;
      if (holder && holderKey && (perHolder.get(holderKey) ?? 0) >= budget[holder.budget])
        return { refused: holder.budget };
      if (owner !== undefined && (perTeam.get(owner.teamId) ?? 0) >= limits.streamsPerTeam)
        return { refused: "STREAMS_PER_TEAM" };
      open++;
      changed(1);
      if (owner !== undefined) add(perTeam, owner.teamId, 1);
      if (holderKey !== undefined) add(perHolder, holderKey, 1);
      let held = true;
      return {
        release() {
          if (!held) return;
          held = false;
          open--;
          changed(-1);
          if (owner !== undefined) add(perTeam, owner.teamId, -1);
          if (holderKey !== undefined) add(perHolder, holderKey, -1);
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
