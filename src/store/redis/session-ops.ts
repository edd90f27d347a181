/**
 * People's web sessions on Redis (session-types.ts): one script on the session's own key per operation, so one
 * round trip on a single server, a cluster (the key names its own slot) or Upstash alike.
 */
import type { Clock } from "../../protocol/time.ts";
import { iso } from "../../protocol/time.ts";
import { SESSION_RENEW_EVERY_MS, type SessionRecord, type SessionStore } from "../session-types.ts";
import { sessionKey } from "./keys.ts";
import { type RunOptions, runClocked } from "./run.ts";
import { SESSION_SCRIPTS } from "./scripts.ts";

export function sessionOps(run: RunOptions, clock: Clock): SessionStore {
  const keys = (digest: string) => [sessionKey(digest)];

  return {
    async createSession(digest, record, ttlMs) {
      // The record's fields in a fixed order, whatever the caller's object carries besides.
      const json = JSON.stringify({
        teamId: record.teamId,
        humanId: record.humanId,
        credential: record.credential,
        createdAt: record.createdAt,
      });
      const end = await runClocked(run, SESSION_SCRIPTS.SESSION_CREATE, keys(digest), clock(), {
        record: json,
        ttl: ttlMs,
      });
      return { ...(JSON.parse(json) as SessionRecord), expiresAt: iso(end) };
    },
    async touchSession(digest, ttlMs) {
      const found = await runClocked(run, SESSION_SCRIPTS.SESSION_TOUCH, keys(digest), clock(), {
        ttl: ttlMs,
        every: SESSION_RENEW_EVERY_MS,
      });
      return found ? { ...found.rec, expiresAt: iso(found.exp) } : null;
    },
    deleteSession: (digest) => runClocked(run, SESSION_SCRIPTS.SESSION_DELETE, keys(digest), clock(), {}),
  };
}
