/**
 * The receiver's verification snippet in docs/http.md is code people copy: this runs that exact block against a
 * real delivery (roomd's sender, a real receiver on loopback), so the docs cannot drift into a verifier that
 * accepts forgeries or refuses roomd's own signatures.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { deliverOnce } from "../src/live/webhooks/deliver.ts";
import { webhookSecret } from "../src/live/webhooks/signing-key.ts";
import { startReceiver } from "./support/webhook-receiver.ts";

const MARKER = "<!-- webhook-verifier:";
const docs = readFileSync(resolve(import.meta.dir, "../docs/http.md"), "utf8");
const after = docs.slice(docs.indexOf(MARKER));
const snippet = after.slice(
  after.indexOf("```ts\n") + 6,
  after.indexOf("```\n", after.indexOf("```ts\n") + 6),
);
const dir = mkdtempSync(join(tmpdir(), "roomd-snippet-"));
writeFileSync(join(dir, "verify.ts"), snippet);
const { verifyRoomdWebhook } = (await import(join(dir, "verify.ts"))) as {
  verifyRoomdWebhook: (secret: string, headers: Headers, body: string, toleranceSeconds?: number) => boolean;
};
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("the verifier in docs/http.md accepts roomd's delivery and refuses a changed body, id, secret or an old timestamp", async () => {
  expect(docs.includes(MARKER) && snippet.includes("export function verifyRoomdWebhook")).toBe(true);
  const receiver = startReceiver();
  const signingKey = "docs-snippet-signing-key-0123456789abcdef";
  const webhookId = "wh_0123456789abcdef";
  try {
    const result = await deliverOnce(
      {
        roomId: "docs-room",
        webhookId,
        url: `http://127.0.0.1:${receiver.port}/`,
        event: {
          id: "evt-3",
          seq: 3,
          type: "note",
          from: "alice",
          to: "all",
          payload: { text: "héllo ✓" },
          timestamp: new Date().toISOString(),
          read_by: [],
        },
      },
      { signingKey, allowHttp: true, allowPrivate: true },
      Date.now,
    );
    expect(result.outcome).toBe("delivered");
    expect(receiver.requests).toHaveLength(1);
    const { headers, body } = receiver.requests[0] as { headers: Headers; body: string };
    const secret = webhookSecret(signingKey, webhookId);
    expect(verifyRoomdWebhook(secret, headers, body)).toBe(true);
    expect(verifyRoomdWebhook(secret, headers, body.replace("alice", "mallory"))).toBe(false);
    expect(verifyRoomdWebhook(webhookSecret(signingKey, "wh_fedcba9876543210"), headers, body)).toBe(false);
    const otherId = new Headers(headers);
    otherId.set("webhook-id", "docs-room.4.wh_0123456789abcdef");
    expect(verifyRoomdWebhook(secret, otherId, body)).toBe(false);
    const stale = new Headers(headers);
    stale.set("webhook-timestamp", String(Math.floor(Date.now() / 1000) - 600));
    expect(verifyRoomdWebhook(secret, stale, body)).toBe(false);
  } finally {
    await receiver.stop();
  }
});
