/**
 * Every Lua script of the driver, one per store operation (plus the room-index helpers of the claim handshake),
 * built once at module load from its declaration (script-decl.ts): the prelude, the `local` lines binding its
 * named arguments, its body; with its SHA1 and the encoder of its arguments. scripts.test.ts pins each SHA, so an
 * edited script is a visible change. Room and team scripts keep only the prelude helpers they use and get only the
 * keys they name (lua-shake.ts, defineKeyed; see keys.ts).
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
import * as oauth from "./lua-oauth.ts";
import * as plan from "./lua-plan.ts";
import { GUARD, KEY_BINDINGS, PRELUDE } from "./lua-prelude.ts";
import * as room from "./lua-room.ts";
import { SESSION_SCRIPTS_LUA, TEAM_INDEX_LUA } from "./lua-sessions.ts";
import { keyNames, shake } from "./lua-shake.ts";
import * as suspensions from "./lua-suspensions.ts";
import * as team from "./lua-team.ts";
import * as tools from "./lua-tools.ts";
import * as values from "./lua-values.ts";
import * as views from "./lua-views.ts";
import { WEBHOOK_ADMIN, WEBHOOK_INDEX, WEBHOOK_WORKER } from "./lua-webhooks.ts";
import {
  type Args,
  type ArgValues,
  arg,
  bindings,
  encoder,
  returns,
  type ScriptDecl,
  script,
} from "./script-decl.ts";

export interface LuaScript<V = never, R = unknown> {
  name: string;
  /** The prelude, the argument bindings and the operation's body: what EVAL sends. */
  text: string;
  /** SHA1 of `text`, what EVALSHA sends. */
  sha: string;
  /**
   * For a room or team script: the positions (in keys.ts ROOM_KEY_PARTS or TEAM_KEY_PARTS) of the keys it takes,
   * as KEYS[1..n] in this order — only the parts its text names (lua-shake.ts); every part for a script that
   * addresses KEYS itself.
   */
  keys?: readonly number[];
  /** Appends the operation's arguments to `argv`, in the order the text binds them (script-decl.ts). */
  encode(values: V, argv: string[]): void;
  /** The type of the reply's `ok` value; carries no value. */
  readonly reply?: R;
}

type Decls = Record<string, ScriptDecl>;
/** The scripts of declarations `B`, each typed by its arguments and reply. */
type Scripts<B extends Decls> = {
  [K in keyof B]: B[K] extends ScriptDecl<infer A, infer R> ? LuaScript<ArgValues<A>, R> : never;
};

/** The values a caller passes to a script, and the type of its reply. */
export type ValuesOf<S> = S extends LuaScript<infer V, unknown> ? V : never;
export type ReplyOf<S> = S extends LuaScript<never, infer R> ? R : never;

function defineScript(name: string, decl: ScriptDecl, text: string, keys?: readonly number[]): LuaScript {
  return {
    name,
    text,
    sha: new Bun.CryptoHasher("sha1").update(text).digest("hex"),
    ...(keys ? { keys } : {}),
    encode: encoder(decl.args) as LuaScript["encode"],
  };
}

/** Scripts of `prelude`, then their arguments from ARGV[first], then their bodies. */
function defineAll<B extends Decls>(decls: B, prelude: string, first: number): Scripts<B> {
  return Object.fromEntries(
    Object.entries(decls).map(([name, decl]) => [
      name,
      defineScript(name, decl, prelude + bindings(decl.args, first) + decl.body),
    ]),
  ) as Scripts<B>;
}

/**
 * Scripts on a slot's fixed list of keys (a room's, a team's): each text keeps only the helpers it uses and binds
 * only the keys it names (`names[i]` is the Lua name of part i), which are all it is passed. A body that addresses
 * KEYS itself (by position, or all of them) gets every part, in order. The operation's arguments start at
 * ARGV[first], after the prelude's common ones.
 */
function defineKeyed<B extends Decls>(
  decls: B,
  prelude: string,
  names: readonly string[],
  first: number,
): Scripts<B> {
  return Object.fromEntries(
    Object.entries(decls).map(([name, decl]) => {
      const text = shake(prelude + bindings(decl.args, first) + decl.body);
      const named = keyNames(text);
      const every = /(?<![\w.])KEYS\b/.test(decl.body);
      const keys = names.flatMap((n, i) => (every || named.has(n.slice(2)) ? [i] : []));
      const keyLines = keys.map((i, at) => `local ${names[i]} = KEYS[${at + 1}]`).join("\n");
      return [name, defineScript(name, decl, text.replace(KEY_BINDINGS, keyLines), keys)];
    }),
  ) as Scripts<B>;
}

/** A room script's own arguments follow the prelude's four common ones (lua-prelude.ts, call.ts). */
const ROOM_FIRST_ARG = 5;
/** Team, session and index scripts take the clock in ARGV[1], then their own arguments. */
const CLOCKED_FIRST_ARG = 2;
/** The clock of session and index scripts (the team prelude binds its own, lua-team.ts). */
const CLOCK = `
local NOW = tonumber(ARGV[1]) -- the injected clock, ms since epoch
`;

const ROOM_KEY_NAMES = ROOM_KEY_PARTS.map((part) => `K_${part.toUpperCase()}`);
const { TEAM_PRELUDE, TEAM_KEY_NAMES, ...teamBodies } = team;
// Shared Lua chunks exported beside the bodies, not scripts of their own.
const { PLAN_HELPERS: _planHelpers, ...planBodies } = plan;
const { GLOB: _glob, CLAIM_HELPERS: _claimHelpers, RELEASE_HOLDINGS: _release, ...claimBodies } = claims;
const { REVIEW_JSON: _review, SEARCH_SCORE: _score, ...toolBodies } = tools;
const { CTX_RULES: _ctxRules, ...contextBodies } = context;
const { EVENT_RULES: _eventRules, ...eventBodies } = events;
const { LOCK_RULES: _lockRules, ...roomBodies } = room;

/** Room-slot scripts acting for a team: another team's room is refused first (GUARD). */
const GUARDED = defineKeyed(
  {
    ...planBodies,
    ...leases,
    ...contextBodies,
    ...eventBodies,
    ...roomBodies,
    ...admin,
    ...claimBodies,
    ...toolBodies,
    ...WEBHOOK_ADMIN,
    ...driver,
    ...approvals,
    ...handoffs,
    ...fork,
    ...moving,
    ...values,
    ...suspensions,
  },
  PRELUDE + LOG + INDEX + GUARD,
  ROOM_KEY_NAMES,
  ROOM_FIRST_ARG,
);
/**
 * Room-slot scripts acting for no team: invite resolution, the read-only views, the webhook worker's steps (an
 * append there trims like any other, so the index helpers come too).
 */
const OPEN = defineKeyed(
  { ...views, ...WEBHOOK_WORKER },
  PRELUDE + LOG + INDEX,
  ROOM_KEY_NAMES,
  ROOM_FIRST_ARG,
);
/** Team-slot scripts: keys, rate limiting, the room index, OAuth grants (ARGV[1] is the clock, lua-team.ts). */
export const TEAM_SCRIPTS = defineKeyed(
  { ...teamBodies, ...oauth },
  TEAM_PRELUDE,
  TEAM_KEY_NAMES,
  CLOCKED_FIRST_ARG,
);
/** Scripts of the global index of rooms with webhooks (keys.ts WEBHOOK_INDEX_KEY; ARGV[1] is the clock). */
export const WEBHOOK_INDEX_SCRIPTS = defineAll(WEBHOOK_INDEX, CLOCK, CLOCKED_FIRST_ARG);
/** Scripts of people's web sessions, each on one session's key (keys.ts sessionKey; ARGV[1] is the clock). */
export const SESSION_SCRIPTS = defineAll(SESSION_SCRIPTS_LUA, CLOCK, CLOCKED_FIRST_ARG);
/** Scripts of the teams index (keys.ts TEAM_INDEX_KEY; ARGV[1] is the clock). */
export const TEAM_INDEX_SCRIPTS = defineAll(TEAM_INDEX_LUA, CLOCK, CLOCKED_FIRST_ARG);

/**
 * The polled change feed (feed.ts, for clients that cannot subscribe): KEYS are the meta keys of the watched rooms,
 * ARGV the signal counter fields; replies {ok: [[event_seq, counter…, life] per room]}: life is "<owner>
 * <created_at>", which life of the room this is ("" for no room). Reads only.
 */
export const FEED_SCRIPTS = defineAll(
  {
    FEED_HEADS: script({
      args: { fields: arg.list() },
      reply: returns<(number | string)[][]>(),
      body: `
local out = {}
for i = 1, #KEYS do
  local v = redis.call("HMGET", KEYS[i], "event_seq", unpack(ARGV, fields_at))
  for j = 1, #v do v[j] = tonumber(v[j]) or 0 end
  local life = redis.call("HMGET", KEYS[i], "owner", "created_at")
  v[#v + 1] = life[1] and (life[1] .. " " .. (life[2] or "")) or ""
  out[i] = v
end
return '{"ok":' .. cjson.encode(out) .. '}'
`,
    }),
  },
  "",
  1,
);

/** Scripts that receive a room's KEYS (roomKeys) and the room's common ARGV. */
export const ROOM_SCRIPTS = { ...GUARDED, ...OPEN };

/**
 * A room script built exactly like the driver's scripts that act for no team (the prelude with the log and index
 * helpers, the argument bindings, the body; trimmed to what it uses): for tests that run the driver's own Lua rules
 * on a real redis-server (test/support/lua-rules.ts).
 */
export function roomScript<A extends Args, R>(
  name: string,
  decl: ScriptDecl<A, R>,
): LuaScript<ArgValues<A>, R> {
  const built = defineKeyed({ [name]: decl }, PRELUDE + LOG + INDEX, ROOM_KEY_NAMES, ROOM_FIRST_ARG)[name];
  return built as LuaScript<ArgValues<A>, R>;
}

export type RoomScriptName = keyof typeof ROOM_SCRIPTS;
export type TeamScriptName = keyof typeof TEAM_SCRIPTS;
export type WebhookIndexScriptName = keyof typeof WEBHOOK_INDEX_SCRIPTS;
export type SessionScriptName = keyof typeof SESSION_SCRIPTS;
export type TeamIndexScriptName = keyof typeof TEAM_INDEX_SCRIPTS;

/** Every script by name (READ_PLAN, ADD_TASK, …, RESOLVE_KEY, …, WEBHOOK_ROOMS). */
export const SCRIPTS: Record<
  RoomScriptName | TeamScriptName | WebhookIndexScriptName | SessionScriptName | TeamIndexScriptName,
  LuaScript<never>
> = {
  ...ROOM_SCRIPTS,
  ...TEAM_SCRIPTS,
  ...WEBHOOK_INDEX_SCRIPTS,
  ...SESSION_SCRIPTS,
  ...TEAM_INDEX_SCRIPTS,
};
