/**
 * `GET /dashboard/stream` — keeps the dashboard live (docs/web.md): one Server-Sent Events stream per dashboard that
 * says which of the team's rooms changed (`event: room`, `data: {"roomId"}`, at most one per room per second) and
 * when the list of rooms changed (`event: rooms`). It watches every room of the team through the process's live
 * hubs (shared with the rooms' own streams, so watching costs no store request per dashboard) and lists the team's
 * rooms again every ROOM_LIST_EVERY_MS to join rooms made elsewhere. The page re-reads what it is told changed.
 */

import { Hono } from "hono";
import { checkBearer } from "../http/auth.ts";
import { eventStream, tooManyStreams } from "../http/stream-slots.ts";
import { RoomGone, type Watcher } from "../live/hub.ts";
import { RoomError } from "../protocol/errors.ts";
import { isScoped, keyLifeErrors } from "../protocol/key-life.ts";
import type { WebDeps } from "./shared.ts";

/** How often a dashboard stream lists the team's rooms again (rooms made by agents on other processes). */
export const ROOM_LIST_EVERY_MS = 15_000;
/** Rooms one dashboard stream watches at most (the newest ones beyond it are left out). */
export const DASHBOARD_ROOMS_MAX = 200;
const ROOM_EVERY_MS = 1000;
const KEEP_ALIVE_MS = 15_000;

const encoder = new TextEncoder();

export function dashboardStreamRoutes(deps: WebDeps): Hono {
  const app = new Hono();

  app.get("/dashboard/stream", async (c) => {
    const admitted = await checkBearer(c, deps, "meta");
    if ("failure" in admitted) return admitted.failure;
    const { principal } = admitted;
    if (principal.kind === "invite" || principal.boundAgentId !== undefined)
      throw new RoomError("forbidden", "Only team keys and people can watch the team's rooms");
    // It names every room of the team: a key scoped to some rooms (or read-only) may not list them.
    if (isScoped(principal)) throw keyLifeErrors.scopedAdmin();
    const teamId = principal.teamId;
    // A dashboard's stream is one of the team's streams, and of the process's.
    const slot = deps.streams.take({ teamId });
    if ("refused" in slot) return tooManyStreams(slot.refused);

    const joined = new Map<string, () => void>();
    const dirty = new Set<string>();
    const lastSent = new Map<string, number>();
    let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
    let closed = false;
    let flushTimer: ReturnType<typeof setTimeout> | undefined;
    const send = (text: string) => {
      if (!closed) controller?.enqueue(encoder.encode(text));
    };
    const flush = () => {
      flushTimer = undefined;
      const at = Date.now();
      let wait = Number.POSITIVE_INFINITY;
      for (const roomId of [...dirty]) {
        const due = (lastSent.get(roomId) ?? 0) + ROOM_EVERY_MS;
        if (due > at) {
          wait = Math.min(wait, due - at);
          continue;
        }
        dirty.delete(roomId);
        lastSent.set(roomId, at);
        send(`event: room\ndata: ${JSON.stringify({ roomId })}\n\n`);
      }
      if (dirty.size > 0 && !closed) flushTimer = setTimeout(flush, Math.max(10, wait));
    };
    const changed = (roomId: string) => {
      dirty.add(roomId);
      flushTimer ??= setTimeout(flush, 0);
    };
    /** A watched room was deleted: it leaves the list, and the page is told the list changed. */
    const dropped = (roomId: string) => {
      joined.get(roomId)?.();
      joined.delete(roomId);
      send("event: rooms\ndata: {}\n\n");
    };
    const watch = async (roomId: string) => {
      const watcher: Watcher = {
        // A failed read or shutdown ends the stream: EventSource comes back (to any process) and reads afresh.
        onEvents: (error) =>
          error === undefined ? changed(roomId) : error instanceof RoomGone ? dropped(roomId) : finish(),
        onSignal: () => changed(roomId),
      };
      try {
        const hub = await deps.live.join({ roomId, teamId, mayClaim: false }, watcher);
        if (closed) hub.leave();
        else joined.set(roomId, () => hub.leave());
      } catch {
        // A room deleted meanwhile: the next listing drops it.
      }
    };
    const relist = async () => {
      const rooms = (await deps.store.listRooms(teamId)).slice(-DASHBOARD_ROOMS_MAX).map((r) => r.roomId);
      if (closed) return;
      const wanted = new Set(rooms);
      let change = false;
      for (const [roomId, leave] of joined) {
        if (!wanted.has(roomId)) {
          leave();
          joined.delete(roomId);
          change = true;
        }
      }
      const fresh = rooms.filter((r) => !joined.has(r));
      await Promise.all(fresh.map(watch));
      if (change || fresh.length > 0) send("event: rooms\ndata: {}\n\n");
    };
    let lister: ReturnType<typeof setInterval> | undefined;
    let keepAlive: ReturnType<typeof setInterval> | undefined;
    const end = () => {
      if (closed) return;
      closed = true;
      stopListening();
      clearInterval(lister);
      clearInterval(keepAlive);
      clearTimeout(flushTimer);
      for (const leave of joined.values()) leave();
      joined.clear();
      slot.release();
    };
    const finish = () => {
      const ctrl = controller;
      end();
      try {
        ctrl?.close();
      } catch {}
    };
    const stopListening = deps.live.onClose(finish);
    try {
      await relist();
    } catch (error) {
      end();
      throw error;
    }
    lister = setInterval(() => void relist().catch(() => {}), ROOM_LIST_EVERY_MS);
    keepAlive = setInterval(() => send(": keep-alive\n\n"), KEEP_ALIVE_MS);
    const body = new ReadableStream<Uint8Array>({
      start(ctrl) {
        controller = ctrl;
        ctrl.enqueue(encoder.encode("retry: 2000\n\n"));
        if (closed) ctrl.close();
      },
      cancel: end,
    });
    c.req.raw.signal.addEventListener("abort", end);
    return eventStream(c, body);
  });
  return app;
}
