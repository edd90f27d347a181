/**
 * The narrow client shape the driver depends on: enough to run scripts and check liveness. The TCP client
 * (Bun's RedisClient), the cluster client (a slot router over Bun's RedisClient) and the REST client
 * (@upstash/redis) fit it, and tests wrap it to count round trips: one evalsha or eval call is one round trip.
 *
 * `deadline` (performance.now() ms) is when the caller stops waiting. A client that retries (the cluster client
 * follows redirects and failovers) sends nothing after it, so a call the store has reported as failed is never
 * applied later by a retry; clients that never retry may ignore it.
 */
export interface ScriptClient {
  evalsha(sha: string, keys: string[], args: string[], deadline?: number): Promise<unknown>;
  eval(script: string, keys: string[], args: string[], deadline?: number): Promise<unknown>;
  ping(deadline?: number): Promise<unknown>;
  /**
   * Listens on a sharded pub/sub channel (SSUBSCRIBE on the node serving its slot); resolves once subscribed, and
   * the returned function stops. Absent on clients that cannot hold a subscription (REST): the change feed then
   * polls instead.
   */
  subscribeSharded?(channel: string, onMessage: (message: string) => void): Promise<() => Promise<void>>;
  /**
   * Every key matching a glob pattern (SCAN MATCH, on every primary of a cluster). Only the migration tool lists
   * keys this way (store/move-types.ts teamsToMove); no request path does.
   */
  scan?(pattern: string): Promise<string[]>;
  close?(): Promise<void> | void;
}

/**
 * An error reply saying the script itself failed (a Lua runtime error, a wrong-typed key, a bad argument count),
 * which is a bug rather than an outage. Redis names the failing script position ("user_script:<line>") in every
 * such reply, through every client (the TCP client's RedisError, @upstash/redis's "Command failed: …").
 */
export function isScriptFailure(err: unknown): boolean {
  return /user_script:\d+/.test(err instanceof Error ? err.message : String(err));
}

/** Redis answers EVALSHA of an unknown script with NOSCRIPT (both clients put it in the error message). */
export function isNoScript(err: unknown): boolean {
  return /NOSCRIPT/.test(err instanceof Error ? err.message : String(err));
}

/** Runs a SCAN to its end (cursor "0"), one page at a time; `page` sends SCAN from a cursor. */
export async function scanAll(page: (cursor: string) => Promise<unknown>): Promise<string[]> {
  const keys: string[] = [];
  let cursor = "0";
  do {
    const reply = (await page(cursor)) as [string | number, string[]];
    cursor = String(reply[0]);
    keys.push(...reply[1].map(String));
  } while (cursor !== "0");
  return keys;
}
