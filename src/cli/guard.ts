/**
 * `roomctl guard`: a git pre-commit hook. Checks the staged files against the room's file claims (check_files) and
 * exits 1 listing those another agent holds, so an agent cannot commit over a colleague's claimed work. Files the
 * agent holds itself, or nobody holds, pass. Fails closed: when roomd cannot answer, the commit is refused too
 * (`git commit --no-verify` skips the hook deliberately).
 */
import { spawnSync } from "node:child_process";
import { AGENT_ID } from "../protocol/ids.ts";
import { connect } from "./api.ts";
import { CliError, type Command, noMore, roomArg, str, UsageError } from "./kit.ts";
import { clean, out, paint, printJson } from "./output.ts";

/** check_files answers at most this many paths per call. */
const CHUNK = 1000;

interface Check {
  path: string;
  state: "free" | "mine" | "held";
  heldBy?: string;
  pattern?: string;
}

/** The files staged for the commit, as git names them (relative to the repository root). */
function stagedFiles(): string[] {
  const git = spawnSync("git", ["diff", "--cached", "--name-only", "-z"], { encoding: "utf8" });
  if (git.error) throw new CliError(`git could not be run (${git.error.message})`);
  if (git.status !== 0)
    throw new CliError(`git: ${(git.stderr ?? "").trim().split("\n")[0] || `exit ${git.status}`}`);
  return git.stdout.split("\0").filter((p) => p !== "");
}

/**
 * A file name as a claim path: the characters claim paths cannot hold literally (`*`, `?`, `[`, `{`, a backslash,
 * control characters, a leading `~` or `!`) become `?`, which matches any one character — the form
 * docs/guides/claiming-work.md tells agents to claim such a file with. The check can only get wider, never miss.
 */
export const claimForm = (file: string): string =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced.
  file.replace(/[*?[{\\\u0000-\u001f\u007f]/g, "?").replace(/^[~!]/, "?");

export const guard: Command = {
  name: "guard",
  summary: "git pre-commit guard: refuse staged files another agent has claimed",
  help: `usage: roomctl guard [--room R] [--agent A] [--json]

Checks the files staged for commit (git diff --cached --name-only) against the room's
file claims. Exit 1, listing them, when another agent holds any; exit 0 when each is
yours or unclaimed (and when nothing is staged). The room is --room or ROOMD_ROOM, the
agent --agent or ROOMD_AGENT (not needed with a key bound to the agent). When roomd
cannot be reached the commit is refused too; git commit --no-verify skips the guard.

In .git/hooks/pre-commit (executable), or a pre-commit framework's local hook:
  #!/bin/sh
  exec roomctl guard

--json prints every staged file's check ({path, state: free|mine|held, heldBy?, pattern?}).`,
  options: { room: { type: "string" }, agent: { type: "string" }, json: { type: "boolean" } },
  async run({ values, positionals }) {
    noMore(positionals, 0);
    const room = str(values, "room") ?? (process.env.ROOMD_ROOM || undefined);
    if (room === undefined) throw new UsageError("no room: pass --room or set ROOMD_ROOM");
    const roomId = roomArg([room]);
    const agentId = str(values, "agent") ?? (process.env.ROOMD_AGENT || undefined);
    if (agentId !== undefined && !AGENT_ID.test(agentId))
      throw new UsageError("the agent (--agent or ROOMD_AGENT) must be 1-64 chars of A-Z, a-z, 0-9, _ . : -");
    const files = stagedFiles();
    if (files.length === 0) {
      if (values.json) printJson([]);
      return 0;
    }
    const api = connect();
    const checks: Check[] = [];
    for (let i = 0; i < files.length; i += CHUNK) {
      const chunk = files.slice(i, i + CHUNK);
      const answer = await api.tool<Check[]>("check_files", {
        roomId,
        paths: chunk.map(claimForm),
        ...(agentId !== undefined ? { agentId } : {}),
      });
      // Answers come in the order asked: name each by the file git staged.
      checks.push(...answer.map((c, j) => ({ ...c, path: chunk[j] ?? c.path })));
    }
    const held = checks.filter((c) => c.state === "held");
    if (values.json) printJson(checks);
    else if (held.length > 0)
      out(
        held
          .map((c) => `  ${paint("red", clean(c.path))}  claimed by ${clean(c.heldBy)} (${clean(c.pattern)})`)
          .join("\n"),
      );
    if (held.length === 0) return 0;
    process.stderr.write(
      `roomctl guard: ${held.length} staged file${held.length === 1 ? " is" : "s are"} claimed by another agent in room ${roomId}; commit refused (ask the holder, or unstage ${held.length === 1 ? "it" : "them"})\n`,
    );
    return 1;
  },
};
