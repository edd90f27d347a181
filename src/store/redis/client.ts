/**
 * The narrow client shape the driver depends on: enough to run scripts and check liveness. Both the TCP client
 * (Bun's RedisClient) and the REST client (@upstash/redis) fit it, and tests wrap it to count round trips:
 * one evalsha or eval call is one round trip.
 */
export interface ScriptClient {
  evalsha(sha: string, keys: string[], args: string[]): Promise<unknown>;
  eval(script: string, keys: string[], args: string[]): Promise<unknown>;
  ping(): Promise<unknown>;
  close?(): Promise<void> | void;
}

/** Redis answers EVALSHA of an unknown script with NOSCRIPT (both clients put it in the error message). */
export function isNoScript(err: unknown): boolean {
  return /NOSCRIPT/.test(err instanceof Error ? err.message : String(err));
}
