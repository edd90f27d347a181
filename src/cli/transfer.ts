/**
 * `roomctl export <roomId> [--out file]` and `roomctl import <roomId> [--in file]`: a room to an NDJSON file and back,
 * through a roomd's routes (GET /rooms/:roomId/export, POST /admin/rooms/:roomId/import) with ROOMD_URL and
 * ROOMD_KEY (a key of the owning team; importing needs an unbound one). Both stream: the file is never held in
 * memory. Without a file they use stdout / stdin, so `roomctl export a | roomctl import b` copies a room.
 */
import { parseArgs } from "node:util";

export interface TransferEnv {
  ROOMD_URL?: string;
  ROOMD_KEY?: string;
}

/** Where to reach roomd, or a message saying what to set. */
function target(env: TransferEnv): { url: string; key: string } | string {
  if (!env.ROOMD_URL || !env.ROOMD_KEY) return "set ROOMD_URL and ROOMD_KEY (a key of the room's team)";
  return { url: env.ROOMD_URL.replace(/\/+$/, ""), key: env.ROOMD_KEY };
}

/** roomd's error message of a failed answer. */
async function failure(res: Response): Promise<string> {
  const text = await res.text();
  try {
    return `${res.status}: ${(JSON.parse(text) as { error?: string }).error ?? text}`;
  } catch {
    return `${res.status}: ${text.slice(0, 200)}`;
  }
}

/** Runs export or import; resolves with the exit code after writing what happened to stderr. */
export async function transferCommand(
  command: "export" | "import",
  argv: string[],
  env: TransferEnv,
  write: (text: string) => void = (text) => process.stderr.write(text),
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { out: { type: "string", short: "o" }, in: { type: "string", short: "i" } },
    allowPositionals: true,
    strict: true,
  });
  const roomId = positionals[0];
  if (!roomId || positionals.length > 1) {
    write(`roomctl ${command}: one room id is required\n`);
    return 2;
  }
  const to = target(env);
  if (typeof to === "string") {
    write(`roomctl ${command}: ${to}\n`);
    return 2;
  }
  const headers = { Authorization: `Bearer ${to.key}` };
  const path = `/rooms/${encodeURIComponent(roomId)}`;
  if (command === "export") {
    const res = await fetch(`${to.url}${path}/export`, { headers });
    if (!res.ok || !res.body) {
      write(`roomctl export: ${await failure(res)}\n`);
      return 1;
    }
    const sink = values.out ? Bun.file(values.out).writer() : Bun.stdout.writer();
    let last = "";
    for await (const chunk of res.body) {
      sink.write(chunk);
      last = (last + new TextDecoder().decode(chunk)).slice(-4096);
    }
    await sink.end();
    // A body without its end line was cut short: the file would be refused by an import, so say so now.
    if (!last.trimEnd().split("\n").at(-1)?.startsWith('{"kind":"end"')) {
      write("roomctl export: the export ended early (the room changed under it?); export again\n");
      return 1;
    }
    if (values.out) write(`exported ${roomId} to ${values.out}\n`);
    return 0;
  }
  const body = values.in ? Bun.file(values.in).stream() : Bun.stdin.stream();
  const res = await fetch(`${to.url}/admin${path}/import`, {
    method: "POST",
    headers: { ...headers, "Content-Type": "application/x-ndjson" },
    body,
  });
  if (res.status !== 201) {
    write(`roomctl import: ${await failure(res)}\n`);
    return 1;
  }
  const made = (await res.json()) as { roomId: string; head: number; headHash: string };
  write(`imported ${made.roomId}: ${made.head} events, headHash ${made.headHash}\n`);
  return 0;
}
