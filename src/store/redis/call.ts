/** The per-store bridge from an operation to its script: fixed KEYS, common ARGV, one round trip. */

import { LIMITS } from "../../protocol/limits.ts";
import type { Clock } from "../../protocol/time.ts";
import { iso } from "../../protocol/time.ts";
import type { RoomScope } from "../types.ts";
import { roomKeys } from "./keys.ts";
import { type RunOptions, runScript } from "./run.ts";
import { SCRIPTS, type ScriptName } from "./scripts.ts";

/**
 * Runs the named script for a scope with the operation's ARGV (from ARGV[5]) and returns its `ok` value.
 * `now` is the instant the script ran with, so callers derive time-based fields (online, ISO) from the same clock.
 */
export type Call = <T>(
  scope: RoomScope,
  name: ScriptName,
  args: string[],
  handled?: string[],
) => Promise<{ value: T; now: number }>;

export function createCall(run: RunOptions, clock: Clock): Call {
  return async <T>(scope: RoomScope, name: ScriptName, args: string[], handled?: string[]) => {
    const now = clock();
    const common = [scope.teamId, String(now), iso(now), String(LIMITS.roomTtlMs)];
    const value = await runScript<T>(
      run,
      SCRIPTS[name],
      roomKeys(scope.roomId),
      [...common, ...args],
      handled,
    );
    return { value, now };
  };
}
