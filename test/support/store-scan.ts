/**
 * Reads everything a store holds, as raw bytes, and reports which of the given secrets appear in it (spec:
 * secrets only as SHA-256 digests at rest). SQLite: the database file and its WAL. Redis: every key's value.
 */
import { existsSync, readFileSync } from "node:fs";
import { RedisClient } from "bun";
import { sharedRedis } from "./redis-server.ts";
import type { E2eStore } from "./stores.ts";

export async function scanStoreForSecrets(store: E2eStore, secrets: string[]): Promise<string[]> {
  const env = await store.env();
  let haystack = "";
  if (env.SQLITE_PATH) {
    for (const file of [env.SQLITE_PATH, `${env.SQLITE_PATH}-wal`]) {
      if (existsSync(file)) haystack += readFileSync(file).toString("latin1");
    }
  } else {
    const client = new RedisClient((await sharedRedis()).url);
    let cursor = "0";
    do {
      const [next, keys] = (await client.send("SCAN", [cursor, "COUNT", "1000"])) as [string, string[]];
      cursor = next;
      for (const key of keys) {
        haystack += key;
        const dump = await client.send("DUMP", [key]);
        if (dump) haystack += Buffer.from(dump as string, "latin1").toString("latin1");
        const type = (await client.send("TYPE", [key])) as string;
        const values =
          type === "hash"
            ? await client.send("HGETALL", [key])
            : type === "zset"
              ? await client.send("ZRANGE", [key, "0", "-1"])
              : type === "string"
                ? await client.send("GET", [key])
                : null;
        haystack += JSON.stringify(values);
      }
    } while (cursor !== "0");
    client.close();
  }
  return secrets.filter((secret) => haystack.includes(secret));
}
