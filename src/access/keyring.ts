/**
 * Static keys from the environment (operator keys first, then team keys), held only as SHA-256 digests and
 * compared in constant time. Every configured key is compared on every attempt, with no early exit, so the
 * time taken does not reveal which key (or how much of one) matched.
 */
import type { Principal } from "../protocol/principal.ts";
import { sameDigest, sha256 } from "./digest.ts";

interface Entry {
  digest: Buffer;
  principal: Principal;
}

export interface KeyRing {
  /** The principal of a bearer secret, or null. Costs no store round trip. */
  resolve(secret: string): Principal | null;
  /** The same, for a secret already hashed with sha256 (so a request hashes its bearer once). */
  resolveDigest(digest: Buffer): Principal | null;
  readonly size: number;
}

export function createKeyRing(
  keys: {
    operatorKeys: { teamId: string; secret: string; humanId?: string }[];
    apiKeys: { teamId: string; secret: string }[];
  },
  /** Injected only by tests, to count comparisons. */
  compare: (a: Buffer, b: Buffer) => boolean = sameDigest,
): KeyRing {
  const entries: Entry[] = [
    ...keys.operatorKeys.map((k) => ({
      digest: sha256(k.secret),
      // Operator keys are people's keys (docs/people.md#people-and-agents): OPERATOR_KEYS=teamId:secret[:humanId].
      principal: { teamId: k.teamId, kind: "operator" as const, humanId: k.humanId ?? "operator" },
    })),
    ...keys.apiKeys.map((k) => ({
      digest: sha256(k.secret),
      principal: { teamId: k.teamId, kind: "static" as const },
    })),
  ];
  const resolveDigest = (digest: Buffer): Principal | null => {
    let match: Principal | null = null;
    for (const entry of entries) {
      // Evaluate every comparison; keep the first match (operator keys come first).
      const equal = compare(entry.digest, digest);
      if (equal && match === null) match = entry.principal;
    }
    return match;
  };
  return { size: entries.length, resolve: (secret) => resolveDigest(sha256(secret)), resolveDigest };
}
