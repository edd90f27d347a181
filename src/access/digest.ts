import { timingSafeEqual } from "node:crypto";

/** SHA-256 of a secret: the only form in which secrets are kept (in memory and at rest). */
export function sha256(secret: string): Buffer {
  return new Bun.CryptoHasher("sha256").update(secret).digest() as Buffer;
}

/** Constant-time equality of two digests. */
export function sameDigest(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A new secret: prefix + 32 random bytes, base64url. */
export function newSecret(prefix: string): string {
  return `${prefix}_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")}`;
}
