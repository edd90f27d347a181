/**
 * sendWebhook against real receivers on loopback (allowPrivate, since loopback is otherwise refused): what is
 * sent, and how each kind of answer — or no answer — is classified.
 */
import { afterEach, describe, expect, test } from "bun:test";
import pkg from "../../../package.json" with { type: "json" };
import { verifyStandardWebhook } from "../../../test/support/standard-webhooks.ts";
import { closedPort, type Receiver, startReceiver } from "../../../test/support/webhook-receiver.ts";
import type { RoomEvent } from "../../protocol/records.ts";
import { webhookBody, webhookMessageId } from "./message.ts";
import type { Resolver } from "./pin.ts";
import { sendWebhook } from "./send.ts";
import { newWebhookSecret, unixSeconds, webhookHeaders } from "./signature.ts";

const HOST = "hooks.example.test"; // .test never resolves in public DNS: only the injected resolver knows it
const loopback: Resolver = async () => [{ address: "127.0.0.1", family: 4 }];
const EVENT: RoomEvent = {
  id: "evt_1",
  seq: 3,
  type: "message",
  from: "agent-a",
  to: "*",
  payload: { text: "body-marker-do-not-log" },
  timestamp: "2026-01-01T00:00:00.000Z",
  read_by: [],
};

const receivers: Receiver[] = [];
const receiver = (options: Parameters<typeof startReceiver>[0] = {}) => {
  const r = startReceiver(options);
  receivers.push(r);
  return r;
};
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.stop()));
});

function delivery(secret = newWebhookSecret()) {
  const body = webhookBody("room-1", EVENT);
  const id = webhookMessageId("room-1", EVENT.seq, "wh_1");
  const headers = webhookHeaders({ secret, id, timestamp: unixSeconds(Date.now()), body });
  return { secret, body, headers };
}

const send = (port: number, extra: Partial<Parameters<typeof sendWebhook>[0]> = {}, path = "/hook?x=1") => {
  const { body, headers } = delivery();
  return sendWebhook({
    url: `http://${HOST}:${port}${path}`,
    headers,
    body,
    allowHttp: true,
    allowPrivate: true,
    resolve: loopback,
    ...extra,
  });
};

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
  }, 15_000);

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

describe("anything else is not", () => {
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

  test("durationMs comes from the injected clock", async () => {
    const r = receiver();
    const ticks = [1_000, 1_042];
    expect(await send(r.port, { now: () => ticks.shift() ?? 0 })).toMatchObject({ durationMs: 42 });
  });
});
