/**
 * The per-store bridge from an operation to its script: fixed KEYS, common ARGV, one round trip — plus the claim
 * handshake that keeps a team within its room limit although a room's keys and the team's room index live in
 * different slots (so no one script can see both).
 */
import { errors } from "../../protocol/errors.ts";
import { LIMITS } from "../../protocol/limits.ts";
import type { Clock } from "../../protocol/time.ts";
import { iso } from "../../protocol/time.ts";
import type { StoreLimits } from "../access-types.ts";
import { type EventRetention, NO_RETENTION } from "../move-types.ts";
import type { RoomScope } from "../types.ts";
import type { Call, Open, RoomArgs, RoomReply, Team, TeamReply } from "./call-types.ts";
import { roomKeys, teamKeys } from "./keys.ts";
import { createRoomIndex, type RoomIndex } from "./room-index.ts";
import { type Ran, type RunOptions, runScript, ScriptRefusal } from "./run.ts";
import { type LuaScript, ROOM_SCRIPTS, type RoomScriptName, TEAM_SCRIPTS } from "./scripts.ts";

export type { Call, Open, Team } from "./call-types.ts";

export interface Bridge {
  call: Call;
  /** Like call, but a claim beyond the room limit resolves to "limit" instead of throwing (createRoom). */
  claimable<N extends RoomScriptName>(
    scope: RoomScope,
    name: N,
    args: RoomArgs<N>,
  ): Promise<Ran<RoomReply<N>> | "limit">;
  open: Open;
  team: Team;
  index: RoomIndex;
  limits: StoreLimits;
  /** ms an idle room lives past its last use (StoreLimits.roomTtlMs); 0: for ever. */
  ttlMs: number;
}

/** The common last ARGV of every room script (lua-prelude.ts CLAIM_OK). */
const MAY_NOT_CLAIM = "0";
const MAY_CLAIM = "1";
/** Neither claims nor records a use of the room: a read for someone looking on (RoomScope.observe). */
const OBSERVING = "2";

/**
 * How often a process passes a room script the whole room (every key, not only those the script names), so the
 * script can give every key its TTL when the room's refresh is due (lua-prelude.ts touch, once a minute): at least
 * every WHOLE_EVERY ms of this process's calls on the room. Between, a script refreshes only the keys it wrote.
 */
const WHOLE_EVERY = 15_000;
/** Rooms remembered for WHOLE_EVERY; past this many the memory starts again (the cost: one whole pass each). */
const WHOLE_ROOMS = 10_000;

/**
 * The keys a script takes (scripts.ts LuaScript.keys), in its order; with `whole`, the room's other keys follow,
 * so KEYS holds every key of the room (lua-prelude.ts WHOLE).
 */
export function scriptKeys(script: LuaScript, all: string[], whole: boolean): string[] {
  const own = script.keys;
  if (!own || own.length === all.length) return all;
  const keys = own.map((i) => all[i] as string);
  if (whole) for (let i = 0; i < all.length; i++) if (!own.includes(i)) keys.push(all[i] as string);
  return keys;
}

/**
 * The ARGV every room script ends with, before the claim mode (lua-prelude.ts TRIM, FEED, ACTOR, CALLER, IDEM_KEY,
 * IDEM_FP): the event retention appends apply ("<max events> <max age ms>"), whether to publish the room's
 * changes, the acting agent whose presence a successful call records, the agent the call is made by (only checked
 * for a suspension, RoomScope.caller), and the idempotency key with its fingerprint.
 */
function scopeTail(scope: RoomScope | undefined, feed: boolean, retention: string): string[] {
  return [
    retention,
    feed ? "1" : "0",
    scope?.actor ?? "",
    scope?.caller ?? "",
    scope?.idempotency?.key ?? "",
    scope?.idempotency?.fingerprint ?? "",
  ];
}

export function createBridge(
  run: RunOptions,
  clock: Clock,
  limits: StoreLimits,
  retention: EventRetention = NO_RETENTION,
): Bridge {
  // Scripts publish on the room's feed channel only for clients that can subscribe to it (not REST).
  const publishes = run.client.subscribeSharded !== undefined;
  // How long an idle room lives (ROOM_TTL_DAYS; 0: for ever, its keys get no expiry).
  const ttlMs = limits.roomTtlMs ?? LIMITS.roomTtlMs;
  const keep = `${retention.maxEvents} ${retention.maxAgeMs}`;
  const wholeAt = new Map<string, number>();
  /** Whether this call passes the whole room: every claim, and at least every WHOLE_EVERY ms per room. */
  function wholeDue(roomId: string, now: number, mode: string): boolean {
    // A read for someone looking on refreshes nothing: it must not use up the room's whole pass.
    if (mode === OBSERVING) return false;
    const at = wholeAt.get(roomId);
    if (mode !== MAY_CLAIM && at !== undefined && now - at < WHOLE_EVERY && now >= at) return false;
    if (wholeAt.size >= WHOLE_ROOMS) wholeAt.clear();
    wholeAt.set(roomId, now);
    return true;
  }
  async function runRoom<N extends RoomScriptName>(
    room: { roomId: string; teamId: string; scope?: RoomScope },
    name: N,
    args: RoomArgs<N>,
    mode: string,
    handled: string[] = [],
    extraKeys: string[] = [],
  ): Promise<Ran<RoomReply<N>>> {
    const now = clock();
    const script = ROOM_SCRIPTS[name] as LuaScript<RoomArgs<N>, RoomReply<N>>;
    const all = roomKeys(room.roomId);
    const keys = scriptKeys(
      script,
      all,
      script.keys?.length === all.length || wholeDue(room.roomId, now, mode),
    );
    // Extra keys follow the room's (lua-views.ts K_RATE): only scripts taking every part may have them.
    if (extraKeys.length > 0 && keys.length !== all.length)
      throw new Error(`${name} takes only some room keys`);
    keys.push(...extraKeys);
    const argv = [room.teamId, String(now), iso(now), String(ttlMs)];
    script.encode(args, argv);
    argv.push(...scopeTail(room.scope, publishes, keep), mode);
    const { ok, replayed } = await runScript(run, script, keys, argv, handled);
    if (replayed && room.scope?.idempotency) room.scope.idempotency.replayed = true;
    return { value: ok, now, replayed };
  }

  const team: Team = async (teamId, name, args) => {
    const now = clock();
    const script = TEAM_SCRIPTS[name] as LuaScript<typeof args, TeamReply<typeof name>>;
    const keys = scriptKeys(script, teamKeys(teamId), false);
    const argv = [String(now)];
    script.encode(args, argv);
    const { ok } = await runScript(run, script, keys, argv);
    return { value: ok, now };
  };

  const open: Open = (roomId, teamId, name, args, extraKeys) =>
    runRoom({ roomId, teamId }, name, args, MAY_NOT_CLAIM, [], extraKeys);

  const index = createRoomIndex({ team, open, limits, graceMs: 2 * run.timeoutMs });

  /**
   * First without the right to claim: on an owned room that is the only round trip. A write that finds the room
   * unowned answers "claim" having written nothing; then the team's index reserves a place (refused at the
   * limit) and the operation runs again, now allowed to claim. If that run fails, a place it newly added is
   * given back.
   */
  async function claimable<N extends RoomScriptName>(
    scope: RoomScope,
    name: N,
    args: RoomArgs<N>,
    handled: string[] = [],
  ): Promise<Ran<RoomReply<N>> | "limit"> {
    const room = { roomId: scope.roomId, teamId: scope.teamId, scope };
    try {
      const mode = scope.observe ? OBSERVING : MAY_NOT_CLAIM;
      return await runRoom(room, name, args, mode, [...handled, "claim"]);
    } catch (err) {
      if (!(err instanceof ScriptRefusal && err.reply.err === "claim")) throw err;
    }
    if (scope.mayClaim === false) throw errors.denied();
    const place = await index.reserve(scope);
    if (place === "limit") return "limit";
    try {
      return await runRoom(room, name, args, MAY_CLAIM, handled);
    } catch (err) {
      if (place.added) await index.release(scope, place.score);
      throw err;
    }
  }

  const call: Call = async (scope, name, args, handled) => {
    const ran = await claimable(scope, name, args, handled);
    if (ran === "limit") throw errors.roomLimit(limits.roomsPerTeam);
    return ran;
  };

  return {
    call,
    claimable: (scope, name, args) => claimable(scope, name, args),
    open,
    team,
    index,
    limits,
    ttlMs,
  };
}
