/**
 * Every record a store holds for one room, as one canonical string, to prove an operation left the room exactly as
 * it was (a report, a read). SQLite and PostgreSQL: every row of every table with a room_id column for the room.
 * Redis (single node, cluster, the Upstash front over the shared server): every key of the room's hash tag
 * (room:{id}:…) with its value and its absolute expiry (PEXPIRETIME), so a refreshed TTL shows too.
 */
import { Database } from "bun:sqlite";
import { RedisClient, SQL } from "bun";
import { keySlot } from "../../src/store/redis/cluster/slot.ts";
import { redisCommand, sharedRedisCluster } from "./redis-cluster.ts";
import { sharedRedis } from "./redis-server.ts";
import type { E2eStore } from "./stores.ts";

export async function roomRecords(store: E2eStore, roomId: string): Promise<string> {
  const env = await store.env();
  if (env.DATABASE_URL) return postgresRows(env.DATABASE_URL, roomId);
  if (env.SQLITE_PATH) return sqliteRows(env.SQLITE_PATH, roomId);
  if (env.REDIS_URL?.startsWith("redis-cluster://")) {
    // Every key of the room shares its hash tag, so one primary holds them all.
    const owner = await (await sharedRedisCluster()).ownerOf(keySlot(`room:{${roomId}}:meta`));
    return redisKeys((command, args) => redisCommand(owner, command, args), roomId);
  }
  const client = new RedisClient((await sharedRedis()).url);
  try {
    return await redisKeys((command, args) => client.send(command, args), roomId);
  } finally {
    client.close();
  }
}

function sqliteRows(path: string, roomId: string): string {
  const db = new Database(path, { readonly: true });
  try {
    const tables = db
      .query<{ name: string }, []>(
        "SELECT m.name FROM sqlite_master m WHERE m.type = 'table' AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'room_id') ORDER BY m.name",
      )
      .all();
    return tables
      .map(({ name }) => {
        const rows = db.query(`SELECT * FROM "${name}" WHERE room_id = ?`).all(roomId);
        return `${name}: ${rows
          .map((r) => JSON.stringify(r))
          .sort()
          .join("\n")}`;
      })
      .join("\n");
  } finally {
    db.close();
  }
}

async function postgresRows(url: string, roomId: string): Promise<string> {
  const sql = new SQL({ url, max: 1 });
  try {
    const tables = (await sql`SELECT DISTINCT table_name FROM information_schema.columns
      WHERE table_schema = 'public' AND column_name = 'room_id' ORDER BY table_name`) as {
      table_name: string;
    }[];
    const parts: string[] = [];
    for (const { table_name } of tables) {
      const rows = (await sql.unsafe(`SELECT t::text AS row FROM "${table_name}" t WHERE room_id = $1`, [
        roomId,
      ])) as { row: string }[];
      parts.push(
        `${table_name}: ${rows
          .map((r) => r.row)
          .sort()
          .join("\n")}`,
      );
    }
    return parts.join("\n");
  } finally {
    await sql.close();
  }
}

type Send = (command: string, args: string[]) => Promise<unknown>;

async function redisKeys(send: Send, roomId: string): Promise<string> {
  const keys: string[] = [];
  let cursor = "0";
  do {
    const [next, found] = (await send("SCAN", [cursor, "MATCH", `room:{${roomId}}:*`, "COUNT", "1000"])) as [
      string,
      string[],
    ];
    cursor = next;
    keys.push(...found);
  } while (cursor !== "0");
  const parts: string[] = [];
  for (const key of keys.sort()) {
    const type = (await send("TYPE", [key])) as string;
    const value =
      type === "hash"
        ? await send("HGETALL", [key])
        : type === "zset"
          ? await send("ZRANGE", [key, "0", "-1", "WITHSCORES"])
          : type === "set"
            ? await send("SMEMBERS", [key])
            : type === "list"
              ? await send("LRANGE", [key, "0", "-1"])
              : type === "string"
                ? await send("GET", [key])
                : type;
    const canonical = Array.isArray(value)
      ? type === "set"
        ? [...value].sort()
        : value
      : value !== null && typeof value === "object"
        ? Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1))
        : value;
    parts.push(`${key} ${type} ${JSON.stringify(canonical)} expires ${await send("PEXPIRETIME", [key])}`);
  }
  return parts.join("\n");
}
