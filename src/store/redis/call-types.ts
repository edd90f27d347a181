/**
 * The typed calls of the driver's operations: a script's name picks its declared arguments and reply
 * (scripts.ts, script-decl.ts), so a call passes exactly the values the script binds and gets its reply's type.
 */
import type { RoomScope } from "../types.ts";
import type { Ran } from "./run.ts";
import type {
  ReplyOf,
  ROOM_SCRIPTS,
  RoomScriptName,
  TEAM_SCRIPTS,
  TeamScriptName,
  ValuesOf,
} from "./scripts.ts";

type RoomScripts = typeof ROOM_SCRIPTS;
type TeamScripts = typeof TEAM_SCRIPTS;
/** The arguments a room script takes (an object naming each), as its declaration says. */
export type RoomArgs<N extends RoomScriptName> = ValuesOf<RoomScripts[N]>;
/** The `ok` value a room script replies with. */
export type RoomReply<N extends RoomScriptName> = ReplyOf<RoomScripts[N]>;
/** The arguments a team script takes. */
export type TeamArgs<N extends TeamScriptName> = ValuesOf<TeamScripts[N]>;
/** The `ok` value a team script replies with. */
export type TeamReply<N extends TeamScriptName> = ReplyOf<TeamScripts[N]>;

/**
 * Runs the named room script for a scope with the operation's arguments (from ARGV[5], as its declaration binds
 * them) and returns its `ok` value. A write that finds the room unowned claims it through the handshake (3 round
 * trips, once per room); a claim beyond the team's room limit throws errors.roomLimit.
 */
export type Call = <N extends RoomScriptName>(
  scope: RoomScope,
  name: N,
  args: RoomArgs<N>,
  handled?: string[],
) => Promise<Ran<RoomReply<N>>>;

/** A room script that never claims (for scripts acting for no team, `team` is "" unless a view filters by it). */
export type Open = <N extends RoomScriptName>(
  roomId: string,
  team: string,
  name: N,
  args: RoomArgs<N>,
  extraKeys?: string[],
) => Promise<Ran<RoomReply<N>>>;

/** A team-slot script with the operation's arguments (from ARGV[2]). */
export type Team = <N extends TeamScriptName>(
  teamId: string,
  name: N,
  args: TeamArgs<N>,
) => Promise<Ran<TeamReply<N>>>;
