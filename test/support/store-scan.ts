/**
 * Reads everything a store holds, as raw bytes, and reports which of the given secrets appear in it (secrets only
 * as SHA-256 digests at rest); and one room's bytes, to show that a read wrote nothing. SQLite: the database file
 * and its WAL. Redis: every key's value, on every node of a cluster. PostgreSQL: every row of every table of the
 * database, as text.
 */
import { Database } from "bun:sqlite";
import { existsSync, readFileSync } from "node:fs";
import { RedisClient, SQL } from "bun";
import { ROOM_TABLES as PG_ROOM_TABLES } from "../../src/store/postgres/schema.ts";
import { keySlot } from "../../src/store/redis/cluster/slot.ts";
import { roomKeys } from "../../src/store/redis/keys.ts";
import { ROOM_TABLES as SQLITE_ROOM_TABLES } from "../../src/store/sqlite/schema.ts";
import { redisCommand, sharedRedisCluster } from "./redis-cluster.ts";
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
    // Each batch's reads are sent at once (the client pipelines them): two rounds per batch, not three round trips a key.
    const read = async (key: string) => {
      const [dump, type] = await Promise.all([client.send("DUMP", [key]), client.send("TYPE", [key])]);
      const values =
        type === "hash"
          ? await client.send("HGETALL", [key])
          : type === "zset"
            ? await client.send("ZRANGE", [key, "0", "-1"])
            : type === "string"
              ? await client.send("GET", [key])
              : null;
      return (
        key + (dump ? Buffer.from(dump as string, "latin1").toString("latin1") : "") + JSON.stringify(values)
      );
    };
    haystack += (await Promise.all(keys.map(read))).join("");
  } while (cursor !== "0");
  client.close();
  return haystack;
}

/**
 * The room's stored bytes on a backing, as one comparable string: on SQLite and PostgreSQL every row of every room
 * table holding the room (sorted), on Redis the DUMP of every key of the room (on its node, on a cluster). Two
 * equal answers mean nothing of the room was written in between (expiry times are not bytes: roomKeyTtl).
 */
export async function roomBytes(store: E2eStore, roomId: string): Promise<string> {
  const env = await store.env();
  if (env.DATABASE_URL) {
    const sql = new SQL({ url: env.DATABASE_URL, max: 1 });
    try {
      const out: string[] = [];
      for (const table of PG_ROOM_TABLES) {
        const rows = (await sql.unsafe(
          `SELECT t::text AS row FROM "${table}" t WHERE room_id = $1 ORDER BY 1`,
          [roomId],
        )) as { row: string }[];
        out.push(`${table}: ${rows.map((r) => r.row).join("\n")}`);
      }
      return out.join("\n");
    } finally {
      await sql.close();
    }
  }
  if (env.SQLITE_PATH) {
    const db = new Database(env.SQLITE_PATH, { readonly: true });
    try {
      return SQLITE_ROOM_TABLES.map((table) => {
        const rows = db.query(`SELECT * FROM ${table} WHERE room_id = ?`).all(roomId);
        return `${table}: ${rows
          .map((r) => JSON.stringify(r))
          .sort()
          .join("\n")}`;
      }).join("\n");
    } finally {
      db.close();
    }
  }
  const out: string[] = [];
  for (const key of roomKeys(roomId)) {
    const dump = await onKeyNode(env, key, "DUMP", [key]);
    out.push(`${key}: ${dump ? Buffer.from(dump as string, "latin1").toString("hex") : "-"}`);
  }
  return out.join("\n");
}

/** ms a Redis room's meta key has left (-1: no expiry, -2: no key); null on SQL backings, which keep no TTL. */
export async function roomKeyTtl(store: E2eStore, roomId: string): Promise<number | null> {
  const env = await store.env();
  if (env.DATABASE_URL || env.SQLITE_PATH) return null;
  const key = `room:{${roomId}}:meta`;
  return Number(await onKeyNode(env, key, "PTTL", [key]));
}

/** A command on the Redis node holding `key` (the shared server, or the cluster node owning its slot). */
async function onKeyNode(env: Record<string, string>, key: string, command: string, args: string[]) {
  if (env.REDIS_URL?.startsWith("redis-cluster://")) {
    const owner = await (await sharedRedisCluster()).ownerOf(keySlot(key));
    return redisCommand(owner, command, args);
  }
  const client = new RedisClient((await sharedRedis()).url);
  try {
    return await client.send(command, args);
  } finally {
    client.close();
  }
}

/**
 * What a backing holds of one room, place by place, read from the backing itself: on SQLite and PostgreSQL the rows
 * of the room in every table with a room_id column (found in the live schema, declared or not), on Redis the
 * entries of every key tagged with the room (hash fields, set members; per part, the key's name after the tag).
 */
export interface RoomHoldings {
  /** Rows or entries per table or part; places holding nothing are left out. */
  held: Record<string, number>;
  /**
   * What the room has elsewhere: SQL rate-window rows of its invites (bucket invite:<roomId>:…), Redis keys of its
   * invites' rate windows (room:{<roomId>}:rl:…) — each such key's ms left in `ttls` too.
   */
  elsewhere: number;
  /** Redis: ms each of the room's keys has left (-1: no expiry). */
  ttls: Record<string, number>;
  /** SQL: every table of the live schema with a room_id column, holding the room or not. */
  tables: string[];
}

export async function roomHoldings(store: E2eStore, roomId: string): Promise<RoomHoldings> {
  const env = await store.env();
  const out: RoomHoldings = { held: {}, elsewhere: 0, ttls: {}, tables: [] };
  const bucket = `invite:${roomId}:%`;
  if (env.DATABASE_URL) {
    const sql = new SQL({ url: env.DATABASE_URL, max: 1 });
    try {
      const tables = (await sql`SELECT table_name AS t FROM information_schema.columns
        WHERE table_schema = 'public' AND column_name = 'room_id'`) as { t: string }[];
      for (const { t } of tables) {
        out.tables.push(t);
        const [row] = (await sql.unsafe(`SELECT count(*)::int AS n FROM "${t}" WHERE room_id = $1`, [
          roomId,
        ])) as { n: number }[];
        if (row && row.n > 0) out.held[t] = row.n;
      }
      const [rate] = (await sql`SELECT (SELECT count(*) FROM rate_hits WHERE bucket LIKE ${bucket})
        + (SELECT count(*) FROM rate_counts WHERE bucket LIKE ${bucket}) AS n`) as { n: number | string }[];
      out.elsewhere = Number(rate?.n ?? 0);
      return out;
    } finally {
      await sql.close();
    }
  }
  if (env.SQLITE_PATH) {
    const db = new Database(env.SQLITE_PATH, { readonly: true });
    try {
      const tables = db
        .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'")
        .all()
        .filter(({ name }) =>
          db
            .query<{ name: string }, []>(`SELECT name FROM pragma_table_info('${name}')`)
            .all()
            .some((c) => c.name === "room_id"),
        );
      for (const { name } of tables) {
        out.tables.push(name);
        const n =
          db.query<{ n: number }, [string]>(`SELECT count(*) AS n FROM ${name} WHERE room_id = ?`).get(roomId)
            ?.n ?? 0;
        if (n > 0) out.held[name] = n;
      }
      out.elsewhere =
        (db
          .query<{ n: number }, [string]>("SELECT count(*) AS n FROM rate_hits WHERE bucket LIKE ?")
          .get(bucket)?.n ?? 0) +
        (db
          .query<{ n: number }, [string]>("SELECT count(*) AS n FROM rate_counts WHERE bucket LIKE ?")
          .get(bucket)?.n ?? 0);
      return out;
    } finally {
      db.close();
    }
  }
  const prefix = `room:{${roomId}}:`;
  const url = env.REDIS_URL?.startsWith("redis-cluster://")
    ? `redis://127.0.0.1:${await (await sharedRedisCluster()).ownerOf(keySlot(`${prefix}meta`))}`
    : (await sharedRedis()).url;
  const client = new RedisClient(url);
  try {
    const keys: string[] = [];
    let cursor = "0";
    do {
      const [next, found] = (await client.send("SCAN", [cursor, "MATCH", `${prefix}*`, "COUNT", "1000"])) as [
        string,
        string[],
      ];
      cursor = next;
      keys.push(...found);
    } while (cursor !== "0");
    for (const key of keys) {
      const part = key.slice(prefix.length);
      const type = String(await client.send("TYPE", [key]));
      const size = type === "hash" ? "HLEN" : type === "zset" ? "ZCARD" : type === "none" ? null : "EXISTS";
      const n = size ? Number(await client.send(size, [key])) : 0;
      out.ttls[part] = Number(await client.send("PTTL", [key]));
      if (part.startsWith("rl:")) out.elsewhere += n > 0 ? 1 : 0;
      else if (n > 0) out.held[part] = n;
    }
    return out;
  } finally {
    client.close();
  }
}
