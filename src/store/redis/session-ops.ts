/**
 * People's web sessions on Redis (session-types.ts): one script on the session's own key per operation, so one
 * round trip on a single server, a cluster (the key names its own slot) or Upstash alike.
 */
import type { Clock } from "../../protocol/time.ts";
import { iso } from "../../protocol/time.ts";
import { SESSION_RENEW_EVERY_MS, type SessionRecord, type SessionStore } from "../session-types.ts";
import { sessionKey } from "./keys.ts";
import { type RunOptions, runScript } from "./run.ts";
import { SESSION_SCRIPTS, type SessionScriptName } from "./scripts.ts";

export function sessionOps(run: RunOptions, clock: Clock): SessionStore {
  const session = async <T>(digest: string, name: SessionScriptName, args: string[]) =>
    (await runScript<T>(run, SESSION_SCRIPTS[name], [sessionKey(digest)], [String(clock()), ...args])).ok;

  return {
    async createSession(digest, record, ttlMs) {
      // The record's fields in a fixed order, whatever the caller's object carries besides.
      const json = JSON.stringify({
        teamId: record.teamId,
        humanId: record.humanId,
        credential: record.credential,
        createdAt: record.createdAt,
      });
      const end = await session<number>(digest, "SESSION_CREATE", [json, String(ttlMs)]);
      return { ...(JSON.parse(json) as SessionRecord), expiresAt: iso(end) };
    },
    async touchSession(digest, ttlMs) {
      const found = await session<{ rec: SessionRecord; exp: number } | null>(digest, "SESSION_TOUCH", [
        String(ttlMs),
        String(SESSION_RENEW_EVERY_MS),
      ]);
      return found ? { ...found.rec, expiresAt: iso(found.exp) } : null;
    },
    deleteSession: (digest) => session<boolean>(digest, "SESSION_DELETE", []),
  };
}
