/**
 * `roomctl export <room> [--out file]` and `roomctl import <room> [--in file]`: a room to an NDJSON file and back,
 * through roomd's routes (GET /rooms/:roomId/export, POST /admin/rooms/:roomId/import; docs/http.md). Both stream:
 * the file is never held in memory. Without a file they use stdout / stdin, so `roomctl export a | roomctl import
 * b` copies a room.
 */
import { privateFile } from "../files.ts";
import { answerFailure, USER_AGENT } from "./api.ts";
import { resolveCredentials } from "./credentials.ts";
import { CliError, type Command, noMore, roomArg } from "./kit.ts";

export const exportRoom: Command = {
  name: "export",
  summary: "a room as NDJSON (stdout, or --out file), hash-chained",
  help: `usage:
  roomctl export <room> [--out <file>]

Streams the room's export (docs/http.md, GET /rooms/:roomId/export): a header, the room's
state, its events with a hash chain, and an end line with the counts and the head hash.
Without --out it goes to stdout.

examples:
  roomctl export my-project --out my-project.ndjson
  roomctl export my-project | roomctl import my-project-copy`,
  options: { out: { type: "string", short: "o" } },
  async run({ values, positionals }) {
    noMore(positionals, 1);
    const roomId = roomArg(positionals, 0);
    const { url, key } = resolveCredentials();
    const res = await fetch(`${url}/rooms/${encodeURIComponent(roomId)}/export`, {
      headers: { Authorization: `Bearer ${key}`, "User-Agent": USER_AGENT },
    });
    if (!res.ok || !res.body) throw await answerFailure(res);
    const out = typeof values.out === "string" ? values.out : undefined;
    // The room's whole content: the user's only, whatever the umask (made so before a byte is written).
    if (out) privateFile(out, { truncate: true });
    const sink = out ? Bun.file(out).writer() : Bun.stdout.writer();
    let tail = "";
    const decoder = new TextDecoder();
    for await (const chunk of res.body) {
      sink.write(chunk);
      tail = (tail + decoder.decode(chunk, { stream: true })).slice(-4096);
    }
    await sink.end();
    // A body without its end line was cut short: an import would refuse the file, so say so now.
    if (!tail.trimEnd().split("\n").at(-1)?.startsWith('{"kind":"end"'))
      throw new CliError("the export ended early (the connection dropped?); export again");
    if (out) process.stderr.write(`exported ${roomId} to ${out}\n`);
    return 0;
  },
};

export const importRoom: Command = {
  name: "import",
  summary: "a new room from an export (stdin, or --in file); the chain is verified",
  help: `usage:
  roomctl import <new-room> [--in <file>]

Sends an export to roomd (docs/http.md, POST /admin/rooms/:roomId/import), which verifies
its hash chain and creates <new-room> with the same seqs, ids and times, or nothing at all.
Needs a key of the team that is not bound to an agent (a person's key when the file holds
people's acts). Without --in it reads stdin.

examples:
  roomctl import my-project-copy --in my-project.ndjson`,
  options: { in: { type: "string", short: "i" } },
  async run({ values, positionals }) {
    noMore(positionals, 1);
    const roomId = roomArg(positionals, 0);
    const { url, key } = resolveCredentials();
    const input = typeof values.in === "string" ? values.in : undefined;
    if (input && !(await Bun.file(input).exists())) throw new CliError(`no such file: ${input}`);
    const res = await fetch(`${url}/admin/rooms/${encodeURIComponent(roomId)}/import`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${key}`,
        "User-Agent": USER_AGENT,
        "Content-Type": "application/x-ndjson",
      },
      body: input ? Bun.file(input).stream() : Bun.stdin.stream(),
    });
    if (res.status !== 201) throw await answerFailure(res);
    const made = (await res.json()) as { roomId: string; head: number; headHash: string };
    process.stderr.write(`imported ${made.roomId}: ${made.head} events, headHash ${made.headHash}\n`);
    return 0;
  },
};
