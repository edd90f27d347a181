/**
 * Claude Code's hook protocol as the bridge must speak it (Claude Code hooks reference,
 * https://code.claude.com/docs/en/hooks: the JSON output of SessionStart, PreToolUse, PostToolUse,
 * UserPromptSubmit and Stop), as strict schemas, and a runner feeding a recorded hook input to `roomctl hook`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { runToEnd } from "./run.ts";

const specific = <E extends string, S extends z.ZodRawShape>(event: E, shape: S) =>
  z.strictObject({ hookSpecificOutput: z.strictObject({ hookEventName: z.literal(event), ...shape }) });

/** The answers the bridge may give, per hook (nothing at all is always allowed: the agent just continues). */
export const HOOK_OUTPUT = {
  SessionStart: specific("SessionStart", { additionalContext: z.string().min(1) }),
  PreToolUse: specific("PreToolUse", {
    permissionDecision: z.enum(["allow", "deny", "ask"]),
    permissionDecisionReason: z.string().min(1),
  }),
  PostToolUse: specific("PostToolUse", { additionalContext: z.string().min(1) }),
  UserPromptSubmit: specific("UserPromptSubmit", { additionalContext: z.string().min(1) }),
  Stop: z.strictObject({ decision: z.literal("block"), reason: z.string().min(1) }),
} as const;

export type HookName = keyof typeof HOOK_OUTPUT;
export const HOOK_NAMES = Object.keys(HOOK_OUTPUT) as HookName[];

const ROOT = join(import.meta.dir, "..", "..");

/** A recorded hook input (test/fixtures/claude-code/<hook>.json). */
export const recordedInput = (hook: HookName): string =>
  readFileSync(join(ROOT, "test", "fixtures", "claude-code", `${hook}.json`), "utf8");

export interface HookRun {
  code: number;
  stdout: string;
  stderr: string;
  /** The parsed answer, checked against the hook's schema; null when the hook printed nothing. */
  answer: Record<string, any> | null;
  ms: number;
}

/** Runs `roomctl hook <hook>` as Claude Code would: the recorded input on stdin, the bridge's variables set. */
export async function runHook(
  hook: HookName,
  env: Record<string, string>,
  input = recordedInput(hook),
): Promise<HookRun> {
  const started = performance.now();
  const { code, stdout, stderr } = await runToEnd(["bun", "src/cli/index.ts", "hook", hook], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    stdin: input,
    killAfterMs: 10_000,
  });
  const ms = performance.now() - started;
  const text = stdout.trim();
  const answer = text === "" ? null : (HOOK_OUTPUT[hook].parse(JSON.parse(text)) as Record<string, any>);
  return { code, stdout, stderr, answer, ms };
}
