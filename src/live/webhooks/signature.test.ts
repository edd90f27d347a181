import { describe, expect, test } from "bun:test";
import pkg from "../../../package.json" with { type: "json" };
import { verifyStandardWebhook } from "../../../test/support/standard-webhooks.ts";
import {
  newWebhookSecret,
  SECRET_PREFIX,
  secretKey,
  sign,
  unixSeconds,
  webhookHeaders,
} from "./signature.ts";

const NOW_MS = 1_767_225_600_000; // 2026-01-01T00:00:00Z
const NOW = unixSeconds(NOW_MS);
const BODY = '{"type":"message","roomId":"room-1","event":{"seq":7}}';
const ID = "room-1.7.wh_abc";

describe("newWebhookSecret", () => {
  test("is whsec_ + standard base64 of 32 random bytes", () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(SECRET_PREFIX.length), "base64")).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
  });

  test("encodes exactly the bytes of the injected random source", () => {
    const bytes = Uint8Array.from({ length: 32 }, (_, i) => i * 7);
    const secret = newWebhookSecret((n) => bytes.slice(0, n));
    expect(secret).toBe(`whsec_${Buffer.from(bytes).toString("base64")}`);
    expect(secretKey(secret).equals(Buffer.from(bytes))).toBe(true);
  });
});

describe("sign", () => {
  test("matches the example vector published with the Standard Webhooks reference libraries", () => {
    // Also reproducible with: printf '%s' 'msg_….1614265330.{"test": 2432232314}' | openssl dgst -sha256 -mac HMAC …
    const signature = sign({
      secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
      timestamp: 1614265330,
      body: '{"test": 2432232314}',
    });
    expect(signature).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  test("an independent verifier accepts it, and rejects a tampered body, id or timestamp", async () => {
    const secret = newWebhookSecret();
    const headers = {
      "webhook-id": ID,
      "webhook-timestamp": String(NOW),
      "webhook-signature": sign({ secret, id: ID, timestamp: NOW, body: BODY }),
    };
    const verify = (h: Record<string, string>, body = BODY, s = secret) =>
      verifyStandardWebhook({ secret: s, headers: h, body, nowMs: NOW_MS });
    expect(await verify(headers)).toEqual({ ok: true });
    const rejected = { ok: false, reason: "no_matching_signature" } as const;
    expect(await verify(headers, BODY.replace("7", "8"))).toEqual(rejected);
    expect(await verify(headers, `${BODY} `)).toEqual(rejected);
    expect(await verify({ ...headers, "webhook-id": "room-1.8.wh_abc" })).toEqual(rejected);
    expect(await verify({ ...headers, "webhook-timestamp": String(NOW - 1) })).toEqual(rejected);
    expect(await verify(headers, BODY, newWebhookSecret())).toEqual(rejected);
  });

  test("the verifier's tolerance window refuses replays of an old or future-dated timestamp", async () => {
    const secret = newWebhookSecret();
    const signedAt = (timestamp: number) => ({
      "webhook-id": ID,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": sign({ secret, id: ID, timestamp, body: BODY }),
    });
    const verify = (timestamp: number) =>
      verifyStandardWebhook({ secret, headers: signedAt(timestamp), body: BODY, nowMs: NOW_MS });
    expect(await verify(NOW - 300)).toEqual({ ok: true });
    expect(await verify(NOW - 301)).toEqual({ ok: false, reason: "timestamp_too_old" });
    expect(await verify(NOW + 301)).toEqual({ ok: false, reason: "timestamp_too_new" });
  });

  test("the key is the decoded part after whsec_; the prefix itself is optional, as in the standard", () => {
    const secret = newWebhookSecret();
    const input = { id: ID, timestamp: NOW, body: BODY };
    expect(sign({ ...input, secret: secret.slice(SECRET_PREFIX.length) })).toBe(sign({ ...input, secret }));
  });

  test("refuses secrets that are not base64 or hold too few or too many bytes", () => {
    const input = { id: ID, timestamp: NOW, body: BODY };
    for (const secret of [
      "",
      "whsec_",
      "whsec_not base64!",
      "whsec_YWJj",
      `whsec_${"A".repeat(88)}`,
      "whsec_YWJ",
    ]) {
      expect(() => sign({ ...input, secret })).toThrow(TypeError);
    }
  });

  test("refuses ids and timestamps that would make the signed string ambiguous or inject a header", () => {
    const secret = newWebhookSecret();
    for (const id of ["", "a b", "a\r\nx-evil: 1", "a{b", "x".repeat(257)]) {
      expect(() => sign({ secret, id, timestamp: NOW, body: BODY })).toThrow("webhook id");
    }
    for (const timestamp of [1.5, -1, Number.NaN]) {
      expect(() => sign({ secret, id: ID, timestamp, body: BODY })).toThrow("unix seconds");
    }
  });
});

describe("webhookHeaders", () => {
  test("carries the three Standard Webhooks headers, JSON content type and roomd's user agent", async () => {
    const secret = newWebhookSecret();
    const headers = webhookHeaders({ secret, id: ID, timestamp: NOW, body: BODY });
    expect(Object.keys(headers).sort()).toEqual([
      "content-type",
      "user-agent",
      "webhook-id",
      "webhook-signature",
      "webhook-timestamp",
    ]);
    expect(headers["content-type"]).toBe("application/json");
    expect(headers["user-agent"]).toBe(`roomd/${pkg.version}`);
    expect(headers["webhook-id"]).toBe(ID);
    expect(headers["webhook-timestamp"]).toBe(String(NOW));
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(await verifyStandardWebhook({ secret, headers, body: BODY, nowMs: NOW_MS })).toEqual({ ok: true });
    expect(
      webhookHeaders({ secret, id: ID, timestamp: NOW, body: BODY, version: "9.9.9" })["user-agent"],
    ).toBe("roomd/9.9.9");
  });

  test("several secrets (a rotation) give space-separated signatures that each verify", async () => {
    const [oldSecret, newSecret] = [newWebhookSecret(), newWebhookSecret()];
    const headers = webhookHeaders({ secret: [newSecret, oldSecret], id: ID, timestamp: NOW, body: BODY });
    const entries = headers["webhook-signature"]!.split(" ");
    expect(entries).toHaveLength(2);
    expect(entries[0]).toBe(sign({ secret: newSecret, id: ID, timestamp: NOW, body: BODY }));
    for (const secret of [oldSecret, newSecret]) {
      expect(await verifyStandardWebhook({ secret, headers, body: BODY, nowMs: NOW_MS })).toEqual({
        ok: true,
      });
    }
    expect(() => webhookHeaders({ secret: [], id: ID, timestamp: NOW, body: BODY })).toThrow("at least one");
  });
});
