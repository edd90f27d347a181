/**
 * GET /rooms/:roomId/stream — a room's log as Server-Sent Events (docs/http.md#get-roomsroomidstream): bearer (any
 * key that may read the room), `after` / `Last-Event-ID` resume, `agentId` and `types` filters, limits per team and
 * per process. Streams end when the client goes, and all of them at shutdown (LiveRooms.close).
 */

import type { Context } from "hono";
import { Hono } from "hono";
import type { LiveRooms } from "../live/hub.ts";
import { joinExisting, openRoomStream } from "../live/stream.ts";
import { errors, RoomError } from "../protocol/errors.ts";
import { AGENT_ID, isRoomId } from "../protocol/ids.ts";
import { reachesRoom } from "../protocol/key-life.ts";
import { LIMITS } from "../protocol/limits.ts";
import { hasControl } from "../protocol/validation.ts";
import { type AuthDeps, checkBearer } from "./auth.ts";
import type { RequestIdEnv } from "./request-id.ts";
import { eventStream, type StreamSlots, streamOwnerOf, tooManyStreams } from "./stream-slots.ts";

export interface StreamRouteDeps extends AuthDeps {
  live: LiveRooms;
  /** The process's count of open streams (stream-slots.ts), shared with the public and dashboard streams. */
  streams: StreamSlots;
  /** Keep-alive comment interval (15 s; tests shorten it). */
  keepAliveMs?: number;
}

const MAX_TYPES = 20;

/** A seq from a query value or a Last-Event-ID header: digits only, or an error naming the input. */
function seqOf(value: string | undefined, name: string): number | null {
  if (value === undefined || value === "") return null;
  if (!/^\d{1,15}$/.test(value))
    throw new RoomError(
      "invalid",
      `${name} must be an event seq (digits), got ${JSON.stringify(value.slice(0, 40))}`,
    );
  return Number(value);
}

/** Where a room stream resumes: after Last-Event-ID (a reconnect), else after `after`; null for new events only. */
export function resumeAfter(c: Context): number | null {
  return seqOf(c.req.header("last-event-id"), "Last-Event-ID") ?? seqOf(c.req.query("after"), "after");
}

function typesOf(value: string | undefined): Set<string> | undefined {
  if (value === undefined || value === "") return undefined;
  const types = value.split(",").map((t) => t.trim());
  if (
    types.length > MAX_TYPES ||
    types.some((t) => t === "" || t.length > LIMITS.eventTypeMax || hasControl(t))
  ) {
    throw new RoomError(
      "invalid",
      `types must be at most ${MAX_TYPES} event types of 1-${LIMITS.eventTypeMax} chars, comma-separated`,
    );
  }
  return new Set(types);
}

export function streamRoutes(deps: StreamRouteDeps) {
  const app = new Hono<RequestIdEnv>();

  app.get("/rooms/:roomId/stream", async (c) => {
    const admitted = await checkBearer(c, deps, "tools");
    if ("failure" in admitted) return admitted.failure;
    const { principal } = admitted;
    const roomId = c.req.param("roomId");
    if (!isRoomId(roomId)) throw errors.denied();
    if (!reachesRoom(principal, roomId)) throw errors.denied();
    const after = resumeAfter(c);
    const types = typesOf(c.req.query("types"));
    let agent = c.req.query("agentId") || undefined;
    if (agent !== undefined && !AGENT_ID.test(agent))
      throw new RoomError("invalid", "agentId must be 1-64 chars of A-Z, a-z, 0-9, _ . : -");
    const bound = principal.boundAgentId;
    if (bound !== undefined) {
      if (agent !== undefined && agent !== bound)
        throw new RoomError("forbidden", `This key is bound to agent ${bound}`);
      agent = bound;
    }
    const slot = deps.streams.take(streamOwnerOf(principal));
    if ("refused" in slot) return tooManyStreams(slot.refused);
    const release = slot.release;
    // Joining reads the room once: another team's room is denied, an unknown one reads the same (404).
    const body = await openRoomStream({
      join: joinExisting(deps.live, { roomId, teamId: principal.teamId }),
      after,
      ...(agent !== undefined ? { agent } : {}),
      ...(types ? { types } : {}),
      keepAliveMs: deps.keepAliveMs ?? 15_000,
      onClose: release,
    });
    c.req.raw.signal.addEventListener("abort", () => void body.cancel().catch(() => {}));
    return eventStream(c, body);
  });

  return app;
}
