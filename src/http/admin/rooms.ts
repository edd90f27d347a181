/** /admin/rooms: create, list, delete and (operator) inspect rooms; invites to one room. */

import { Hono } from "hono";
import { z } from "zod";
import { digestHex, hintOf, newInviteToken, newTokenId, shortId } from "../../access/secrets.ts";
import { errors, RoomError } from "../../protocol/errors.ts";
import { agentIdSchema, isRoomId } from "../../protocol/ids.ts";
import { iso } from "../../protocol/time.ts";
import type { AuthEnv } from "../auth.ts";
import { parseBody } from "../errors.ts";
import {
  assertMayMintPeople,
  assertMayRevokePeople,
  checkKind,
  humanIdSchema,
  operatorOnly,
} from "./keys.ts";
import type { AdminDeps } from "./shared.ts";

const DAY = 86_400;
const createBody = z.strictObject({
  roomId: z.string().refine(isRoomId, { error: "Invalid roomId" }).optional(),
});
const inviteBody = z
  .strictObject({
    expiresIn: z
      .number()
      .int()
      .min(60)
      .max(90 * DAY)
      .optional()
      .describe("seconds, default 7 days"),
    agentId: agentIdSchema.optional(),
    kind: z.enum(["agent", "human"]).optional(),
    humanId: humanIdSchema.optional(),
  })
  .superRefine(checkKind);

/** Routes throw RoomErrors; the app's onError answers them with their status (http/errors.ts). */
export function roomRoutes(deps: AdminDeps): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  const scopeOf = (c: { get: (k: "principal") => { teamId: string } }, roomId: string) => ({
    roomId,
    teamId: c.get("principal").teamId,
  });
  // Room ids in paths are checked first: an invalid one cannot name a room, so it reads as not found.
  app.use("/rooms/:roomId/*", async (c, next) => {
    if (!isRoomId(c.req.param("roomId"))) throw errors.denied();
    await next();
  });

  app.post("/rooms", async (c) => {
    const body = await parseBody(c, createBody);
    const roomId = body.roomId ?? shortId(12);
    await deps.store.createRoom(scopeOf(c, roomId));
    return c.json({ roomId, teamId: c.get("principal").teamId }, 201);
  });
  app.get("/rooms", async (c) => c.json({ rooms: await deps.store.listRooms(c.get("principal").teamId) }));
  app.delete("/rooms/:roomId", async (c) => {
    const roomId = c.req.param("roomId");
    if (!isRoomId(roomId)) throw errors.denied();
    await deps.store.deleteRoom(scopeOf(c, roomId));
    return c.json({ ok: true, roomId });
  });
  app.get("/rooms/:roomId/stats", async (c) => {
    if (c.get("principal").kind !== "operator") throw operatorOnly();
    const stats = await deps.store.roomStats(c.req.param("roomId"));
    if (!stats) throw errors.denied();
    return c.json(stats);
  });

  app.post("/rooms/:roomId/invite", async (c) => {
    const body = await parseBody(c, inviteBody);
    assertMayMintPeople(c.get("principal"), body);
    const roomId = c.req.param("roomId");
    const now = deps.now();
    const token = newInviteToken(roomId);
    const invite = {
      tokenId: newTokenId(),
      roomId,
      teamId: c.get("principal").teamId,
      createdAt: iso(now),
      expiresAt: iso(now + (body.expiresIn ?? 7 * DAY) * 1000),
      hint: hintOf(token),
      digest: digestHex(token),
      ...(body.agentId ? { agentId: body.agentId } : {}),
      ...(body.kind === "human" && body.humanId ? { humanId: body.humanId } : {}),
    };
    const { tokenId, createdAt, expiresAt, humanId } = await deps.store.createInvite(
      invite,
      deps.limits.invitesPerRoom,
    );
    const message = "Share this token now: it is shown only once. It works for this room only.";
    const person = humanId !== undefined ? { kind: "human", humanId } : {};
    return c.json({ tokenId, token, roomId, createdAt, expiresAt, ...person, message }, 201);
  });
  app.get("/rooms/:roomId/invites", async (c) => {
    // Listing invites is administration, not a use of the room: it records none.
    const invites = await deps.store.listInvites({ ...scopeOf(c, c.req.param("roomId")), observe: true });
    return c.json({
      roomId: c.req.param("roomId"),
      invites: invites.map(({ tokenId, createdAt, expiresAt, hint, humanId }) => ({
        tokenId,
        createdAt,
        expiresAt,
        hint,
        ...(humanId !== undefined ? { humanId } : {}),
      })),
    });
  });
  app.delete("/rooms/:roomId/invites/:tokenId", async (c) => {
    const tokenId = c.req.param("tokenId");
    const scope = scopeOf(c, c.req.param("roomId"));
    if (c.get("principal").humanId === undefined) {
      const target = (await deps.store.listInvites(scope)).find((i) => i.tokenId === tokenId);
      if (target) assertMayRevokePeople(c.get("principal"), target);
    }
    if (!(await deps.store.deleteInvite(scope, tokenId))) {
      throw new RoomError("not_found", "Invite not found");
    }
    return c.json({ ok: true, tokenId });
  });
  return app;
}
