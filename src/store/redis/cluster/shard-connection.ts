/**
 * One sharded-subscriber connection to one node: SSUBSCRIBE / SUNSUBSCRIBE one channel at a time (a channel per
 * command, so a command never spans slots), `smessage` pushes handed to the owner, and the two ways a channel is
 * lost reported separately — the node dropping it (its slot moved away: a `sunsubscribe` push nobody asked
 * for) and the connection closing. A PING every few seconds notices a node that stopped answering.
 */
import type { Socket } from "bun";
import { encodeCommand, type Reply, ReplyError, ReplyReader } from "./resp.ts";
import type { ClusterSeeds } from "./url.ts";

export interface ShardEvents {
  message(channel: string, message: string): void;
  /** The node dropped `channel` without being asked (its slot now lives elsewhere). */
  dropped(channel: string): void;
  /** The connection is gone, with every channel on it; not called after close(). */
  closed(): void;
}

export interface ShardConnection {
  readonly address: string;
  /** Channels the node has confirmed and not dropped. */
  readonly channels: ReadonlySet<string>;
  /** Resolves once the node confirms; rejects with its error reply (e.g. MOVED) or when the connection closes. */
  ssubscribe(channel: string): Promise<void>;
  sunsubscribe(channel: string): void;
  close(): void;
}

interface Pending {
  kind: string;
  channel?: string;
  resolve(): void;
  reject(err: Error): void;
}

const PING_EVERY_MS = 5000;

/** Connects (and authenticates) within `timeoutMs`. */
export async function openShardConnection(
  addr: string,
  seeds: ClusterSeeds,
  events: ShardEvents,
  timeoutMs: number,
): Promise<ShardConnection> {
  const reader = new ReplyReader();
  const pending: Pending[] = [];
  const channels = new Set<string>();
  let unsent: Uint8Array[] = [];
  let closedByUs = false;
  let gone = false;
  let timedOut = false;
  let timer: ReturnType<typeof setInterval> | undefined;
  let pingSentAt: number | undefined;

  const onReply = (reply: Reply) => {
    if (reply instanceof ReplyError) return pending.shift()?.reject(reply);
    if (!Array.isArray(reply)) return pending.shift()?.resolve();
    const [kind = "", channel = "", message = ""] = reply.map((r) => String(r));
    const head = pending[0];
    const mine =
      head?.kind === kind.toLowerCase() && (head.channel === undefined || head.channel === channel);
    switch (kind.toLowerCase()) {
      case "smessage":
        return events.message(channel, message);
      case "ssubscribe":
        channels.add(channel);
        break;
      case "sunsubscribe":
        channels.delete(channel);
        if (!mine) return events.dropped(channel);
        break;
    }
    if (mine) pending.shift()?.resolve();
  };

  const host = addr.slice(0, addr.lastIndexOf(":")).replace(/^\[|\]$/g, "");
  const port = Number(addr.slice(addr.lastIndexOf(":") + 1));
  const connecting = Bun.connect({
    hostname: host,
    port,
    tls: seeds.tls,
    socket: {
      data: (_socket, chunk) => {
        for (const reply of reader.push(chunk)) onReply(reply);
      },
      drain: (socket) => flush(socket),
      close: () => {
        gone = true;
        clearInterval(timer);
        for (const p of pending.splice(0)) p.reject(new Error(`connection to ${addr} closed`));
        if (!closedByUs) events.closed();
      },
      error: () => {},
    },
  });
  // A connection that arrives after we gave up on it is closed at once.
  connecting.then((s) => timedOut && s.end()).catch(() => {});
  let timeout: ReturnType<typeof setTimeout> | undefined;
  const socket = await Promise.race([
    connecting,
    new Promise<never>((_, reject) => {
      timeout = setTimeout(() => {
        timedOut = true;
        reject(new Error(`connecting to ${addr} timed out`));
      }, timeoutMs);
    }),
  ]).finally(() => clearTimeout(timeout));

  function flush(s: Socket<undefined>) {
    while (unsent.length > 0) {
      const next = unsent[0] as Uint8Array;
      const written = s.write(next);
      if (written < next.length) {
        unsent[0] = next.subarray(Math.max(0, written));
        return;
      }
      unsent.shift();
    }
  }

  const command = (args: string[], entry: Omit<Pending, "resolve" | "reject">) =>
    new Promise<void>((resolve, reject) => {
      if (gone) return reject(new Error(`connection to ${addr} closed`));
      pending.push({ ...entry, resolve, reject });
      unsent.push(encodeCommand(args));
      flush(socket);
    });

  const close = () => {
    closedByUs = true;
    clearInterval(timer);
    unsent = [];
    socket.end();
  };

  // A node that stops answering (but keeps the socket open) is treated like a closed connection.
  timer = setInterval(() => {
    if (pingSentAt !== undefined) {
      if (performance.now() - pingSentAt > timeoutMs) socket.terminate();
      return;
    }
    pingSentAt = performance.now();
    command(["PING"], { kind: "pong" }).then(
      () => {
        pingSentAt = undefined;
      },
      () => {},
    );
  }, PING_EVERY_MS);

  if (seeds.password !== undefined) {
    const auth = seeds.username ? [seeds.username, seeds.password] : [seeds.password];
    await command(["AUTH", ...auth], { kind: "auth" }).catch((err) => {
      close();
      throw err;
    });
  }

  return {
    address: addr,
    channels,
    ssubscribe: (channel) => command(["SSUBSCRIBE", channel], { kind: "ssubscribe", channel }),
    sunsubscribe: (channel) => {
      command(["SUNSUBSCRIBE", channel], { kind: "sunsubscribe", channel }).catch(() => {});
    },
    close,
  };
}
