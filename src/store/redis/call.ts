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
import { roomKeys, teamKeys } from "./keys.ts";
import { createRoomIndex, type RoomIndex } from "./room-index.ts";
import { type Ran, type RunOptions, runScript, ScriptRefusal } from "./run.ts";
import { ROOM_SCRIPTS, type RoomScriptName, TEAM_SCRIPTS, type TeamScriptName } from "./scripts.ts";

/**
 * Runs the named room script for a scope with the operation's ARGV (from ARGV[5]) and returns its `ok` value.
 * A write that finds the room unowned claims it through the handshake (3 round trips, once per room); a claim
 * beyond the team's room limit throws errors.roomLimit.
 */
export type Call = <T>(
  scope: RoomScope,
  name: RoomScriptName,
  args: string[],
  handled?: string[],
) => Promise<Ran<T>>;

export interface Bridge {
  call: Call;
  /** Like call, but a claim beyond the room limit resolves to "limit" instead of throwing (createRoom). */
  claimable<T>(scope: RoomScope, name: RoomScriptName, args: string[]): Promise<Ran<T> | "limit">;
  /** A room script that never claims (for scripts acting for no team, `team` is "" unless a view filters by it). */
  open<T>(
    roomId: string,
    team: string,
    name: RoomScriptName,
    args: string[],
    extraKeys?: string[],
  ): Promise<Ran<T>>;
  /** A team-slot script with the operation's ARGV (from ARGV[2]). */
  team<T>(teamId: string, name: TeamScriptName, args: string[]): Promise<Ran<T>>;
  index: RoomIndex;
  limits: StoreLimits;
}

/** The common last ARGV of every room script (lua-prelude.ts CLAIM_OK). */
const MAY_NOT_CLAIM = "0";
const MAY_CLAIM = "1";

/**
 * The ARGV every room script ends with, before the claim mode (lua-prelude.ts TRIM, FEED, ACTOR, IDEM_KEY,
 * IDEM_FP): the event retention appends apply ("<max events> <max age ms>"), whether to publish the room's
 * changes, the acting agent whose presence a successful call records, and the idempotency key with its fingerprint.
 */
function scopeTail(scope: RoomScope | undefined, feed: boolean, retention: string): string[] {
  return [
    retention,
    feed ? "1" : "0",
    scope?.actor ?? "",
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
  const keep = `${retention.maxEvents} ${retention.maxAgeMs}`;
  async function runRoom<T>(
    room: { roomId: string; teamId: string; scope?: RoomScope },
    name: RoomScriptName,
    args: string[],
    mode: string,
    handled: string[] = [],
    extraKeys: string[] = [],
  ): Promise<Ran<T>> {
    const now = clock();
    const common = [room.teamId, String(now), iso(now), String(LIMITS.roomTtlMs)];
    const keys = [...roomKeys(room.roomId), ...extraKeys];
    const argv = [...common, ...args, ...scopeTail(room.scope, publishes, keep), mode];
    const { ok, replayed } = await runScript<T>(run, ROOM_SCRIPTS[name], keys, argv, handled);
    if (replayed && room.scope?.idempotency) room.scope.idempotency.replayed = true;
    return { value: ok, now, replayed };
  }

  async function team<T>(teamId: string, name: TeamScriptName, args: string[]): Promise<Ran<T>> {
    const now = clock();
    const { ok } = await runScript<T>(run, TEAM_SCRIPTS[name], teamKeys(teamId), [String(now), ...args]);
    return { value: ok, now };
  }

  const open = <T>(
    roomId: string,
    teamId: string,
    name: RoomScriptName,
    args: string[],
    extraKeys?: string[],
  ) => runRoom<T>({ roomId, teamId }, name, args, MAY_NOT_CLAIM, [], extraKeys);

  const index = createRoomIndex({ team, open, limits, graceMs: 2 * run.timeoutMs });

  /**
   * First without the right to claim: on an owned room that is the only round trip. A write that finds the room
   * unowned answers "claim" having written nothing; then the team's index reserves a place (refused at the
   * limit) and the operation runs again, now allowed to claim. If that run fails, a place it newly added is
   * given back.
   */
  async function claimable<T>(
    scope: RoomScope,
    name: RoomScriptName,
    args: string[],
    handled: string[] = [],
  ): Promise<Ran<T> | "limit"> {
    const room = { roomId: scope.roomId, teamId: scope.teamId, scope };
    try {
      return await runRoom<T>(room, name, args, MAY_NOT_CLAIM, [...handled, "claim"]);
    } catch (err) {
      if (!(err instanceof ScriptRefusal && err.reply.err === "claim")) throw err;
    }
    if (scope.mayClaim === false) throw errors.denied();
    const place = await index.reserve(scope);
    if (place === "limit") return "limit";
    try {
      return await runRoom<T>(room, name, args, MAY_CLAIM, handled);
    } catch (err) {
      if (place.added) await index.release(scope, place.score);
      throw err;
    }
  }

  const call: Call = async <T>(
    scope: RoomScope,
    name: RoomScriptName,
    args: string[],
    handled?: string[],
  ) => {
    const ran = await claimable<T>(scope, name, args, handled);
    if (ran === "limit") throw errors.roomLimit(limits.roomsPerTeam);
    return ran;
  };

  return { call, claimable: (scope, name, args) => claimable(scope, name, args), open, team, index, limits };
}
