/**
 * The dashboard's view of the team's rooms (docs/web.md): per room, who is there, tasks by status, the driver, the
 * last activity and when the room expires if nobody uses it (ROOM_TTL_DAYS after its last activity; null: never) —
 * `GET /admin/overview` for all of the team's rooms, `GET /admin/overview/:roomId` for one (what the dashboard
 * re-reads when its stream says that room changed). Two reads per room, never a write or a claim, and never counted
 * as a use of the room.
 */
import { Hono } from "hono";
import { errors } from "../../protocol/errors.ts";
import { isRoomId } from "../../protocol/ids.ts";
import { roomLifetimeMs } from "../../protocol/limits.ts";
import type { RoomStore } from "../../store/types.ts";
import type { AuthEnv } from "../auth.ts";
import type { AdminDeps } from "./shared.ts";

/** Rooms read at once while building the overview (bounds the store requests in flight). */
const PARALLEL = 16;

/** When a room last used at `lastActivity` expires unless used again; null when rooms live for ever. */
export function expiresAt(lastActivity: string | null, lifetimeMs: number): string | null {
  if (lastActivity === null || lifetimeMs === 0) return null;
  return new Date(Date.parse(lastActivity) + lifetimeMs).toISOString();
}

async function roomOverview(store: RoomStore, roomId: string, teamId: string, lifetimeMs: number) {
  // Looking on: reading the overview is not a use of the room (its last activity and expiry stay).
  const scope = { roomId, teamId, mayClaim: false, observe: true };
  const [info, agents] = await Promise.all([store.roomInfo(scope), store.getPresence(scope)]);
  return {
    roomId,
    exists: info.exists,
    createdAt: info.createdAt,
    lastActivity: info.lastActivity,
    expiresAt: expiresAt(info.lastActivity, lifetimeMs),
    taskCount: info.taskCount,
    tasksByStatus: info.tasksByStatus,
    eventCount: info.eventCount,
    driver: info.driver,
    forkedFrom: info.forkedFrom,
    agents,
  };
}

export function overviewRoutes(deps: AdminDeps): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  const lifetimeMs = roomLifetimeMs(deps.limits.roomTtlDays);
  app.get("/overview", async (c) => {
    const teamId = c.get("principal").teamId;
    const listed = await deps.store.listRooms(teamId);
    const rooms = [];
    for (let i = 0; i < listed.length; i += PARALLEL) {
      const batch = listed.slice(i, i + PARALLEL);
      // A room deleted between the listing and its read is left out.
      const read = await Promise.all(
        batch.map((r) => roomOverview(deps.store, r.roomId, teamId, lifetimeMs).catch(() => null)),
      );
      rooms.push(...read.filter((r) => r?.exists));
    }
    return c.json({ teamId, rooms });
  });
  app.get("/overview/:roomId", async (c) => {
    const roomId = c.req.param("roomId");
    if (!isRoomId(roomId)) throw errors.denied();
    const room = await roomOverview(deps.store, roomId, c.get("principal").teamId, lifetimeMs);
    if (!room.exists) throw errors.denied();
    return c.json(room);
  });
  return app;
}
