/** ScriptClient over @upstash/redis (Redis commands as HTTPS requests). */
import { Redis } from "@upstash/redis";
import { type ScriptClient, scanAll } from "./client.ts";

/**
 * Automatic deserialisation is off, so replies stay the strings the scripts return: a shared variable "8080"
 * must never come back as the number 8080. Retries are kept to one: the store's timeout bounds
 * every call anyway, and a retry storm against a down endpoint helps nobody.
 */
export function createUpstashScriptClient(url: string, token: string): ScriptClient {
  const redis = new Redis({
    url,
    token,
    automaticDeserialization: false,
    enableTelemetry: false,
    retry: { retries: 1, backoff: () => 50 },
  });
  return {
    evalsha: (sha, keys, args) => redis.evalsha(sha, keys, args),
    eval: (script, keys, args) => redis.eval(script, keys, args),
    ping: () => redis.ping(),
    scan: (pattern) => scanAll((cursor) => redis.scan(cursor, { match: pattern, count: 1000 })),
  };
}
