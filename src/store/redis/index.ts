/** The Redis driver: one RoomStore over Lua scripts, with a TCP, a Redis Cluster and a REST (Upstash) client. */
export type { ScriptClient } from "./client.ts";
export {
  type ClusterClientOptions,
  type ClusterScriptClient,
  createClusterScriptClient,
} from "./cluster/client.ts";
export type { ShardedListener } from "./cluster/sharded-subscriber.ts";
export { inviteRateKey, ROOM_KEY_PARTS, roomKeys, TEAM_KEY_PARTS, teamKeys } from "./keys.ts";
export { SCRIPTS } from "./scripts.ts";
export { createRedisStore, type RedisStoreOptions } from "./store.ts";
export { createTcpScriptClient, type TcpClientOptions } from "./tcp-client.ts";
export { createUpstashScriptClient } from "./upstash-client.ts";
