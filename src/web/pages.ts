/**
 * The pages (docs/web.md): `GET /dashboard` for a signed-in person, and `GET /room/:roomId` as HTML — the live room
 * view — for browsers (any other client still gets the JSON summary of src/http/room-page.ts: this handler passes
 * requests that do not prefer HTML on). The HTML is a shell rendered here with every value escaped; the page's
 * script reads the state from the JSON routes and keeps it live from the room's stream.
 */

import type { Context, Next } from "hono";
import { Hono } from "hono";
import { csrfToken } from "../access/sessions.ts";
import type { PublicGate } from "../http/public-gate.ts";
import { isRoomId } from "../protocol/ids.ts";
import { isScoped, reachesRoom } from "../protocol/key-life.ts";
import { type Act, mayAct, type Role } from "../protocol/roles.ts";
import { roleIn } from "../store/room-roles.ts";
import { assets } from "./assets.ts";
import { messagePage, page, pageHeaders, scopedPage } from "./layout.ts";
import { dashboardBody, roomBody } from "./page-bodies.ts";
import { type SignedIn, signedIn, type WebDeps } from "./shared.ts";

/** text/html only when the client weighs it above JSON (browsers do; API clients and curl do not). */
export function wantsHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const q = (type: string) => {
    const part = accept.split(",").find((p) => p.trim().toLowerCase().startsWith(type));
    if (!part) return 0;
    const m = /;\s*q=([0-9.]+)/.exec(part);
    return m ? Number(m[1]) : 1;
  };
  return q("text/html") > q("application/json");
}

const personOf = (who: SignedIn) => ({
  humanId: who.principal.humanId as string,
  teamId: who.principal.teamId,
  operator: who.principal.kind === "operator",
});

export function pageRoutes(deps: WebDeps & { publicGate: PublicGate }): Hono {
  const app = new Hono();

  const notFound = async (c: Context, title: string, text: string) => {
    pageHeaders(c);
    return c.html(messagePage(await assets(), title, text), 404);
  };

  app.get("/dashboard", async (c) => {
    const who = await signedIn(c, deps);
    if (!who) return c.redirect("/login?next=/dashboard", 303);
    // A person's invite (or a key scoped to one room) opens one room: that room is their dashboard.
    if (who.home !== "/dashboard") return c.redirect(who.home, 303);
    pageHeaders(c);
    // A scoped key may not use the administration the dashboard is made of: it is shown the rooms it may open.
    if (isScoped(who.principal)) {
      const live = (await deps.store.listRooms(who.principal.teamId)).map((r) => r.roomId);
      const rooms = live.filter((room) => reachesRoom(who.principal, room));
      const what = who.principal.readOnly === true ? "read-only" : "scoped to some rooms";
      const text = `You signed in with a key that is ${what}: it cannot manage keys, rooms or invites. Open a room:`;
      const options = { assets: await assets(), csrf: csrfToken(who.id), person: personOf(who) };
      return c.html(scopedPage(options, text, rooms));
    }
    const operator = who.principal.kind === "operator";
    return c.html(
      page({
        title: "Dashboard",
        assets: await assets(),
        script: "dashboard",
        csrf: csrfToken(who.id),
        person: personOf(who),
        data: { team: who.principal.teamId, operator: operator ? "1" : "0" },
        body: dashboardBody({ teamId: who.principal.teamId, operator }),
      }),
    );
  });

  app.get("/room/:roomId", async (c: Context, next: Next) => {
    if (!wantsHtml(c.req.header("accept"))) return next();
    const roomId = c.req.param("roomId") ?? "";
    const who = await signedIn(c, deps);
    let member = false;
    /** The person's role in the room (protocol/roles.ts): the page offers only what it allows. */
    let role: Role | undefined;
    if (who && isRoomId(roomId)) {
      const { principal } = who;
      if (reachesRoom(principal, roomId)) {
        const scope = { roomId, teamId: principal.teamId, mayClaim: false };
        const info = await deps.store.roomInfo(scope).catch(() => null);
        member = info?.exists === true;
        if (member) role = await roleIn(deps.store, scope, principal);
      }
    }
    // A read-only key is offered nothing that writes (its writes would be refused).
    const may = (act: Act) => role !== undefined && who?.principal.readOnly !== true && mayAct(role, act);
    if (!member) {
      if (deps.config.roomSummary !== "public") {
        if (!who)
          return c.redirect(`/login?next=${isRoomId(roomId) ? `/room/${roomId}` : "/dashboard"}`, 303);
        return notFound(c, "Room not found", "There is no such room among your team's rooms.");
      }
      const refused = deps.publicGate(c);
      if (refused) return refused;
      const stats = isRoomId(roomId) ? await deps.store.roomStats(roomId) : null;
      if (!stats) return notFound(c, "Room not found", "There is no room with this id.");
    }
    pageHeaders(c);
    return c.html(
      page({
        title: `Room ${roomId}`,
        assets: await assets(),
        script: "room",
        ...(who ? { csrf: csrfToken(who.id), person: personOf(who) } : {}),
        data: {
          room: roomId,
          member: member ? "1" : "0",
          me: who?.principal.humanId ? `human:${who.principal.humanId}` : "",
          operator: who?.principal.kind === "operator" ? "1" : "0",
          // A read-only key reads as a viewer would: the page offers it nothing that writes.
          role: who?.principal.readOnly === true && role !== undefined ? "viewer" : (role ?? ""),
          // A person's invite reaches this room only: it cannot fork it into a room of its own.
          fork: member && who?.principal.kind !== "invite" && may("fork") ? "1" : "0",
        },
        body: roomBody({
          roomId,
          member,
          message: member && may("message"),
          handoff: member && may("handoff"),
        }),
      }),
    );
  });

  return app;
}
