/** /admin/rooms: create, list, delete and (operator) inspect rooms; invites to one room. */

import { Hono } from "hono";
import { z } from "zod";
import { digestHex, hintOf, newInviteToken, newTokenId, shortId } from "../../access/secrets.ts";
import { ACCESS_DENIED, errors } from "../../protocol/errors.ts";
import { agentIdSchema, isRoomId } from "../../protocol/ids.ts";
import { iso } from "../../protocol/time.ts";
import type { AuthEnv } from "../auth.ts";
import { routeError } from "../errors.ts";
import { type AdminDeps, parseBody } from "./shared.ts";

const DAY = 86_400;
const createBody = z.strictObject({
  roomId: z.string().refine(isRoomId, { error: "Invalid roomId" }).optional(),
});
const inviteBody = z.strictObject({
  expiresIn: z
    .number()
    .int()
    .min(60)
    .max(90 * DAY)
    .optional()
    .describe("seconds, default 7 days"),
  agentId: agentIdSchema.optional(),
});

const notFound = (c: { json: (b: unknown, s: 404) => Response }) => c.json({ error: ACCESS_DENIED }, 404);

export function roomRoutes(deps: AdminDeps): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  const scopeOf = (c: { get: (k: "principal") => { teamId: string } }, roomId: string) => ({
    roomId,
    teamId: c.get("principal").teamId,
  });
  // Room ids in paths are checked first: an invalid one cannot name a room, so it reads as not found.
  app.use("/rooms/:roomId/*", async (c, next) => (isRoomId(c.req.param("roomId")) ? next() : notFound(c)));

  app.post("/rooms", async (c) => {
    const body = await parseBody(c, createBody);
    if ("response" in body) return body.response;
    const roomId = body.data.roomId ?? shortId(12);
    try {
      const result = await deps.store.createRoom(scopeOf(c, roomId));
      if (result === "limit") {
        return routeError(c, errors.roomLimit(deps.limits.roomsPerTeam));
      }
      return c.json({ roomId, teamId: c.get("principal").teamId }, 201);
    } catch (error) {
      return routeError(c, error);
    }
  });
  app.get("/rooms", async (c) => {
    try {
      return c.json({ rooms: await deps.store.listRooms(c.get("principal").teamId) });
    } catch (error) {
      return routeError(c, error);
    }
  });
  app.delete("/rooms/:roomId", async (c) => {
    const roomId = c.req.param("roomId");
    if (!isRoomId(roomId)) return notFound(c);
    try {
      await deps.store.deleteRoom(scopeOf(c, roomId));
      return c.json({ ok: true, roomId });
    } catch (error) {
      return routeError(c, error);
    }
  });
  app.get("/rooms/:roomId/stats", async (c) => {
    if (c.get("principal").kind !== "operator") return c.json({ error: "Operator key required" }, 403);
    try {
      const stats = await deps.store.roomStats(c.req.param("roomId"));
      return stats ? c.json(stats) : notFound(c);
    } catch (error) {
      return routeError(c, error);
    }
  });

  app.post("/rooms/:roomId/invite", async (c) => {
    const body = await parseBody(c, inviteBody);
    if ("response" in body) return body.response;
    const roomId = c.req.param("roomId");
    const now = deps.now();
    const token = newInviteToken(roomId);
    const invite = {
      tokenId: newTokenId(),
      roomId,
      teamId: c.get("principal").teamId,
      createdAt: iso(now),
      expiresAt: iso(now + (body.data.expiresIn ?? 7 * DAY) * 1000),
      hint: hintOf(token),
      digest: digestHex(token),
      ...(body.data.agentId ? { agentId: body.data.agentId } : {}),
    };
    try {
      const result = await deps.store.createInvite(invite, deps.limits.invitesPerRoom);
      if (result === "limit") {
        return routeError(c, errors.inviteLimit(deps.limits.invitesPerRoom));
      }
      const { tokenId, createdAt, expiresAt } = result;
      return c.json(
        {
          tokenId,
          token,
          roomId,
          createdAt,
          expiresAt,
          message: "Share this token now: it is shown only once. It works for this room only.",
        },
        201,
      );
    } catch (error) {
      return routeError(c, error);
    }
  });
  app.get("/rooms/:roomId/invites", async (c) => {
    try {
      const invites = await deps.store.listInvites(scopeOf(c, c.req.param("roomId")));
      return c.json({
        roomId: c.req.param("roomId"),
        invites: invites.map(({ tokenId, createdAt, expiresAt, hint }) => ({
          tokenId,
          createdAt,
          expiresAt,
          hint,
        })),
      });
    } catch (error) {
      return routeError(c, error);
    }
  });
  app.delete("/rooms/:roomId/invites/:tokenId", async (c) => {
    const tokenId = c.req.param("tokenId");
    try {
      if (!(await deps.store.deleteInvite(scopeOf(c, c.req.param("roomId")), tokenId))) {
        return c.json({ error: "Invite not found" }, 404);
      }
      return c.json({ ok: true, tokenId });
    } catch (error) {
      return routeError(c, error);
    }
  });
  return app;
}
