/**
 * sendWebhook's failures against real receivers on loopback: redirects, error statuses, silence, refused
 * connections, oversized headers — each classified, none quoting the URL, a secret or a body.
 */
import { afterEach, describe, expect, test } from "bun:test";
import {
  signedDelivery as delivery,
  HOST,
  loopbackResolver as loopback,
  sendToLoopback as send,
} from "../../../test/support/webhook-delivery.ts";
import { closedPort, receiverPool } from "../../../test/support/webhook-receiver.ts";
import type { Resolver } from "./pin.ts";
import { sendWebhook } from "./send.ts";
import { newWebhookSecret } from "./signature.ts";

const pool = receiverPool();
const receiver = pool.start;
afterEach(pool.stopAll);

describe("anything but a 2xx is not a delivery", () => {
  test("a 302 is not followed and is a failure", async () => {
    const target = receiver();
    const r = receiver({
      respond: () =>
        new Response(null, { status: 302, headers: { location: `http://127.0.0.1:${target.port}/` } }),
    });
    const result = await send(r.port);
    expect(result).toMatchObject({
      outcome: "failed",
      httpStatus: 302,
      error: "redirect not followed (HTTP 302)",
    });
    expect(r.requests).toHaveLength(1);
    expect(target.requests).toHaveLength(0);
  });

  test("410 Gone → gone", async () => {
    const r = receiver({ respond: () => new Response("bye", { status: 410 }) });
    expect(await send(r.port)).toMatchObject({ outcome: "gone", httpStatus: 410, error: "HTTP 410 Gone" });
  });

  test("500 → failed with httpStatus 500, and the response body is not quoted", async () => {
    const r = receiver({
      respond: () => new Response("stack trace with secret-from-receiver", { status: 500 }),
    });
    const result = await send(r.port);
    expect(result).toMatchObject({ outcome: "failed", httpStatus: 500, error: "HTTP 500" });
  });

  test("a receiver that never answers times out within the timeout", async () => {
    const r = receiver({ respond: () => new Promise<Response>(() => {}) });
    const result = await send(r.port, { timeoutMs: 300 });
    expect(result).toEqual({
      outcome: "failed",
      error: "timed out after 300 ms",
      durationMs: expect.any(Number),
      responseBytes: 0,
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(250);
    expect(result.durationMs).toBeLessThan(3_000);
    expect(r.requests).toHaveLength(1);
  });

  test("a resolver that never answers times out too", async () => {
    const never: Resolver = () => new Promise(() => {});
    expect(await send(1, { resolve: never, timeoutMs: 200 })).toMatchObject({
      outcome: "failed",
      error: "timed out after 200 ms",
    });
  });

  test("connection refused → failed with a short error that quotes neither URL, secret nor body", async () => {
    const port = await closedPort();
    const secret = newWebhookSecret();
    const { body, headers } = delivery(secret);
    const result = await sendWebhook({
      url: `http://${HOST}:${port}/hook/token-in-path-123?key=query-secret-456`,
      headers,
      body,
      allowHttp: true,
      allowPrivate: true,
      resolve: loopback,
    });
    expect(result).toMatchObject({ outcome: "failed", error: "connection refused" });
    expect(result.httpStatus).toBeUndefined();
    const text = JSON.stringify(result);
    for (const leak of ["token-in-path-123", "query-secret-456", secret.slice(6, 20), "body-marker", "v1,"]) {
      expect(text).not.toContain(leak);
    }
  });

  test("response headers past the parser's limit are a failure, not an unbounded read", async () => {
    const big = "x".repeat(1024 * 1024);
    const raw = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        data(socket) {
          socket.write(`HTTP/1.1 200 OK\r\nx-big: ${big}\r\ncontent-length: 2\r\n\r\nok`);
          socket.end();
        },
      },
    });
    try {
      expect(await send(raw.port)).toMatchObject({ outcome: "failed", error: "response headers too large" });
    } finally {
      raw.stop(true);
    }
  });

  test("durationMs comes from the injected clock", async () => {
    const r = receiver();
    const ticks = [1_000, 1_042];
    expect(await send(r.port, { now: () => ticks.shift() ?? 0 })).toMatchObject({ durationMs: 42 });
  });
});
