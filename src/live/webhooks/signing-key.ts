/**
 * Webhook signing secrets without storing them. roomd keeps secrets at rest only as SHA-256 digests, but a webhook
 * secret must stay usable as an HMAC key for every later delivery; so it is derived, never stored:
 *
 *   secret = "whsec_" + base64(HMAC-SHA256(signingKey, webhookId))
 *
 * from one server-held master key (WEBHOOK_SIGNING_KEY, the same in every process of a deployment). The store
 * holds only the webhook id; the secret is shown once at registration and recomputed for each delivery. On the
 * embedded store, without WEBHOOK_SIGNING_KEY, a random key is kept in a file next to the database (mode 0600),
 * as the first-run operator key is.
 */
import { createHmac } from "node:crypto";
import { chmodSync, existsSync, linkSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { makePrivateDir } from "../../files.ts";
import { SECRET_PREFIX } from "./signature.ts";

/** Shortest master key accepted (config.ts checks WEBHOOK_SIGNING_KEY against it). */
export const SIGNING_KEY_MIN_LENGTH = 32;
/** The file of the embedded store's generated master key, next to the database. */
export const SIGNING_KEY_FILE = "webhook-signing.key";

/** The webhook's signing secret: `whsec_` + base64 of HMAC-SHA256(signingKey, webhookId), 32 bytes. */
export function webhookSecret(signingKey: string, webhookId: string): string {
  if (signingKey.length < SIGNING_KEY_MIN_LENGTH) {
    throw new TypeError(`the webhook signing key must be at least ${SIGNING_KEY_MIN_LENGTH} characters`);
  }
  const mac = createHmac("sha256", signingKey).update(webhookId, "utf8").digest("base64");
  return `${SECRET_PREFIX}${mac}`;
}

export interface SigningKeyFile {
  key: string;
  path: string;
  /** True when this call made the key. */
  created: boolean;
}

/**
 * The master key kept next to the SQLite file, made on first use: 32 random bytes, base64url, mode 0600. Several
 * processes starting at once on one file agree on one key: the file appears whole (written aside, then hard
 * linked into place, which fails if another process linked first) and every loser reads the winner's.
 */
export function readOrCreateSigningKey(sqlitePath: string): SigningKeyFile {
  const path = join(dirname(sqlitePath), SIGNING_KEY_FILE);
  const read = (): SigningKeyFile | null => {
    if (!existsSync(path)) return null;
    const key = readFileSync(path, "utf8").trim();
    if (key.length < SIGNING_KEY_MIN_LENGTH) {
      throw new Error(`${path} holds no usable webhook signing key (remove it, or set WEBHOOK_SIGNING_KEY)`);
    }
    return { key, path, created: false };
  };
  const existing = read();
  if (existing) return existing;
  makePrivateDir(dirname(path));
  const key = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
  const aside = `${path}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(aside, `${key}\n`, { mode: 0o600 });
  chmodSync(aside, 0o600);
  try {
    linkSync(aside, path);
    return { key, path, created: true };
  } catch (error) {
    if ((error as { code?: string }).code !== "EEXIST") throw error;
    const winner = read();
    if (!winner) throw error;
    return winner;
  } finally {
    unlinkSync(aside);
  }
}
