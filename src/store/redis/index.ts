/** The Redis driver: one RoomStore over Lua scripts, with a TCP and a REST (Upstash) client. */
export type { ScriptClient } from "./client.ts";
export { inviteRateKey, ROOM_KEY_PARTS, roomKeys, TEAM_KEY_PARTS, teamKeys } from "./keys.ts";
export { SCRIPTS } from "./scripts.ts";
export { createRedisStore, type RedisStoreOptions } from "./store.ts";
export { createTcpScriptClient, type TcpClientOptions } from "./tcp-client.ts";
export { createUpstashScriptClient } from "./upstash-client.ts";
