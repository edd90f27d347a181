/** createRedisStore: the RoomStore over Lua scripts, shared by the TCP (Redis) and REST (Upstash) clients. */
import { type Clock, systemClock } from "../../protocol/time.ts";
import type { RoomStore } from "../types.ts";
import { createCall } from "./call.ts";
import type { ScriptClient } from "./client.ts";
import { contextOps } from "./context-ops.ts";
import { eventOps } from "./event-ops.ts";
import { planOps } from "./plan-ops.ts";
import { roomOps } from "./room-ops.ts";
import { runPing } from "./run.ts";

export interface RedisStoreOptions {
  /** Runs the scripts; see createTcpScriptClient and createUpstashScriptClient. */
  client: ScriptClient;
  /** What the store reports as `driver`. */
  driver: "redis" | "upstash";
  /** Injected clock (ms); every script receives its time from here, never from Redis TIME. */
  now?: Clock;
  /** Upper bound in ms on one operation (both calls when EVALSHA falls back to EVAL). Default 2000. */
  timeoutMs?: number;
}

/** Every operation is one Lua script, so one round trip and atomic (see types.ts). */
export function createRedisStore(options: RedisStoreOptions): RoomStore {
  const run = { client: options.client, timeoutMs: options.timeoutMs ?? 2000 };
  const call = createCall(run, options.now ?? systemClock);
  return {
    driver: options.driver,
    ...planOps(call),
    ...contextOps(call),
    ...eventOps(call),
    ...roomOps(call),
    ping: () => runPing(run),
    async close() {
      await options.client.close?.();
    },
  };
}
