/**
 * Runs the Redis driver's Lua rules on a real redis-server the way its scripts run them, for the tests that hold a
 * rule's TypeScript and Lua versions to the same answers: a room script built like the driver's own
 * (scripts.ts roomScript: the prelude and whatever helpers the body names), on one room's keys, with the common
 * ARGV (the given team, "" for none, and clock) and one JSON argument, `input`. The body returns a JSON text, which
 * is parsed. Answers are compared as data: a refusal as the RoomError each side produces (kind and message).
 */
import type { RedisClient } from "bun";
import { RoomError } from "../../src/protocol/errors.ts";
import { iso } from "../../src/protocol/time.ts";
import { scriptKeys } from "../../src/store/redis/call.ts";
import { roomKeys } from "../../src/store/redis/keys.ts";
import { refusal } from "../../src/store/redis/run.ts";
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
  // The common tail (lua-prelude.ts): no retention, no feed, no actor, no caller, no idempotency key, no claim.
  argv.push("0 0", "0", "", "", "", "", "0");
  // The keys it names first, in their order, then the rest of the room (as call.ts passes a whole room).
  const keys = scriptKeys(rule, roomKeys(room.roomId), true);
  const reply = await redis.send("EVAL", [rule.text, String(keys.length), ...keys, ...argv]);
  return JSON.parse(String(reply)) as T;
}

/** An answer as comparable data: a refusal's kind and message, or the value. */
export type Answer = { refused: string; message: string } | { ok: unknown };

const refused = (error: RoomError): Answer => ({ refused: error.kind, message: error.message });

/** TypeScript's answer: what `run` returns (null for nothing), or the RoomError it throws. */
export function tsAnswer(run: () => unknown): Answer {
  try {
    return { ok: run() ?? null };
  } catch (error) {
    if (error instanceof RoomError) return refused(error);
    throw error;
  }
}

/** Lua's answer: its refusal as the driver turns it into a RoomError (run.ts refusal), else its `ok` value. */
export function luaAnswer(reply: { err?: string; ok?: unknown; [detail: string]: unknown }): Answer {
  if (reply.err === undefined) return { ok: reply.ok ?? null };
  const error = refusal({ ...reply, err: reply.err });
  if (!(error instanceof RoomError)) throw error;
  return refused(error);
}

/** The cases whose two answers differ, with both. */
export function disagreements<C>(cases: C[], want: Answer[], got: Answer[]) {
  return cases.flatMap((c, i) =>
    JSON.stringify(want[i]) === JSON.stringify(got[i]) ? [] : [{ c, want: want[i], got: got[i] }],
  );
}

/**
 * Runs `each` — Lua answering, for the case `c`, a refusal text or nil, and the answer's JSON text (nil: null) —
 * over every case in one script after `helpers`, at `now`, and returns Lua's answers.
 */
export async function luaCases(
  redis: RedisClient,
  helpers: string,
  each: string,
  cases: unknown[],
  now: number,
): Promise<Answer[]> {
  const body = `${helpers}
local function answer(c)
${each}
end
local out = {}
for i, c in ipairs(input) do
  local refusal, json = answer(c)
  out[i] = refusal or ('{"ok":' .. (json or "null") .. '}')
end
return "[" .. table.concat(out, ",") .. "]"`;
  const room = { roomId: `rules-${crypto.randomUUID()}`, now };
  const replies = await runLuaRule<{ err?: string; ok?: unknown }[]>(
    redis,
    luaRule("RULES", body),
    cases,
    room,
  );
  return replies.map(luaAnswer);
}
