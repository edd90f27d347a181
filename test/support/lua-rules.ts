/**
 * Runs the Redis driver's Lua rules on a real redis-server the way its scripts run them, for the tests that hold a
 * rule's TypeScript and Lua versions to the same answers: a room script built like the driver's own
 * (scripts.ts roomScript: the prelude and whatever helpers the body names), on one room's keys, with the common
 * ARGV (the given team, "" for none, and clock) and one JSON argument, `input`. The body returns a JSON text, which
 * is parsed.
 */
import type { RedisClient } from "bun";
import { iso } from "../../src/protocol/time.ts";
import { scriptKeys } from "../../src/store/redis/call.ts";
import { roomKeys } from "../../src/store/redis/keys.ts";
import { arg, returns, script } from "../../src/store/redis/script-decl.ts";
import { type LuaScript, roomScript } from "../../src/store/redis/scripts.ts";

export type LuaRule = LuaScript<{ input: unknown }, unknown>;

/** A rule's Lua: `body` reads `input` and returns a JSON text. */
export function luaRule(name: string, body: string): LuaRule {
  return roomScript(name, script({ args: { input: arg.json<unknown>() }, reply: returns<unknown>(), body }));
}

/** Runs `rule` on the room's keys at `now` (ms) with `input`, and parses its JSON answer. */
export async function runLuaRule<T>(
  redis: RedisClient,
  rule: LuaRule,
  input: unknown,
  room: { roomId: string; teamId?: string; now: number },
): Promise<T> {
  const argv = [room.teamId ?? "", String(room.now), iso(room.now), "0"];
  rule.encode({ input }, argv);
  // The common tail (lua-prelude.ts): no retention, no feed, no actor, no idempotency key, no claim.
  argv.push("0 0", "0", "", "", "", "0");
  // The keys it names first, in their order, then the rest of the room (as call.ts passes a whole room).
  const keys = scriptKeys(rule, roomKeys(room.roomId), true);
  const reply = await redis.send("EVAL", [rule.text, String(keys.length), ...keys, ...argv]);
  return JSON.parse(String(reply)) as T;
}
