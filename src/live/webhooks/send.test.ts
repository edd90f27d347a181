/**
 * sendWebhook against real receivers on loopback (allowPrivate, since loopback is otherwise refused): what a
 * delivery sends, and which answers count as delivered. Failures are in send-failures.test.ts.
 */
import { afterEach, describe, expect, test } from "bun:test";
import pkg from "../../../package.json" with { type: "json" };
import { verifyStandardWebhook } from "../../../test/support/standard-webhooks.ts";
import {
  signedDelivery as delivery,
  TEST_EVENT as EVENT,
  HOST,
  loopbackResolver as loopback,
  sendToLoopback as send,
} from "../../../test/support/webhook-delivery.ts";
import { receiverPool } from "../../../test/support/webhook-receiver.ts";
import { sendWebhook } from "./send.ts";
import { newWebhookSecret } from "./signature.ts";

const pool = receiverPool();
const receiver = pool.start;
afterEach(pool.stopAll);

describe("a 2xx is a delivery", () => {
  test("POSTs the signed body with every header; an independent verifier accepts what arrived", async () => {
    const r = receiver({ respond: () => new Response(null, { status: 204 }) });
    const { secret, body, headers } = delivery();
    const result = await sendWebhook({
      url: `http://${HOST}:${r.port}/hook?x=1`,
      headers,
      body,
      allowHttp: true,
      allowPrivate: true,
      resolve: loopback,
    });
    expect(result).toMatchObject({ outcome: "delivered", httpStatus: 204, responseBytes: 0 });
    expect(result.error).toBeUndefined();
    expect(r.requests).toHaveLength(1);
    const got = r.requests[0]!;
    expect(got.method).toBe("POST");
    expect(got.path).toBe("/hook?x=1");
    expect(got.body).toBe(body);
    expect(JSON.parse(got.body)).toEqual({ type: "message", roomId: "room-1", event: EVENT });
    expect(got.headers.get("host")).toBe(`${HOST}:${r.port}`);
    expect(got.headers.get("content-type")).toBe("application/json");
    expect(got.headers.get("user-agent")).toBe(`roomd/${pkg.version}`);
    expect(got.headers.get("webhook-id")).toBe("room-1.3.wh_1");
    expect(got.headers.get("content-length")).toBe(String(Buffer.byteLength(body)));
    expect(await verifyStandardWebhook({ secret, headers: got.headers, body: got.body })).toEqual({
      ok: true,
    });
    expect(
      await verifyStandardWebhook({ secret: newWebhookSecret(), headers: got.headers, body: got.body }),
    ).toEqual({
      ok: false,
      reason: "no_matching_signature",
    });
  });

  test("a 200 with a 10 MB body that never ends: at most 64 KB is read, and it counts as delivered", async () => {
    const chunk = new Uint8Array(64 * 1024).fill(97);
    let sent = 0;
    const r = receiver({
      respond: () =>
        new Response(
          new ReadableStream({
            async pull(controller) {
              if (sent >= 10 * 1024 * 1024) return new Promise(() => {}); // 10 MB, then hold the stream open
              sent += chunk.length;
              controller.enqueue(chunk);
            },
          }),
          { status: 200 },
        ),
    });
    // Were the body read to its end, this would wait for the 10 s timeout.
    const result = await send(r.port, { timeoutMs: 10_000 });
    expect(result).toMatchObject({ outcome: "delivered", httpStatus: 200, responseBytes: 65_536 });
    expect(result.durationMs).toBeLessThan(5_000);
  });

  test("Host and Content-Length always come from the URL and the body, whatever the caller passed", async () => {
    const r = receiver();
    const { body, headers } = delivery();
    const sneaky = { ...headers, Host: "internal.example", "Content-Length": "1" };
    const url = `http://${HOST}:${r.port}/`;
    const common = { allowHttp: true, allowPrivate: true, resolve: loopback };
    expect(await sendWebhook({ url, headers: sneaky, body, ...common })).toMatchObject({
      outcome: "delivered",
    });
    expect(r.requests.map((q) => [q.headers.get("host"), q.body])).toEqual([[`${HOST}:${r.port}`, body]]);
  });

  test("a smaller cap is honoured too", async () => {
    const r = receiver({ respond: () => new Response("x".repeat(5000)) });
    expect(await send(r.port, { maxResponseBytes: 100 })).toMatchObject({
      outcome: "delivered",
      responseBytes: 100,
    });
    expect(await send(r.port)).toMatchObject({ outcome: "delivered", responseBytes: 5000 });
  });
});
