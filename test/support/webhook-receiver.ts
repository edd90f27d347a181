/**
 * Real webhook receivers for delivery tests: Bun.serve on a loopback address, recording every request it gets
 * (headers, raw body, the peer address, whether it came over TLS) and answering with the handler's response.
 */
import type { Server } from "bun";

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Headers;
  body: string;
  /** The address the request came from. */
  peer: string | undefined;
  tls: boolean;
}

export interface Receiver {
  port: number;
  /** Everything received so far, in order. */
  requests: ReceivedRequest[];
  stop(): Promise<void>;
}

export interface ReceiverOptions {
  /** Loopback address to listen on (127.0.0.1 by default; 127.0.0.2, ::1 work as well). */
  hostname?: string;
  /** Listen on this port (e.g. the same port as another receiver on another address). */
  port?: number;
  tls?: { key: string; cert: string };
  /** The answer; 200 "ok" by default. */
  respond?: (request: Request) => Response | Promise<Response>;
}

/** Starts a receiver; stop() closes it and every open connection. */
export function startReceiver(options: ReceiverOptions = {}): Receiver {
  const requests: ReceivedRequest[] = [];
  const server: Server<undefined> = Bun.serve({
    hostname: options.hostname ?? "127.0.0.1",
    port: options.port ?? 0,
    ...(options.tls ? { tls: options.tls } : {}),
    async fetch(request, srv) {
      const url = new URL(request.url);
      requests.push({
        method: request.method,
        path: `${url.pathname}${url.search}`,
        headers: request.headers,
        body: await request.text(),
        peer: srv.requestIP(request)?.address,
        tls: url.protocol === "https:",
      });
      return options.respond ? options.respond(request) : new Response("ok");
    },
  });
  return { port: server.port as number, requests, stop: () => server.stop(true) };
}

/** A port on which nothing listens right now (a server is opened on it and closed again). */
export async function closedPort(): Promise<number> {
  const receiver = startReceiver();
  await receiver.stop();
  return receiver.port;
}

/** Receivers started by one test file, all stopped by stopAll() (call it in afterEach). */
export function receiverPool() {
  const running: Receiver[] = [];
  return {
    start(options: ReceiverOptions = {}): Receiver {
      const receiver = startReceiver(options);
      running.push(receiver);
      return receiver;
    },
    async stopAll(): Promise<void> {
      await Promise.all(running.splice(0).map((r) => r.stop()));
    },
  };
}
