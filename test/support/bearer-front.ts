/**
 * A forwarding front that adds `Authorization: Bearer <key>` to every request, for clients that cannot send one
 * (the official MCP conformance suite sends no credentials). Everything else passes as sent — method, body,
 * Origin and the Host the client addressed, so roomd's DNS-rebinding check judges the client's own headers — and
 * answers stream back as they come (SSE).
 */
import { refuseWhileRegistering } from "./processes.ts";

export interface BearerFront {
  url: string;
  stop(): Promise<void>;
}

export function startBearerFront(target: string, key: string): BearerFront {
  refuseWhileRegistering("a bearer front");
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const headers = new Headers(request.headers);
      headers.set("authorization", `Bearer ${key}`);
      const body =
        request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
      const answer = await fetch(`${target}${url.pathname}${url.search}`, {
        method: request.method,
        headers,
        body,
        signal: request.signal,
        decompress: false,
      });
      return new Response(answer.body, { status: answer.status, headers: answer.headers });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    stop: () => server.stop(true),
  };
}
