/**
 * The send-time SSRF guard end to end: one lookup per send, every answer checked, and the connection made to
 * the first answer only — proven by receivers on different loopback addresses sharing one port, so the only
 * thing that decides which receiver gets the request is the address connected to.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { receiverPool } from "../../../test/support/webhook-receiver.ts";
import type { ResolvedAddress, Resolver } from "./pin.ts";
import { sendWebhook } from "./send.ts";
import { newWebhookSecret, webhookHeaders } from "./signature.ts";

const HOST = "hooks.example.test";
const BODY = '{"type":"message","roomId":"room-1","event":{}}';
const HEADERS = webhookHeaders({ secret: newWebhookSecret(), id: "room-1.1.wh_1", timestamp: 1, body: BODY });

const pool = receiverPool();
const receiver = (hostname: string, port = 0) => pool.start({ hostname, port });
afterEach(pool.stopAll);

/** A resolver that gives the next scripted answer on each call and counts the calls. */
function scripted(...answers: string[][]): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    calls.push(hostname);
    const answer = answers[Math.min(calls.length, answers.length) - 1] ?? [];
    return answer.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return Object.assign(resolve, { calls });
}

const send = (port: number, resolve: Resolver, allowPrivate = true, host = HOST) =>
  sendWebhook({
    url: `http://${host}:${port}/hook`,
    headers: HEADERS,
    body: BODY,
    allowHttp: true,
    allowPrivate,
    resolve,
  });

describe("pinning", () => {
  test("DNS rebinding: one lookup per send, and the connection goes to that answer, not to a later one", async () => {
    const pinned = receiver("127.0.0.1");
    const decoy = receiver("127.0.0.2", pinned.port);
    const rebinding = scripted(["127.0.0.1"], ["127.0.0.2"]);

    expect(await send(pinned.port, rebinding)).toMatchObject({ outcome: "delivered", httpStatus: 200 });
    expect(rebinding.calls).toEqual([HOST]);
    expect(pinned.requests.map((r) => [r.peer, r.headers.get("host")])).toEqual([
      ["127.0.0.1", `${HOST}:${pinned.port}`],
    ]);
    expect(decoy.requests).toHaveLength(0);

    // The next send looks up again (once) and follows the new answer: resolution is per send, never cached.
    expect(await send(pinned.port, rebinding)).toMatchObject({ outcome: "delivered" });
    expect(rebinding.calls).toEqual([HOST, HOST]);
    expect(decoy.requests).toHaveLength(1);
    expect(pinned.requests).toHaveLength(1);
  });

  test("with several answers only the first is used, even when it refuses the connection", async () => {
    const first = receiver("127.0.0.2");
    const second = receiver("127.0.0.1", first.port);
    expect(await send(first.port, scripted(["127.0.0.2", "127.0.0.1"]))).toMatchObject({
      outcome: "delivered",
    });
    expect([first.requests.length, second.requests.length]).toEqual([1, 0]);

    // Nothing listens on 127.0.0.3: no fallback to the working second answer.
    const result = await send(first.port, scripted(["127.0.0.3", "127.0.0.1"]));
    expect(result).toMatchObject({ outcome: "failed", error: "connection refused" });
    expect([first.requests.length, second.requests.length]).toEqual([1, 0]);
  });

  test("IPv6: a name pinned to ::1 reaches the receiver on ::1 with its own Host header", async () => {
    const r = receiver("::1");
    expect(await send(r.port, scripted(["::1"]))).toMatchObject({ outcome: "delivered" });
    expect(r.requests.map((q) => [q.peer, q.headers.get("host")])).toEqual([["::1", `${HOST}:${r.port}`]]);
  });

  test("HTTP_PROXY and friends are ignored: a proxy would resolve the name again", async () => {
    const direct = receiver("127.0.0.1");
    const proxy = receiver("127.0.0.1");
    const saved = { ...process.env };
    const proxyUrl = `http://127.0.0.1:${proxy.port}`;
    Object.assign(process.env, {
      HTTP_PROXY: proxyUrl,
      http_proxy: proxyUrl,
      HTTPS_PROXY: proxyUrl,
      NO_PROXY: "",
    });
    try {
      expect(await send(direct.port, scripted(["127.0.0.1"]))).toMatchObject({ outcome: "delivered" });
      // Control: the variables are live in this process — Bun's fetch does go through the proxy.
      await fetch(`http://${HOST}:${direct.port}/control`, { method: "POST", body: "x" });
    } finally {
      for (const key of ["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "NO_PROXY"]) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    }
    expect(direct.requests.map((r) => r.path)).toEqual(["/hook"]);
    expect(proxy.requests.map((r) => r.headers.get("host"))).toEqual([`${HOST}:${direct.port}`]);
  });
});

describe("refusal at send time (WEBHOOK_ALLOW_PRIVATE unset)", () => {
  test("a name that resolves to loopback is refused, though a receiver is listening there", async () => {
    const r = receiver("127.0.0.1");
    const resolve = scripted(["127.0.0.1"]);
    const result = await send(r.port, resolve, false);
    expect(result).toMatchObject({
      outcome: "failed",
      error:
        "refused: the host resolves to a loopback (127.0.0.0/8) address (set WEBHOOK_ALLOW_PRIVATE=true to allow private addresses)",
    });
    expect(resolve.calls).toEqual([HOST]);
    expect(r.requests).toHaveLength(0);
  });

  test("an IPv4-mapped answer is judged by the IPv4 address inside", async () => {
    const r = receiver("127.0.0.1");
    const result = await send(r.port, scripted(["::ffff:127.0.0.1"]), false);
    expect(result.error).toContain("loopback (127.0.0.0/8) inside IPv4-mapped IPv6");
    expect(r.requests).toHaveLength(0);
  });

  test("the URL rules apply again before any lookup (flags may have changed since registration)", async () => {
    const resolve = scripted(["127.0.0.1"]);
    const plain = await sendWebhook({
      url: `http://${HOST}/`,
      headers: HEADERS,
      body: BODY,
      allowPrivate: true,
      resolve,
    });
    expect(plain).toMatchObject({ outcome: "failed", error: expect.stringContaining("must use https") });
    expect(await send(8080, resolve, false, "localhost")).toMatchObject({
      outcome: "failed",
      error: expect.stringContaining("must not point at localhost"),
    });
    expect(await send(8080, resolve, false, "[::1]")).toMatchObject({ outcome: "failed" });
    expect(resolve.calls).toEqual([]);
  });

  test("a failed or empty lookup is a failure with a short reason", async () => {
    const notFound: Resolver = async () => {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${HOST}`), { code: "ENOTFOUND" });
    };
    expect(await send(8080, notFound)).toMatchObject({
      outcome: "failed",
      error: "DNS lookup failed: host not found",
    });
    expect(await send(8080, scripted([]))).toMatchObject({ error: "DNS lookup returned no address" });
  });
});
