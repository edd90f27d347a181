/**
 * A local stand-in for Upstash Redis's REST API, so the Upstash driver runs against a real redis-server in
 * tests. It speaks RESP2 over its own small connection pool instead of Bun's RedisClient: RedisClient negotiates
 * RESP3 (maps, booleans) and decodes bulk strings as UTF-8, which loses both the status/bulk distinction and the
 * raw bytes that Upstash's base64 encoding is defined on.
 */
import type { Socket } from "bun";

/** A RESP simple-string ("status") reply, kept apart from bulk strings for the base64 "OK" rule. */
class Status {
  constructor(readonly text: string) {}
}
class ReplyError {
  constructor(readonly message: string) {}
}
type Reply = null | number | Status | ReplyError | Buffer | Reply[];

/** Answered as 400 with the message: what Upstash does for commands it refuses. */
class BadRequest extends Error {}

// Commands that would change the state of a pooled, shared connection or block it; Upstash's REST API
// refuses these too (transactions go through /multi-exec, blocking commands are unsupported).
const REFUSED = new Set([
  ..."MULTI EXEC DISCARD WATCH UNWATCH SELECT QUIT RESET HELLO AUTH CLIENT MONITOR SYNC PSYNC WAIT".split(
    " ",
  ),
  ..."SUBSCRIBE PSUBSCRIBE SSUBSCRIBE BLPOP BRPOP BRPOPLPUSH BLMOVE BLMPOP BZPOPMIN BZPOPMAX BZMPOP".split(
    " ",
  ),
]);

function encodeCommand(args: string[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
  for (const arg of args) {
    const bytes = Buffer.from(arg, "utf8");
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from("\r\n"));
  }
  return Buffer.concat(parts);
}

/** Parses one RESP2 reply at `pos`; undefined while the buffer does not hold all of it yet. */
function parseReply(buf: Buffer, pos: number): [Reply, number] | undefined {
  const eol = buf.indexOf("\r\n", pos);
  if (eol < 0) return undefined;
  const line = buf.toString("utf8", pos + 1, eol);
  const next = eol + 2;
  switch (String.fromCharCode(buf[pos] ?? 0)) {
    case "+":
      return [new Status(line), next];
    case "-":
      return [new ReplyError(line), next];
    case ":":
      return [Number(line), next];
    case "$": {
      const len = Number(line);
      if (len < 0) return [null, next];
      if (buf.length < next + len + 2) return undefined;
      return [buf.subarray(next, next + len), next + len + 2];
    }
    case "*": {
      const count = Number(line);
      if (count < 0) return [null, next];
      const items: Reply[] = [];
      let at = next;
      for (let i = 0; i < count; i++) {
        const parsed = parseReply(buf, at);
        if (!parsed) return undefined;
        items.push(parsed[0]);
        at = parsed[1];
      }
      return [items, at];
    }
    default:
      throw new Error(`unexpected RESP type byte ${buf[pos]}`);
  }
}

/**
 * One pipelined RESP2 connection. Redis answers a connection's commands in order, so replies are matched to a
 * FIFO of waiters, and a batch written in one synchronous call cannot interleave with anyone else's commands.
 */
class RespConnection {
  closed = false;
  private socket: Socket | undefined;
  private waiters: { resolve(reply: Reply): void; reject(error: Error): void }[] = [];
  private inbox: Buffer = Buffer.alloc(0);
  // Bytes the kernel did not take yet (write() reports backpressure with a short count); flushed on drain.
  private outbox: Buffer[] = [];

  static async open(url: URL): Promise<RespConnection> {
    const conn = new RespConnection();
    conn.socket = await Bun.connect({
      hostname: url.hostname,
      port: Number(url.port || 6379),
      socket: {
        data: (_socket, chunk) => conn.receive(chunk),
        drain: () => conn.flush(),
        close: () => conn.fail(new Error("redis connection closed")),
        error: (_socket, error) => conn.fail(error),
      },
    });
    const setup: string[][] = [];
    if (url.password)
      setup.push(["AUTH", decodeURIComponent(url.username || "default"), decodeURIComponent(url.password)]);
    const db = url.pathname.slice(1);
    if (db) setup.push(["SELECT", db]);
    for (const reply of await conn.send(setup)) {
      if (reply instanceof ReplyError) {
        conn.close();
        throw new Error(`redis connection setup failed: ${reply.message}`);
      }
    }
    return conn;
  }

  /** Writes every command at once and resolves with their replies, in order. */
  send(commands: string[][]): Promise<Reply[]> {
    if (this.closed || !this.socket) return Promise.reject(new Error("redis connection closed"));
    const replies = commands.map(
      () => new Promise<Reply>((resolve, reject) => this.waiters.push({ resolve, reject })),
    );
    if (commands.length > 0) this.write(Buffer.concat(commands.map(encodeCommand)));
    return Promise.all(replies);
  }

  close(): void {
    this.socket?.end();
    this.fail(new Error("redis connection closed"));
  }

  private write(bytes: Buffer): void {
    if (this.outbox.length > 0) {
      this.outbox.push(bytes);
      return;
    }
    const written = this.socket?.write(bytes) ?? -1;
    if (written < bytes.length) this.outbox.push(bytes.subarray(Math.max(written, 0)));
  }

  private flush(): void {
    while (this.outbox.length > 0 && this.socket) {
      const head = this.outbox[0] as Buffer;
      const written = this.socket.write(head);
      if (written < head.length) {
        this.outbox[0] = head.subarray(Math.max(written, 0));
        return;
      }
      this.outbox.shift();
    }
  }

  private receive(chunk: Buffer): void {
    this.inbox = this.inbox.length > 0 ? Buffer.concat([this.inbox, chunk]) : chunk;
    let at = 0;
    for (let parsed = parseReply(this.inbox, at); parsed; parsed = parseReply(this.inbox, at)) {
      at = parsed[1];
      this.waiters.shift()?.resolve(parsed[0]);
    }
    this.inbox = this.inbox.subarray(at);
  }

  private fail(error: Error): void {
    // Pending replies can never arrive on this socket; the pool opens a new one for later requests.
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) waiter.reject(error);
    this.outbox = [];
  }
}

/** Round-robin over a few lazily (re)opened connections, so a restarted redis-server is picked up again. */
class Pool {
  private slots: (Promise<RespConnection> | undefined)[];
  private next = 0;

  constructor(
    private readonly url: URL,
    size: number,
  ) {
    this.slots = new Array(size).fill(undefined);
  }

  async acquire(): Promise<RespConnection> {
    const index = this.next++ % this.slots.length;
    const existing = this.slots[index];
    const conn = await existing?.catch(() => undefined);
    if (conn && !conn.closed) return conn;
    // Dead or never opened: (re)open once, even when several requests find it so at the same time.
    if (this.slots[index] === existing) this.slots[index] = RespConnection.open(this.url);
    return this.slots[index] as Promise<RespConnection>;
  }

  async close(): Promise<void> {
    const slots = this.slots.splice(0);
    for (const slot of slots) (await slot?.catch(() => undefined))?.close();
  }
}

/**
 * Reply → JSON as Upstash sends it. With base64 on, every string is base64 of its raw bytes except a
 * top-level "OK" status, which Upstash sends as is (its docs say so, and the client's decoder special-cases
 * exactly that). Nested statuses are encoded because the client base64-decodes every string inside an array.
 */
function toJson(reply: Reply, base64: boolean, top: boolean): unknown {
  if (reply === null || typeof reply === "number") return reply;
  if (reply instanceof Status) {
    return base64 && !(top && reply.text === "OK") ? Buffer.from(reply.text).toString("base64") : reply.text;
  }
  // Without base64, invalid UTF-8 turns into U+FFFD, as Upstash documents.
  if (Buffer.isBuffer(reply)) return base64 ? reply.toString("base64") : reply.toString("utf8");
  if (Array.isArray(reply)) return reply.map((item) => toJson(item, base64, false));
  throw reply; // an error nested in an array (a Lua table with an error in it): fail the whole command
}

/** One `{result}` or `{error}` entry, as in single responses and in /pipeline and /multi-exec arrays. */
function entry(reply: Reply, base64: boolean): { result: unknown } | { error: string } {
  if (reply instanceof ReplyError) return { error: reply.message };
  try {
    return { result: toJson(reply, base64, true) };
  } catch (nested) {
    if (nested instanceof ReplyError) return { error: nested.message };
    throw nested;
  }
}

/** Validates one command: a non-empty array of strings or numbers, numbers sent as their decimal text. */
function toCommand(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new BadRequest("ERR command must be a non-empty array");
  return value.map((arg) => {
    if (typeof arg === "string") return arg;
    if (typeof arg === "number" && Number.isFinite(arg)) return String(arg);
    throw new BadRequest(`ERR unsupported argument type: ${JSON.stringify(arg)}`);
  });
}

async function readJson(req: Request): Promise<unknown> {
  try {
    return JSON.parse(await req.text());
  } catch {
    throw new BadRequest("ERR failed to parse request body as JSON");
  }
}

function refusal(command: string[]): string | undefined {
  const name = (command[0] ?? "").toUpperCase();
  return REFUSED.has(name) ? `ERR Command is not allowed: ${name}` : undefined;
}

/** `GET|POST /set/k/v?EX=100`: path segments, then a POST body as one more argument, then query pairs. */
async function pathCommand(req: Request, url: URL): Promise<string[]> {
  const command = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  if (req.method !== "GET" && req.method !== "HEAD") {
    const body = await req.text();
    if (body) command.push(body);
  }
  for (const [key, value] of url.searchParams) {
    if (key === "_token") continue;
    command.push(key);
    if (value) command.push(value);
  }
  return command;
}

const json = (status: number, body: unknown) => Response.json(body, { status });

/** A running front; stop() closes the HTTP server and its Redis connections. */
export interface UpstashFront {
  /** Base URL for `new Redis({ url })`. */
  url: string;
  token: string;
  stop(): Promise<void>;
  /** HTTP requests served so far, including refused ones (for round-trip assertions). */
  readonly requests: number;
}

/**
 * Starts an Upstash-REST-compatible HTTP server on 127.0.0.1 (free port) in front of the Redis at `redisUrl`:
 * Bearer (or `_token`) auth, POST `/` with a JSON command, `/pipeline`, `/multi-exec`, the `/cmd/arg` path form
 * and `Upstash-Encoding: base64`. The token defaults to a random one.
 */
export async function startUpstashFront(options: {
  redisUrl: string;
  token?: string;
}): Promise<UpstashFront> {
  const token = options.token ?? crypto.randomUUID();
  const pool = new Pool(new URL(options.redisUrl), 4);
  let requests = 0;

  const handle = async (req: Request): Promise<Response> => {
    requests++;
    const url = new URL(req.url);
    const auth = req.headers.get("authorization");
    const given = auth?.startsWith("Bearer ") ? auth.slice(7) : url.searchParams.get("_token");
    if (given !== token) return json(401, { error: "Unauthorized" });
    if (!["GET", "HEAD", "POST", "PUT"].includes(req.method))
      return json(405, { error: "Method Not Allowed" });
    const base64 = req.headers.get("upstash-encoding")?.toLowerCase() === "base64";
    const path = url.pathname.replace(/\/+$/, "");
    try {
      if (path === "/pipeline" || path === "/multi-exec") {
        const body = await readJson(req);
        if (!Array.isArray(body) || body.length === 0)
          throw new BadRequest("ERR expected an array of commands");
        const commands = body.map(toCommand);
        return path === "/pipeline"
          ? json(200, await pipeline(commands, base64))
          : await multiExec(commands, base64);
      }
      const command = path === "" ? toCommand(await readJson(req)) : await pathCommand(req, url);
      if (command.length === 0) throw new BadRequest("ERR no command given");
      const refused = refusal(command);
      if (refused) throw new BadRequest(refused);
      const [reply] = await (await pool.acquire()).send([command]);
      const answer = entry(reply as Reply, base64);
      return json("error" in answer ? 400 : 200, answer);
    } catch (error) {
      if (error instanceof BadRequest) return json(400, { error: error.message });
      return json(500, { error: `Redis unavailable: ${(error as Error).message}` }); // connection trouble
    }
  };

  // Each command stands alone, as on Upstash; refused ones get their error without reaching Redis.
  const pipeline = async (commands: string[][], base64: boolean) => {
    const allowed = commands.filter((command) => !refusal(command));
    const replies = await (await pool.acquire()).send(allowed);
    let at = 0;
    return commands.map((command) => {
      const refused = refusal(command);
      return refused ? { error: refused } : entry(replies[at++] as Reply, base64);
    });
  };

  // MULTI…EXEC is written in one go on one pooled connection, so nothing else can land inside it. A command
  // Redis refuses while queueing discards the whole transaction; Upstash then answers a single 400 error.
  const multiExec = async (commands: string[][], base64: boolean): Promise<Response> => {
    const refused = commands.map(refusal).find(Boolean);
    if (refused) return json(400, { error: refused });
    const replies = await (await pool.acquire()).send([["MULTI"], ...commands, ["EXEC"]]);
    const queueError = replies.slice(1, -1).find((reply) => reply instanceof ReplyError);
    if (queueError instanceof ReplyError) return json(400, { error: queueError.message });
    const exec = replies.at(-1) as Reply;
    if (exec instanceof ReplyError) return json(400, { error: exec.message });
    if (!Array.isArray(exec)) return json(400, { error: "EXECABORT Transaction discarded" });
    return json(
      200,
      exec.map((reply) => entry(reply, base64)),
    );
  };

  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: handle });
  return {
    url: `http://127.0.0.1:${server.port}`,
    token,
    get requests() {
      return requests;
    },
    async stop() {
      await server.stop(true);
      await pool.close();
    },
  };
}
