/**
 * `roomctl login <url>`, `logout`, `whoami`. The key is never an argument (it would land in shell history and in
 * `ps`): login reads it from stdin when stdin is not a terminal (or with --key-stdin), else prompts for it with
 * echo off. It is checked against the server (the `whoami` tool) before it is saved.
 */
import { createApi } from "./api.ts";
import {
  credentialsPath,
  normaliseUrl,
  removeCredentialsFile,
  resolveCredentials,
  writeCredentialsFile,
} from "./credentials.ts";
import { CliError, type Command, noMore, required, UsageError } from "./kit.ts";
import { fields, out, printJson } from "./output.ts";

interface Whoami {
  teamId: string;
  kind: string;
  type: "human" | "agent";
  humanId?: string;
  keyId?: string;
  boundAgentId?: string;
  allowedRoomId?: string;
}

/** Who a key speaks for, in one phrase. */
function identity(me: Whoami): string {
  const who =
    me.type === "human"
      ? `human:${me.humanId ?? "?"}`
      : me.boundAgentId
        ? `agent ${me.boundAgentId}`
        : "an agent key (names its agent per call)";
  const room = me.allowedRoomId ? `, room ${me.allowedRoomId} only` : "";
  return `${who} (${me.kind} key of team ${me.teamId}${room})`;
}

/** Reads a line from a terminal without echoing it. */
function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  // Echo off before the question shows: an answer typed (or pasted) the moment it appears is not echoed.
  stdin.setRawMode(true);
  process.stderr.write(question);
  stdin.setEncoding("utf8");
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = "";
    const finish = () => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write("\n");
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === "\r" || ch === "\n") {
          finish();
          resolve(value);
          return;
        }
        if (ch === "\u0003" || (ch === "\u0004" && value === "")) {
          finish();
          reject(new CliError("cancelled"));
          return;
        }
        if (ch === "\u007f" || ch === "\b") value = value.slice(0, -1);
        else if (ch >= " ") value += ch;
      }
    };
    stdin.on("data", onData);
  });
}

async function readKey(fromStdin: boolean, url: string): Promise<string> {
  const key =
    fromStdin || !process.stdin.isTTY
      ? ((await Bun.stdin.text()).split(/\r?\n/).find((l) => l.trim() !== "") ?? "")
      : await promptHidden(`roomd key for ${url} (not shown): `);
  const trimmed = key.trim();
  if (trimmed === "") throw new UsageError("no key given: type it at the prompt or pipe it in (--key-stdin)");
  return trimmed;
}

export const login: Command = {
  name: "login",
  summary: "save a server URL and key (the key is read from stdin or a prompt)",
  help: `usage: roomctl login <url> [--key-stdin]

Checks the key against the server, then saves the URL and key to
$XDG_CONFIG_HOME/roomd/credentials.json (default ~/.config/roomd/credentials.json, mode 0600).
The key is never an argument (it would land in your shell history): type it at the prompt
(it is not echoed) or pipe it in. ROOMD_URL and ROOMD_KEY, when set, win over the saved file.

options:
  --key-stdin   read the key from stdin even on a terminal

examples:
  roomctl login http://localhost:3000
  cat data/operator.key | roomctl login http://localhost:3000`,
  options: { "key-stdin": { type: "boolean" } },
  async run({ values, positionals }) {
    const url = normaliseUrl(required(positionals, 0, "<url>"));
    if (positionals.length > 1) {
      // Never echo it: the extra word is probably the key.
      throw new UsageError(
        "login takes only <url>: the key is read from stdin or a prompt, never from the command line",
      );
    }
    const key = await readKey(values["key-stdin"] === true, url);
    let me: Whoami;
    try {
      me = await createApi({ url, key, source: "login" }).tool<Whoami>("whoami", {});
    } catch (error) {
      throw new CliError(`not logged in: ${(error as Error).message}`);
    }
    const path = writeCredentialsFile(url, key);
    out(`Logged in to ${url} as ${identity(me)}.\nCredentials saved to ${path} (mode 0600).`);
    return 0;
  },
};

export const logout: Command = {
  name: "logout",
  summary: "forget the saved credentials",
  help: `usage: roomctl logout

Removes the credentials file roomctl login wrote. ROOMD_URL and ROOMD_KEY in the
environment are not touched (unset them yourself).`,
  options: {},
  run({ positionals }) {
    noMore(positionals, 0);
    const path = credentialsPath();
    out(removeCredentialsFile() ? `Logged out: removed ${path}.` : `Not logged in (no ${path}).`);
    if (process.env.ROOMD_KEY) out("ROOMD_KEY is still set in your environment.");
    return 0;
  },
};

export const whoami: Command = {
  name: "whoami",
  summary: "show the server and who the key is",
  help: `usage: roomctl whoami [--json]

Shows the server, where the credentials come from (environment or file) and who the
key is: its team, its kind (operator, static, dynamic, invite, proxy), person or agent,
and what it is bound to.

example:
  roomctl whoami --json`,
  options: { json: { type: "boolean" } },
  async run({ values, positionals }) {
    noMore(positionals, 0);
    const credentials = resolveCredentials();
    const me = await createApi(credentials).tool<Whoami>("whoami", {});
    if (values.json) {
      printJson({ url: credentials.url, credentials: credentials.source, ...me });
      return 0;
    }
    fields([
      ["server", credentials.url],
      ["credentials", credentials.source === "env" ? "ROOMD_URL / ROOMD_KEY" : credentials.source],
      ["team", me.teamId],
      ["key", `${me.kind}${me.keyId ? ` ${me.keyId}` : ""}`],
      ["type", me.type],
      ["person", me.humanId ? `human:${me.humanId}` : undefined],
      ["agent", me.boundAgentId],
      ["room", me.allowedRoomId],
    ]);
    return 0;
  },
};
