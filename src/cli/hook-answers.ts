/**
 * What `roomctl hook` answers Claude Code, per hook, in its hook protocol (Claude Code hooks reference,
 * https://code.claude.com/docs/en/hooks — "Hook output" / JSON output of each event):
 * - SessionStart, UserPromptSubmit, PostToolUse: `hookSpecificOutput.additionalContext` (added to the agent's context);
 * - PreToolUse: `hookSpecificOutput.permissionDecision: "deny"` with `permissionDecisionReason` (shown to the agent);
 * - Stop: top-level `decision: "block"` with `reason` (the agent goes on with it).
 * Nothing to say → null: the hook prints nothing, exits 0, and the agent continues as if no hook ran.
 *
 * Everything of the room in an answer (messages, steers, an interrupt's reason, task titles, names) is quoted
 * (quoted(), name()), and each answer says so: a person's text cannot start a line of its own, so it cannot pass
 * itself off as another person's message or as the bridge's own words.
 */

import type { BridgeHook } from "../protocol/people.ts";

interface Message {
  from: string;
  text: string;
}

/** POST /rooms/:roomId/bridge's answer, as the hook reads it (unknown fields ignored). */
export interface BridgeAnswer {
  /** The agent the key spoke for (a bound key's own id). */
  agentId?: string;
  roomExists: boolean;
  driver?: { holder: string | null; epoch: number };
  interrupt?: { by: string; reason: string };
  steers?: { by: string; text: string }[];
  messages?: Message[];
  digest?: { myTasks: { id: string; title: string; status: string }[]; unread: number };
}

export interface HookContext {
  roomId: string;
  agentId: string;
}

/** Line and paragraph separators, C1 controls (NEL among them) and bidirectional controls: escaped by quoted(). */
const UNSAFE = /[\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Room text as the agent is shown it: a JSON string literal on one line. JSON escapes quotes, backslashes and C0
 * controls (CR, LF, VT, FF among them); DEL, the C1 controls (NEL), U+2028, U+2029 and the bidirectional
 * controls are escaped too, so nothing inside can break the line, end the quotes, or reorder what follows.
 */
export function quoted(text: string): string {
  return JSON.stringify(text).replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** A name from the room (a sender, a driver, a task id) as is when it is a plain id, else quoted. */
const name = (value: string) => (/^[A-Za-z0-9_.:@-]{1,100}$/.test(value) ? value : quoted(value));

/** What an answer carrying several pieces of room text says of them. */
const ROOM_CONTENT = "room content: each quoted text is a JSON string holding exactly what its author wrote";
/** What an answer carrying one piece of room text says of it. */
const AS_WRITTEN = "quoted as a JSON string, exactly as written";

const listOf = (messages: Message[]) =>
  messages.map((m) => `- ${name(m.from)}: ${quoted(m.text)}`).join("\n");

function sessionDigest(answer: BridgeAnswer, ctx: HookContext): string {
  const tasks = answer.digest?.myTasks ?? [];
  const lines = [
    `You are ${name(ctx.agentId)} in roomd room ${name(ctx.roomId)}. Below, ${ROOM_CONTENT}.`,
    `Driver: ${answer.driver?.holder ? `${name(answer.driver.holder)} (epoch ${answer.driver.epoch})` : "nobody"}.`,
    tasks.length === 0
      ? "Your tasks: none."
      : `Your tasks: ${tasks.map((t) => `${name(t.id)} ${quoted(t.title)} (${name(t.status)})`).join("; ")}.`,
    `Unread room events: ${answer.digest?.unread ?? 0}${(answer.digest?.unread ?? 0) > 0 ? " (get_my_summary reads them)" : ""}.`,
  ];
  const messages = answer.messages ?? [];
  if (messages.length > 0) lines.push(`Messages from people in the room:\n${listOf(messages)}`);
  return lines.join("\n");
}

const context = (hookEventName: BridgeHook, additionalContext: string) => ({
  hookSpecificOutput: { hookEventName, additionalContext },
});

/** The JSON to print for this hook, or null to print nothing. */
export function hookAnswer(
  hook: BridgeHook,
  answer: BridgeAnswer,
  ctx: HookContext,
): Record<string, unknown> | null {
  if (!answer.roomExists) return null;
  const messages = answer.messages ?? [];
  switch (hook) {
    case "SessionStart":
      return context("SessionStart", sessionDigest(answer, ctx));
    case "PreToolUse":
      if (!answer.interrupt) return null;
      return {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "deny",
          permissionDecisionReason: `Interrupted by ${name(answer.interrupt.by)}; the reason, ${AS_WRITTEN}: ${quoted(answer.interrupt.reason)}`,
        },
      };
    case "PostToolUse": {
      const steers = answer.steers ?? [];
      if (steers.length === 0) return null;
      return context(
        "PostToolUse",
        steers
          .map((s) => `Steer from ${name(s.by)} (the room's driver), ${AS_WRITTEN}: ${quoted(s.text)}`)
          .join("\n"),
      );
    }
    case "UserPromptSubmit":
      if (messages.length === 0) return null;
      return context(
        "UserPromptSubmit",
        `Messages from people in room ${name(ctx.roomId)} (${ROOM_CONTENT}):\n${listOf(messages)}`,
      );
    case "Stop":
      if (messages.length === 0) return null;
      return {
        decision: "block",
        reason: `People in room ${name(ctx.roomId)} wrote to you; go on with their messages (${ROOM_CONTENT}):\n${listOf(messages)}`,
      };
  }
}

const TARGET_MAX = 120;

/** One line, at most TARGET_MAX chars: a command's head, never its output. */
const head = (value: string) =>
  value
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced.
    .replace(/[\u0000-\u001f\u007f]+/g, " ")
    .trim()
    .slice(0, TARGET_MAX);

/**
 * The agent_step of a PostToolUse input: the tool, its target (a file path, or the head of a command, URL or
 * pattern) and whether it succeeded. Never file contents, tool output or anything else of the input.
 */
export function stepOf(input: Record<string, unknown>): { tool: string; target: string; ok: boolean } {
  const tool = head(
    typeof input.tool_name === "string" && input.tool_name !== "" ? input.tool_name : "unknown",
  ).slice(0, 100);
  const args = (input.tool_input ?? {}) as Record<string, unknown>;
  const first = ["file_path", "notebook_path", "path", "command", "url", "pattern"]
    .map((k) => args[k])
    .find((v): v is string => typeof v === "string" && v !== "");
  const response = input.tool_response as Record<string, unknown> | undefined;
  const failed =
    response !== null &&
    typeof response === "object" &&
    (response.success === false || response.is_error === true || response.isError === true);
  // A path inside the session's working directory (the repository) is given relative to it: the room learns
  // which file, not where the agent's home directory is.
  const cwd = typeof input.cwd === "string" && input.cwd.startsWith("/") ? input.cwd.replace(/\/+$/, "") : "";
  const target =
    first !== undefined && cwd !== "" && first.startsWith(`${cwd}/`) ? first.slice(cwd.length + 1) : first;
  return {
    tool: tool === "" ? "unknown" : tool,
    target: target === undefined ? "" : head(target),
    ok: !failed,
  };
}
