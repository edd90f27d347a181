/**
 * Derived webhook secrets: `whsec_` + base64(HMAC-SHA256(signing key, webhook id)), recomputed by WebCrypto here
 * (not by roomd's code), usable as a Standard Webhooks secret; and the embedded store's key file (0600, one key
 * even when several processes start at once).
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { verifyStandardWebhook } from "../../../test/support/standard-webhooks.ts";
import { secretKey, webhookHeaders } from "./signature.ts";
import { readOrCreateSigningKey, SIGNING_KEY_FILE, webhookSecret } from "./signing-key.ts";

const KEY = "a-signing-key-of-at-least-32-characters!";

describe("webhookSecret", () => {
  test("is whsec_ + base64 of HMAC-SHA256(signing key, webhook id), as WebCrypto computes it", async () => {
    const hmac = await crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(KEY),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    const mac = new Uint8Array(
      await crypto.subtle.sign("HMAC", hmac, new TextEncoder().encode("wh_0123456789abcdef")),
    );
    expect(webhookSecret(KEY, "wh_0123456789abcdef")).toBe(`whsec_${btoa(String.fromCharCode(...mac))}`);
    expect(secretKey(webhookSecret(KEY, "wh_0123456789abcdef"))).toHaveLength(32);
  });

  test("differs per webhook and per signing key, and is the same every time", () => {
    const a = webhookSecret(KEY, "wh_aaaaaaaaaaaaaaaa");
    expect(webhookSecret(KEY, "wh_aaaaaaaaaaaaaaaa")).toBe(a);
    expect(webhookSecret(KEY, "wh_aaaaaaaaaaaaaaab")).not.toBe(a);
    expect(webhookSecret(`${KEY}x`, "wh_aaaaaaaaaaaaaaaa")).not.toBe(a);
  });

  test("signs deliveries a Standard Webhooks verifier accepts", async () => {
    const secret = webhookSecret(KEY, "wh_0123456789abcdef");
    const body = '{"type":"x","roomId":"r1","event":{}}';
    const headers = webhookHeaders({
      secret,
      id: "r1.1.wh_0123456789abcdef",
      timestamp: 1_700_000_000,
      body,
    });
    expect(await verifyStandardWebhook({ secret, headers, body, nowMs: 1_700_000_000_000 })).toEqual({
      ok: true,
    });
  });

  test("refuses a signing key shorter than 32 characters", () => {
    expect(() => webhookSecret("short", "wh_0123456789abcdef")).toThrow("at least 32 characters");
  });
});

describe("the embedded store's key file", () => {
  test("is made once, 0600, next to the database, and read back on later starts", () => {
    const dir = mkdtempSync(join(tmpdir(), "roomd-signing-"));
    try {
      const first = readOrCreateSigningKey(join(dir, "roomd.sqlite"));
      expect(first).toMatchObject({ path: join(dir, SIGNING_KEY_FILE), created: true });
      expect(first.key.length).toBeGreaterThanOrEqual(32);
      expect(statSync(first.path).mode & 0o777).toBe(0o600);
      expect(readOrCreateSigningKey(join(dir, "roomd.sqlite"))).toEqual({ ...first, created: false });
      expect(readFileSync(first.path, "utf8").trim()).toBe(first.key);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("6 processes starting at once on one database agree on one key", async () => {
    const dir = mkdtempSync(join(tmpdir(), "roomd-signing-race-"));
    const module = JSON.stringify(resolve(import.meta.dir, "signing-key.ts"));
    const script = `const { readOrCreateSigningKey } = await import(${module});
      console.log(readOrCreateSigningKey(${JSON.stringify(join(dir, "roomd.sqlite"))}).key);`;
    try {
      const procs = Array.from({ length: 6 }, () => Bun.spawn(["bun", "-e", script], { stdout: "pipe" }));
      const keys = await Promise.all(procs.map((p) => new Response(p.stdout).text()));
      expect(new Set(keys.map((k) => k.trim())).size).toBe(1);
      expect(keys[0]?.trim()).toBe(readFileSync(join(dir, SIGNING_KEY_FILE), "utf8").trim());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
