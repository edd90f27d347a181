/**
 * `roomctl hook <event>`: the room bridge inside an agent's Claude Code hooks: a running agent joins the room
 * (docs/claude-code-bridge.md). Reads the hook's JSON from stdin, makes one request to roomd with the agent's own key
 * (ROOMD_URL, ROOMD_KEY, ROOMD_ROOM, ROOMD_AGENT), and prints the answer in Claude Code's hook protocol
 * (hook-answers.ts). It never holds an agent up: whatever goes wrong — roomd down or slow, bad input, a missing
 * variable — it prints nothing and exits 0 within DEADLINE_MS, so the agent continues. Only a delivered interrupt
 * stops a step.
 */
import { BRIDGE_HOOKS, type BridgeHook } from "../protocol/people.ts";
import { type BridgeAnswer, hookAnswer, stepOf } from "./hook-answers.ts";

/**
 * The whole hook, stdin to answer, never takes longer than this (the bound is 2 s:
 * docs/claude-code-bridge.md#when-roomd-is-slow-or-down).
 */
export const DEADLINE_MS = 1500;
/** The request to roomd gets what is left of the deadline, at most this. */
const REQUEST_MS = 1200;

export interface HookEnv {
  ROOMD_URL?: string;
  ROOMD_KEY?: string;
  ROOMD_ROOM?: string;
  ROOMD_AGENT?: string;
}

const note = (text: string) => process.stderr.write(`roomctl hook: ${text}\n`);

/** A problem with what the hook was given (not with roomd): said as it is. */
class HookInputError extends Error {}

async function readStdin(deadline: number): Promise<Record<string, unknown>> {
  const text = await Promise.race([
    Bun.stdin.text(),
    new Promise<string>((resolve) => setTimeout(() => resolve(""), Math.max(0, deadline - Date.now()))),
  ]);
  if (text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new HookInputError("the hook's input on stdin is not JSON; Claude Code sends one JSON object");
  }
  return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : {};
}

/** Runs one hook; returns what to print ("" for nothing). Never throws. */
export async function runHook(
  event: string | undefined,
  env: HookEnv,
  started = Date.now(),
): Promise<string> {
  const deadline = started + DEADLINE_MS;
  try {
    const input = await readStdin(started + REQUEST_MS / 3);
    const name = event ?? (typeof input.hook_event_name === "string" ? input.hook_event_name : undefined);
    if (!BRIDGE_HOOKS.includes(name as BridgeHook)) {
      note(`unknown hook ${JSON.stringify(name)}; expected one of ${BRIDGE_HOOKS.join(", ")}`);
      return "";
    }
    const hook = name as BridgeHook;
    const { ROOMD_URL: url, ROOMD_KEY: key, ROOMD_ROOM: roomId, ROOMD_AGENT: agentId } = env;
    if (!url || !key || !roomId) {
      note("set ROOMD_URL, ROOMD_KEY and ROOMD_ROOM (and ROOMD_AGENT unless the key is bound to the agent)");
      return "";
    }
    const body = {
      hook,
      ...(agentId ? { agentId } : {}),
      ...(hook === "PostToolUse" ? { step: stepOf(input) } : {}),
    };
    const timeout = Math.max(1, Math.min(REQUEST_MS, deadline - Date.now()));
    const res = await fetch(`${url.replace(/\/+$/, "")}/rooms/${encodeURIComponent(roomId)}/bridge`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeout),
    });
    if (!res.ok) {
      note(`roomd answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
      return "";
    }
    const answer = (await res.json()) as BridgeAnswer;
    // Nothing of the room exists yet: most often a mistyped ROOMD_ROOM. Say so (stderr), the agent continues.
    if (answer.roomExists === false && hook === "SessionStart")
      note(
        `room ${roomId} has no state yet; check ROOMD_ROOM (the bridge stays quiet until the room is used)`,
      );
    const out = hookAnswer(hook, answer, { roomId, agentId: answer.agentId ?? agentId ?? "this agent" });
    return out === null ? "" : JSON.stringify(out);
  } catch (error) {
    if (error instanceof HookInputError) note(`${error.message}; the agent continues`);
    else note(`roomd not reached, the agent continues (${error instanceof Error ? error.name : "error"})`);
    return "";
  }
}

/** The command: prints the answer and exits 0, at the latest when the deadline passes. */
export async function hookCommand(event: string | undefined): Promise<void> {
  const started = Date.now();
  // A last resort: whatever hangs, the agent is not held up past the deadline.
  setTimeout(() => process.exit(0), DEADLINE_MS + 200).unref();
  const out = await runHook(event, process.env as HookEnv, started);
  if (out !== "") process.stdout.write(`${out}\n`);
  process.exit(0);
}
