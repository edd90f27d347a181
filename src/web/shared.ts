/** What every page route shares: its dependencies, who is signed in, and where a sign-in may lead back to. */

import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { SESSION_COOKIE, type Sessions } from "../access/sessions.ts";
import type { Config } from "../config.ts";
import { type AuthDeps, proxiedPerson } from "../http/auth.ts";
import type { StreamSlots } from "../http/stream-slots.ts";
import type { LiveRooms } from "../live/hub.ts";
import { defaultRoom } from "../protocol/key-life.ts";
import type { Principal } from "../protocol/principal.ts";
import type { Clock } from "../protocol/time.ts";
import type { StoredSession } from "../store/session-types.ts";
import type { RoomStore } from "../store/types.ts";

export interface WebDeps extends AuthDeps {
  store: RoomStore;
  sessions: Sessions;
  live: LiveRooms;
  now: Clock;
  config: Pick<Config, "roomSummary" | "cookieSecure">;
  /** The process's count of open streams (http/stream-slots.ts), shared with the room streams. */
  streams: StreamSlots;
  /** Teams configured in the environment (the operator's team list shows them). */
  staticTeams: ReadonlySet<string>;
}

export interface SignedIn {
  id: string;
  session: StoredSession;
  principal: Principal;
  /** Where this person starts: the dashboard, or for a person's invite the one room it opens. */
  home: string;
}

/**
 * The person signed in on this request (the session cookie, its credential admitted again: one "meta" unit), or
 * null — signed out, the session ended, or its key revoked.
 */
export async function signedIn(c: Context, deps: WebDeps): Promise<SignedIn | null> {
  const id = getCookie(c, SESSION_COOKIE);
  if (id === undefined) return null;
  const found = await deps.sessions.admit(id, "meta", proxiedPerson(c, deps.proxy));
  if (!found?.admission.ok) return null;
  const { principal } = found.admission;
  return { id, session: found.session, principal, home: homeOf(principal) };
}

/**
 * Where a person lands: an invite's room, or the one room of a key scoped to one room; everyone else the dashboard
 * (which shows a scoped key its rooms instead of the administration it may not use).
 */
export function homeOf(principal: Principal): string {
  const room = defaultRoom(principal);
  return room !== undefined ? `/room/${room}` : "/dashboard";
}

/** A local page to return to after signing in, or undefined: never another site (`//host`) or anything odd. */
export function safeNext(next: string | undefined): string | undefined {
  return next !== undefined && /^\/(dashboard|room\/[a-z0-9][a-z0-9_-]{1,63}|oauth\/authorize)?$/.test(next)
    ? next
    : undefined;
}
