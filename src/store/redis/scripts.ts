/**
 * Every Lua script of the driver, one per store operation (plus the room-index helpers of the claim handshake),
 * with its SHA1 computed once at module load. scripts.test.ts pins each SHA, so an edited script is a visible
 * change. Room and team scripts keep only the prelude helpers they use and get only the keys they name (lua-shake.ts,
 * defineKeyed; see keys.ts).
 */

import { ROOM_KEY_PARTS } from "./keys.ts";
import * as admin from "./lua-admin.ts";
import * as approvals from "./lua-approvals.ts";
import * as claims from "./lua-claims.ts";
import * as context from "./lua-context.ts";
import * as driver from "./lua-driver.ts";
import * as events from "./lua-events.ts";
import * as fork from "./lua-fork.ts";
import * as handoffs from "./lua-handoffs.ts";
import { INDEX } from "./lua-index.ts";
import * as leases from "./lua-leases.ts";
import { LOG } from "./lua-log.ts";
import * as moving from "./lua-moving.ts";
import * as plan from "./lua-plan.ts";
import { GUARD, KEY_BINDINGS, PRELUDE } from "./lua-prelude.ts";
import * as room from "./lua-room.ts";
import { SESSION_SCRIPTS_LUA, TEAM_INDEX_LUA } from "./lua-sessions.ts";
import { keyNames, shake } from "./lua-shake.ts";
import * as team from "./lua-team.ts";
import * as tools from "./lua-tools.ts";
import * as views from "./lua-views.ts";
import { WEBHOOK_ADMIN, WEBHOOK_INDEX, WEBHOOK_WORKER } from "./lua-webhooks.ts";

export interface LuaScript {
  name: string;
  /** The prelude followed by the operation's body: what EVAL sends. */
  text: string;
  /** SHA1 of `text`, what EVALSHA sends. */
  sha: string;
  /**
   * For a room or team script: the positions (in keys.ts ROOM_KEY_PARTS or TEAM_KEY_PARTS) of the keys it takes,
   * as KEYS[1..n] in this order — only the parts its text names (lua-shake.ts); every part for a script that
   * addresses KEYS itself.
   */
  keys?: readonly number[];
}

function defineScript(name: string, text: string, keys?: readonly number[]): LuaScript {
  return {
    name,
    text,
    sha: new Bun.CryptoHasher("sha1").update(text).digest("hex"),
    ...(keys ? { keys } : {}),
  };
}

function defineAll<B extends Record<string, string>>(bodies: B, prelude: string): Record<keyof B, LuaScript> {
  return Object.fromEntries(
    Object.entries(bodies).map(([name, body]) => [name, defineScript(name, prelude + body)]),
  ) as Record<keyof B, LuaScript>;
}

/**
 * Scripts on a slot's fixed list of keys (a room's, a team's): each text keeps only the helpers it uses and binds
 * only the keys it names (`names[i]` is the Lua name of part i), which are all it is passed. A body that addresses
 * KEYS itself (by position, or all of them) gets every part, in order.
 */
function defineKeyed<B extends Record<string, string>>(
  bodies: B,
  prelude: string,
  names: readonly string[],
): Record<keyof B, LuaScript> {
  return Object.fromEntries(
    Object.entries(bodies).map(([name, body]) => {
      const text = shake(prelude + body);
      const named = keyNames(text);
      const every = /(?<![\w.])KEYS\b/.test(body);
      const keys = names.flatMap((n, i) => (every || named.has(n.slice(2)) ? [i] : []));
      const bindings = keys.map((i, at) => `local ${names[i]} = KEYS[${at + 1}]`).join("\n");
      return [name, defineScript(name, text.replace(KEY_BINDINGS, bindings), keys)];
    }),
  ) as Record<keyof B, LuaScript>;
}

const ROOM_KEY_NAMES = ROOM_KEY_PARTS.map((part) => `K_${part.toUpperCase()}`);
const { TEAM_PRELUDE, TEAM_KEY_NAMES, ...teamBodies } = team;
// Shared Lua chunks exported beside the bodies, not scripts of their own.
const { PLAN_HELPERS: _planHelpers, ...planBodies } = plan;
const { GLOB: _glob, ...claimBodies } = claims;

/** Room-slot scripts acting for a team: another team's room is refused first (GUARD). */
const GUARDED = defineKeyed(
  {
    ...planBodies,
    ...leases,
    ...context,
    ...events,
    ...room,
    ...admin,
    ...claimBodies,
    ...tools,
    ...WEBHOOK_ADMIN,
    ...driver,
    ...approvals,
    ...handoffs,
    ...fork,
    ...moving,
  },
  PRELUDE + LOG + INDEX + GUARD,
  ROOM_KEY_NAMES,
);
/**
 * Room-slot scripts acting for no team: invite resolution, the read-only views, the webhook worker's steps (an
 * append there trims like any other, so the index helpers come too).
 */
const OPEN = defineKeyed({ ...views, ...WEBHOOK_WORKER }, PRELUDE + LOG + INDEX, ROOM_KEY_NAMES);
/** Team-slot scripts: keys, rate limiting, the room index. */
export const TEAM_SCRIPTS = defineKeyed(teamBodies, TEAM_PRELUDE, TEAM_KEY_NAMES);
/** Scripts of the global index of rooms with webhooks (keys.ts WEBHOOK_INDEX_KEY). */
export const WEBHOOK_INDEX_SCRIPTS = defineAll(WEBHOOK_INDEX, "");
/** Scripts of people's web sessions, each on one session's key (keys.ts sessionKey). */
export const SESSION_SCRIPTS = defineAll(SESSION_SCRIPTS_LUA, "");
/** Scripts of the teams index (keys.ts TEAM_INDEX_KEY). */
export const TEAM_INDEX_SCRIPTS = defineAll(TEAM_INDEX_LUA, "");

/**
 * The polled change feed (feed.ts, for clients that cannot subscribe): KEYS are the meta keys of the watched rooms,
 * ARGV the signal counter fields; replies {ok: [[event_seq, counter…, life] per room]}: life is "<owner>
 * <created_at>", which life of the room this is ("" for no room). Reads only.
 */
export const FEED_SCRIPTS = {
  FEED_HEADS: defineScript(
    "FEED_HEADS",
    `
local out = {}
for i = 1, #KEYS do
  local v = redis.call("HMGET", KEYS[i], "event_seq", unpack(ARGV))
  for j = 1, #v do v[j] = tonumber(v[j]) or 0 end
  local life = redis.call("HMGET", KEYS[i], "owner", "created_at")
  v[#v + 1] = life[1] and (life[1] .. " " .. (life[2] or "")) or ""
  out[i] = v
end
return '{"ok":' .. cjson.encode(out) .. '}'
`,
  ),
};

/** Scripts that receive a room's KEYS (roomKeys) and the room's common ARGV. */
export const ROOM_SCRIPTS = { ...GUARDED, ...OPEN };

export type RoomScriptName = keyof typeof ROOM_SCRIPTS;
export type TeamScriptName = keyof typeof TEAM_SCRIPTS;
export type WebhookIndexScriptName = keyof typeof WEBHOOK_INDEX_SCRIPTS;
export type SessionScriptName = keyof typeof SESSION_SCRIPTS;
export type TeamIndexScriptName = keyof typeof TEAM_INDEX_SCRIPTS;

/** Every script by name (READ_PLAN, ADD_TASK, …, RESOLVE_KEY, …, WEBHOOK_ROOMS). */
export const SCRIPTS: Record<
  RoomScriptName | TeamScriptName | WebhookIndexScriptName | SessionScriptName | TeamIndexScriptName,
  LuaScript
> = {
  ...ROOM_SCRIPTS,
  ...TEAM_SCRIPTS,
  ...WEBHOOK_INDEX_SCRIPTS,
  ...SESSION_SCRIPTS,
  ...TEAM_INDEX_SCRIPTS,
};
