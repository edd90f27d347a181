/**
 * Watching a room (docs/web.md): `GET /room/:roomId/view`, the whole state the live room page shows in one answer,
 * and `GET /room/:roomId/stream`, the public, payload-free stream of the room's log that keeps a public viewer's page
 * live (members use `GET /rooms/:roomId/stream`).
 *
 * A request that carries credentials (a bearer, a session cookie, the trusted proxy's header) is a member's: it
 * gets payloads, and an invalid credential is refused as on any route. Without credentials the answer is the
 * public view, and only when ROOM_SUMMARY=public; each client address may make SUMMARY_RATE_LIMIT_PER_MINUTE such
 * requests per minute per process, and hold at most PUBLIC_STREAMS_PER_ADDRESS public streams.
 */

import type { Context } from "hono";
import { Hono } from "hono";
import { getCookie } from "hono/cookie";
import { SESSION_COOKIE } from "../access/sessions.ts";
import type { LiveRooms } from "../live/hub.ts";
import { joinExisting, openRoomStream } from "../live/stream.ts";
import { ACCESS_DENIED, errors } from "../protocol/errors.ts";
import { isRoomId } from "../protocol/ids.ts";
import { reachesRoom } from "../protocol/key-life.ts";
import type { Clock } from "../protocol/time.ts";
import type { RoomStore } from "../store/types.ts";
import { addressKey } from "./address-limit.ts";
import { type AuthDeps, checkBearer, clientAddress, UNAUTHORIZED } from "./auth.ts";
import type { PublicGate } from "./public-gate.ts";
import type { RequestIdEnv } from "./request-id.ts";
import { resumeAfter } from "./room-stream.ts";
import { publicEvent, readRoomView } from "./room-view.ts";
import { eventStream, type StreamSlots, tooManyStreams } from "./stream-slots.ts";

export interface RoomWatchDeps extends AuthDeps {
  store: RoomStore;
  live: LiveRooms;
  now: Clock;
  config: {
    roomSummary: "public" | "private";
  };
  /** The public pages' per-address budget, shared with the room page and the JSON summary. */
  publicGate: PublicGate;
  /** The process's count of open streams (stream-slots.ts). */
  streams: StreamSlots;
  keepAliveMs?: number;
}

/** Open public streams one client address may hold in one process. */
export const PUBLIC_STREAMS_PER_ADDRESS = 20;

/** True when the request names who it is: then it is a member's request, checked as such. */
function hasCredentials(c: Context, deps: RoomWatchDeps): boolean {
  return (
    c.req.header("authorization") !== undefined ||
    getCookie(c, SESSION_COOKIE) !== undefined ||
    (deps.proxy != null && c.req.header(deps.proxy.header) !== undefined)
  );
}

export function roomWatchRoutes(deps: RoomWatchDeps): Hono<RequestIdEnv> {
  const app = new Hono<RequestIdEnv>();
  const streamsByAddress = new Map<string, number>();

  /** The public side's gate: public mode, the address's budget. A Response when refused. */
  const admitPublic = (c: Context): Response | null => {
    if (deps.config.roomSummary !== "public") {
      c.header("WWW-Authenticate", 'Bearer realm="roomd"');
      return c.json({ error: UNAUTHORIZED }, 401);
    }
    return deps.publicGate(c);
  };

  /** The owning team of a room anyone may watch; null when nobody owns it. */
  const ownerOf = async (roomId: string) => (await deps.store.roomStats(roomId))?.owner ?? null;

  app.get("/room/:roomId/view", async (c) => {
    const roomId = c.req.param("roomId");
    c.header("Cache-Control", "no-store");
    if (hasCredentials(c, deps)) {
      // Re-read after every change a page sees: a "meta" unit, like tools/list, not a tool call.
      const admitted = await checkBearer(c, deps, "meta");
      if ("failure" in admitted) return admitted.failure;
      const { principal } = admitted;
      if (!isRoomId(roomId)) throw errors.denied();
      if (!reachesRoom(principal, roomId)) throw errors.denied();
      const scope = { roomId, teamId: principal.teamId, mayClaim: false };
      const view = await readRoomView(deps.store, scope, true);
      if (!view.info.exists) throw errors.denied();
      return c.json(view);
    }
    const refused = admitPublic(c);
    if (refused) return refused;
    const owner = isRoomId(roomId) ? await ownerOf(roomId) : null;
    if (owner === null) return c.json({ error: ACCESS_DENIED }, 404);
    return c.json(await readRoomView(deps.store, { roomId, teamId: owner, mayClaim: false }, false));
  });

  app.get("/room/:roomId/stream", async (c) => {
    const roomId = c.req.param("roomId");
    const refused = admitPublic(c);
    if (refused) return refused;
    const after = resumeAfter(c);
    const owner = isRoomId(roomId) ? await ownerOf(roomId) : null;
    if (owner === null) return c.json({ error: ACCESS_DENIED }, 404);
    const address = addressKey(clientAddress(c));
    const held = streamsByAddress.get(address) ?? 0;
    if (held >= PUBLIC_STREAMS_PER_ADDRESS) {
      c.header("Retry-After", "5");
      return c.json({ error: "Too many open streams; close one or retry later" }, 429);
    }
    // Public streams count against the process's limit with every other stream (no team: they have none).
    const slot = deps.streams.take();
    if ("refused" in slot) return tooManyStreams(slot.refused);
    streamsByAddress.set(address, held + 1);
    let counted = true;
    const release = () => {
      if (!counted) return;
      counted = false;
      slot.release();
      const n = (streamsByAddress.get(address) ?? 1) - 1;
      if (n <= 0) streamsByAddress.delete(address);
      else streamsByAddress.set(address, n);
    };
    const body = await openRoomStream({
      join: joinExisting(deps.live, { roomId, teamId: owner }),
      after,
      keepAliveMs: deps.keepAliveMs ?? 15_000,
      onClose: release,
      present: publicEvent,
    });
    c.req.raw.signal.addEventListener("abort", () => void body.cancel().catch(() => {}));
    return eventStream(c, body);
  });

  return app;
}
