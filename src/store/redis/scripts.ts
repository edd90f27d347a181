/**
 * Every Lua script of the driver, one per RoomStore operation, with its SHA1 computed once at module load.
 * script.test.ts pins each SHA, so an edited script is a visible change.
 */
import * as context from "./lua-context.ts";
import * as events from "./lua-events.ts";
import * as plan from "./lua-plan.ts";
import { PRELUDE } from "./lua-prelude.ts";
import * as room from "./lua-room.ts";

export interface LuaScript {
  name: string;
  /** PRELUDE followed by the operation's body: what EVAL sends. */
  text: string;
  /** SHA1 of `text`, what EVALSHA sends. */
  sha: string;
}

function defineScript(name: string, body: string): LuaScript {
  const text = PRELUDE + body;
  return { name, text, sha: new Bun.CryptoHasher("sha1").update(text).digest("hex") };
}

const BODIES = { ...plan, ...context, ...events, ...room };

export type ScriptName = keyof typeof BODIES;

/** The scripts by operation name (READ_PLAN, ADD_TASK, …). */
export const SCRIPTS = Object.fromEntries(
  Object.entries(BODIES).map(([name, body]) => [name, defineScript(name, body)]),
) as Record<ScriptName, LuaScript>;
