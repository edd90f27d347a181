/**
 * Reads everything a store holds, as raw bytes, and reports which of the given secrets appear in it (spec:
 * secrets only as SHA-256 digests at rest). SQLite: the database file and its WAL. Redis: every key's value, on
 * every node of a cluster. PostgreSQL: every row of every table of the database, as text.
 */
import { existsSync, readFileSync } from "node:fs";
import { RedisClient, SQL } from "bun";
import { sharedRedisCluster } from "./redis-cluster.ts";
import { sharedRedis } from "./redis-server.ts";
import type { E2eStore } from "./stores.ts";

export async function scanStoreForSecrets(store: E2eStore, secrets: string[]): Promise<string[]> {
  const env = await store.env();
  let haystack = "";
  if (env.DATABASE_URL) {
    haystack += await dumpPostgres(env.DATABASE_URL);
  } else if (env.SQLITE_PATH) {
    for (const file of [env.SQLITE_PATH, `${env.SQLITE_PATH}-wal`]) {
      if (existsSync(file)) haystack += readFileSync(file).toString("latin1");
    }
  } else {
    const urls = env.REDIS_URL?.startsWith("redis-cluster://")
      ? (await sharedRedisCluster()).alive().map((port) => `redis://127.0.0.1:${port}`)
      : [(await sharedRedis()).url];
    for (const url of urls) haystack += await dumpRedis(url);
  }
  return secrets.filter((secret) => haystack.includes(secret));
}

/** Every row of every table of a PostgreSQL database (its own schema, `public`), each as its text form. */
export async function dumpPostgres(url: string): Promise<string> {
  const sql = new SQL({ url, max: 1 });
  try {
    const tables = (await sql`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`) as {
      tablename: string;
    }[];
    let haystack = "";
    for (const { tablename } of tables) {
      const rows = (await sql.unsafe(`SELECT t::text AS row FROM "${tablename}" t`)) as { row: string }[];
      haystack += rows.map((r) => r.row).join("\n");
    }
    return haystack;
  } finally {
    await sql.close();
  }
}

/** Every key of one Redis server with its DUMP and its decoded values, as one string. */
async function dumpRedis(url: string): Promise<string> {
  let haystack = "";
  const client = new RedisClient(url);
  // A cluster replica answers key reads only in READONLY mode (a single server refuses the command: ignored).
  await client.send("READONLY", []).catch(() => {});
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
  return haystack;
}
