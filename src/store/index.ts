/**
 * openStore(config): picks the driver. Drivers are imported dynamically so a process never loads a client it
 * does not use.
 */
import type { StoreConfig } from "../config.ts";
import { roomLifetimeMs } from "../protocol/limits.ts";
import { VALUE_PIECES, type ValuePieces } from "../protocol/room-values.ts";
import { type Clock, systemClock } from "../protocol/time.ts";
import type { EventRetention } from "./move-types.ts";
import type { ScriptClient } from "./redis/client.ts";
import { roundTrips } from "./round-trips.ts";
import type { RoomStore } from "./types.ts";

const DAY_MS = 86_400_000;

/**
 * The lifetime the store itself enforces: the room's, unless an archive directory is set — then the store keeps
 * every room and the archiver (moving/archive.ts) removes one only after writing its export (0: for ever).
 */
export function storeRoomTtlMs(config: Pick<StoreConfig, "roomTtlDays" | "archiveDir">): number {
  return config.archiveDir === undefined ? roomLifetimeMs(config.roomTtlDays) : 0;
}

/** The retention every append applies, from EVENT_RETENTION_DAYS and EVENT_RETENTION_MAX (0: no bound). */
export function retentionOf(
  config: Pick<StoreConfig, "eventRetentionDays" | "eventRetentionMax">,
): EventRetention {
  return { maxEvents: config.eventRetentionMax ?? 0, maxAgeMs: (config.eventRetentionDays ?? 0) * DAY_MS };
}

/** The Redis client, observed when something watches round trips (store/round-trips.ts). */
async function observed(client: ScriptClient): Promise<ScriptClient> {
  const observe = roundTrips.observe;
  if (!observe) return client;
  const { observeScriptClient } = await import("./redis/observed-client.ts");
  return observeScriptClient(client, observe);
}

/**
 * The store `config` names. `values`: the kinds of small value it keeps (protocol/room-values.ts VALUE_PIECES;
 * the conformance suite adds kinds of its own).
 */
export async function openStore(
  config: StoreConfig,
  now: Clock = systemClock,
  values: ValuePieces = VALUE_PIECES,
): Promise<RoomStore> {
  const limits = { roomsPerTeam: config.roomsPerTeam, roomTtlMs: storeRoomTtlMs(config) };
  const retention = retentionOf(config);
  switch (config.store) {
    case "sqlite": {
      const { createSqliteStore } = await import("./sqlite/index.ts");
      return createSqliteStore({
        path: config.sqlitePath,
        now,
        limits,
        busyTimeoutMs: config.storeTimeoutMs,
        retention,
        values,
      });
    }
    case "redis": {
      const { createClusterScriptClient, createRedisStore, createTcpScriptClient } = await import(
        "./redis/index.ts"
      );
      const options = { timeoutMs: config.storeTimeoutMs };
      const client = await observed(
        config.redisCluster
          ? createClusterScriptClient(config.redisUrl, options)
          : createTcpScriptClient(config.redisUrl, options),
      );
      return createRedisStore({
        client,
        driver: "redis",
        now,
        timeoutMs: config.storeTimeoutMs,
        limits,
        retention,
        values,
      });
    }
    case "upstash": {
      const { createRedisStore, createUpstashScriptClient } = await import("./redis/index.ts");
      const client = await observed(createUpstashScriptClient(config.upstashUrl, config.upstashToken));
      return createRedisStore({
        client,
        driver: "upstash",
        pollMs: config.upstashPollMs,
        now,
        timeoutMs: config.storeTimeoutMs,
        limits,
        retention,
        values,
      });
    }
    case "postgres": {
      const { createPostgresStore } = await import("./postgres/index.ts");
      return createPostgresStore({
        url: config.databaseUrl,
        now,
        limits,
        timeoutMs: config.storeTimeoutMs,
        poolSize: config.databasePoolSize,
        retention,
        values,
      });
    }
  }
}
