/**
 * GET /room/:roomId — what is going on in a room, for humans: JSON by default, an HTML page when the client
 * prefers text/html. Counts and event headers only (no payloads, notes or secrets); never claims a room; an
 * unknown or unowned room is 404. Public, or bearer-only with ROOM_SUMMARY=private (then only the owning team,
 * or an invite to this room, sees it). Public, it is limited per client address (SUMMARY_RATE_LIMIT_PER_MINUTE)
 * before any other work; private, each request is a unit of the team's budget instead. Either way the answer is
 * cached for up to a second per (room, viewer), so a burst costs one store read.
 */

import { Hono } from "hono";
import { ACCESS_DENIED } from "../protocol/errors.ts";
import { isRoomId } from "../protocol/ids.ts";
import type { Clock } from "../protocol/time.ts";
import type { RoomSummaryView } from "../store/access-types.ts";
import type { RoomStore } from "../store/types.ts";
import { createAddressLimiter } from "./address-limit.ts";
import { type AuthDeps, checkBearer, clientAddress, rateHeaders } from "./auth.ts";
import type { RoomdMetrics } from "./metrics/roomd-metrics.ts";
import type { RequestIdEnv } from "./request-id.ts";
import { createSummaryCache } from "./summary-cache.ts";

export interface RoomPageDeps extends AuthDeps {
  store: RoomStore;
  visibility: "public" | "private";
  /** Requests per client address per minute in public mode. */
  summaryRateLimitPerMinute: number;
  now: Clock;
  /** Counts the per-address refusals (roomd_rate_limited_total). */
  metrics?: Pick<RoomdMetrics, "rateLimited">;
}

const escapeHtml = (value: unknown) => String(value).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

export function renderRoomPage(view: RoomSummaryView, nonce: string): string {
  const rows = (items: string[][]) =>
    items.map((cells) => `<tr>${cells.map((v) => `<td>${escapeHtml(v)}</td>`).join("")}</tr>`).join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>roomd · ${escapeHtml(view.roomId)}</title>
<style nonce="${nonce}">
body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#1d1d1f}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1.5rem}td,th{border-bottom:1px solid #ddd;padding:.3rem .5rem;text-align:left}
.online{color:#087f23}.offline{color:#888}h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:1.5rem}
</style></head><body>
<h1>Room ${escapeHtml(view.roomId)}</h1>
<p>${escapeHtml(view.taskCount)} tasks (${Object.entries(view.tasksByStatus)
    .map(([s, n]) => `${escapeHtml(n)} ${escapeHtml(s)}`)
    .join(", ")}) · ${escapeHtml(view.contextCount)} context entries</p>
<h2>Agents</h2>
<table><tr><th>agent</th><th>status</th><th>last seen</th><th>doing</th></tr>
${view.agents.map((a) => `<tr><td>${escapeHtml(a.agentId)}</td><td class="${a.status}">${escapeHtml(a.status)}</td><td>${escapeHtml(a.lastSeen)}</td><td>${escapeHtml(a.statusText ?? "")}</td></tr>`).join("")}</table>
<h2>Recent events</h2>
<table><tr><th>#</th><th>type</th><th>from</th><th>to</th><th>time</th></tr>
${rows(view.recentEvents.map((e) => [String(e.seq), e.type, e.from, e.to, e.timestamp]))}</table>
</body></html>`;
}

/** text/html only when the client weighs it above JSON (browsers do; API clients and curl do not). */
function wantsHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const q = (type: string) => {
    const part = accept.split(",").find((p) => p.trim().toLowerCase().startsWith(type));
    if (!part) return 0;
    const m = /;\s*q=([0-9.]+)/.exec(part);
    return m ? Number(m[1]) : 1;
  };
  return q("text/html") > q("application/json");
}

export function roomPageRoutes(deps: RoomPageDeps): Hono<RequestIdEnv> {
  const app = new Hono<RequestIdEnv>();
  const limiter = createAddressLimiter({ limit: deps.summaryRateLimitPerMinute, now: deps.now });
  const summaries = createSummaryCache((roomId, teamId) => deps.store.roomSummary(roomId, teamId), {
    now: deps.now,
  });
  app.get("/room/:roomId", async (c) => {
    const roomId = c.req.param("roomId");
    let teamId: string | undefined;
    if (deps.visibility === "public") {
      const rate = limiter.take(clientAddress(c));
      for (const [name, value] of Object.entries(rateHeaders(rate))) c.header(name, value);
      if (!rate.allowed) {
        deps.metrics?.rateLimited();
        return c.json({ error: "Rate limit exceeded" }, 429);
      }
    } else {
      const admitted = await checkBearer(c, deps, "tools");
      if ("failure" in admitted) return admitted.failure;
      const { principal } = admitted;
      if (principal.allowedRoomId !== undefined && principal.allowedRoomId !== roomId) {
        return c.json({ error: ACCESS_DENIED }, 404);
      }
      teamId = principal.teamId;
    }
    if (!isRoomId(roomId)) return c.json({ error: ACCESS_DENIED }, 404);
    {
      const view = await summaries.get(roomId, teamId);
      if (!view) return c.json({ error: ACCESS_DENIED }, 404);
      c.header("Cache-Control", "no-store");
      c.header("X-Content-Type-Options", "nosniff");
      if (!wantsHtml(c.req.header("accept"))) return c.json(view);
      const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
      c.header(
        "Content-Security-Policy",
        `default-src 'none'; style-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
      );
      c.header("Referrer-Policy", "no-referrer");
      return c.html(renderRoomPage(view, nonce));
    }
  });
  return app;
}
