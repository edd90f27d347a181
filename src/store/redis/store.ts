/** createRedisStore: the RoomStore over Lua scripts, shared by the TCP (Redis) and REST (Upstash) clients. */
import { VALUE_PIECES, type ValuePieces } from "../../protocol/room-values.ts";
import { type Clock, systemClock } from "../../protocol/time.ts";
import { DEFAULT_STORE_LIMITS, type StoreLimits } from "../access-types.ts";
import { type EventRetention, NO_RETENTION } from "../move-types.ts";
import type { RoomStore } from "../types.ts";
import { adminOps } from "./admin-ops.ts";
import { createBridge } from "./call.ts";
import { claimOps } from "./claim-ops.ts";
import type { ScriptClient } from "./client.ts";
import { contextOps } from "./context-ops.ts";
import { eventOps } from "./event-ops.ts";
import { createRedisFeed } from "./feed.ts";
import { forkOps } from "./fork-ops.ts";
import { inviteOps } from "./invite-ops.ts";
import { keyOps } from "./key-ops.ts";
import { leaseOps } from "./lease-ops.ts";
import { moveOps } from "./move-ops.ts";
import { oauthOps } from "./oauth-ops.ts";
import { peopleOps } from "./people-ops.ts";
import { planOps } from "./plan-ops.ts";
import { roomOps } from "./room-ops.ts";
import { runPing } from "./run.ts";
import { sessionOps } from "./session-ops.ts";
import { suspensionOps } from "./suspension-ops.ts";
import { teamIndexOps } from "./team-index-ops.ts";
import { toolOps } from "./tool-ops.ts";
import { valueOps } from "./value-ops.ts";
import { webhookOps } from "./webhook-ops.ts";

export interface RedisStoreOptions {
  /** Runs the scripts; see createTcpScriptClient, createClusterScriptClient and createUpstashScriptClient. */
  client: ScriptClient;
  /** What the store reports as `driver`. */
  driver: "redis" | "upstash";
  /** Injected clock (ms); every script receives its time from here, never from Redis TIME. */
  now?: Clock;
  /** Upper bound in ms on one operation (both calls when EVALSHA falls back to EVAL). Default 2000. */
  timeoutMs?: number;
  /** Limits enforced atomically (roomsPerTeam). Default DEFAULT_STORE_LIMITS. */
  limits?: StoreLimits;
  /** Event retention every append applies (EVENT_RETENTION_DAYS / EVENT_RETENTION_MAX); none by default. */
  retention?: EventRetention;
  /** The kinds of small value the store keeps; protocol/room-values.ts VALUE_PIECES by default. */
  values?: ValuePieces;
  /** A REST client's feed: ms between its requests while rooms are watched (UPSTASH_POLL_MS). Default 200. */
  pollMs?: number;
}

/**
 * Every operation is one Lua script, so one round trip and atomic (see types.ts). Exceptions, each explained
 * where it is made: the first write of a room (3 round trips: the claim handshake with the team's room index,
 * call.ts), deleteRoom (2) and listRooms (1 + one per indexed room), which span the room's and the team's slots.
 */
export function createRedisStore(options: RedisStoreOptions): RoomStore {
  const limits = options.limits ?? DEFAULT_STORE_LIMITS;
  if (!(Number.isInteger(limits.roomsPerTeam) && limits.roomsPerTeam >= 0)) {
    throw new Error(`limits.roomsPerTeam must be a non-negative integer, got ${limits.roomsPerTeam}`);
  }
  const run = { client: options.client, timeoutMs: options.timeoutMs ?? 2000, driver: options.driver };
  const clock = options.now ?? systemClock;
  const retention = options.retention ?? NO_RETENTION;
  for (const [name, value] of Object.entries(retention)) {
    if (!(Number.isSafeInteger(value) && value >= 0)) {
      throw new Error(`retention.${name} must be a non-negative integer, got ${value}`);
    }
  }
  const bridge = createBridge(run, clock, limits, retention);
  const { call } = bridge;
  const changes = createRedisFeed(options.client, run, options.pollMs);
  const admin = adminOps(bridge);
  const pieces = options.values ?? VALUE_PIECES;
  const keys = keyOps(bridge);
  return {
    driver: options.driver,
    changes,
    ...planOps(call),
    ...contextOps(call),
    ...eventOps(call),
    ...roomOps(call),
    ...valueOps(call, pieces),
    ...leaseOps(call),
    ...claimOps(call),
    ...suspensionOps(call),
    ...keys,
    ...teamIndexOps(run, clock, keys),
    ...inviteOps(bridge),
    ...oauthOps(bridge),
    ...admin,
    ...toolOps(bridge),
    ...webhookOps(bridge, run, clock),
    ...peopleOps(call),
    ...forkOps(call, admin.deleteRoom, pieces, clock),
    ...moveOps(bridge, options.client, admin.deleteRoom, pieces),
    ...sessionOps(run, clock),
    ping: () => runPing(run),
    async close() {
      await changes.close();
      await options.client.close?.();
    },
  };
}
