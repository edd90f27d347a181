/**
 * One vocabulary: the argument that sets a value has the name of the field that reports it, and an unknown
 * argument's error names the closest valid one — through MCP, on a real store, with nothing changed by the refusal.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { RoomStore } from "../../src/store/types.ts";
import { connect, errorText, type RoomClient, roomSnapshot } from "../support/mcp-client.ts";
import { type InProcessServer, startInProcess, TEAM_A } from "../support/server.ts";
import { newRoomId, sqliteE2e } from "../support/stores.ts";

type Json = Record<string, any>;

let store: RoomStore;
let server: InProcessServer;
let full: RoomClient;
let compact: RoomClient;

beforeAll(async () => {
  store = await sqliteE2e().open();
  server = startInProcess(store);
  full = await connect(server.url, TEAM_A.secret);
  compact = await connect(server.url, TEAM_A.secret, "json", { profile: "compact" });
});
afterAll(async () => {
  await full.close();
  await compact.close();
  await server.stop();
  await store.close();
});

test("heartbeat takes statusText, the name presence reports it by", async () => {
  const roomId = newRoomId();
  await full.call("add_task", { roomId, title: "t" });
  const beat = await full.call<Json>("heartbeat", { roomId, agentId: "alice", statusText: "writing tests" });
  expect(beat.presence.statusText).toBe("writing tests");
  const presence = await full.call<Json[]>("get_presence", { roomId });
  expect(presence.find((p) => p.agentId === "alice")?.statusText).toBe("writing tests");
});

test("the old name status gets did-you-mean statusText, and the refused call changes nothing", async () => {
  const roomId = newRoomId();
  await full.call("heartbeat", { roomId, agentId: "alice", statusText: "before" });
  await full.call("add_task", { roomId, title: "t" });
  const before = await roomSnapshot(full, roomId);
  const refused = await full.raw("heartbeat", { roomId, agentId: "alice", status: "after" });
  expect(refused.isError).toBe(true);
  expect(errorText(refused)).toBe(
    'Error: Invalid arguments: arguments: Unrecognized key "status" — did you mean "statusText"?',
  );
  const snake = await full.raw("heartbeat", { roomId, agentId: "alice", status_text: "after" });
  expect(errorText(snake)).toBe(
    'Error: Invalid arguments: arguments: Unrecognized key "status_text" — did you mean "statusText"?',
  );
  expect(await roomSnapshot(full, roomId)).toBe(before);
});

test("an unknown argument nothing is close to lists the valid arguments, and changes nothing", async () => {
  const roomId = newRoomId();
  await full.call("add_task", { roomId, title: "t" });
  const before = await roomSnapshot(full, roomId);
  const refused = await full.raw("add_task", { roomId, title: "u", bogus: 1 });
  expect(errorText(refused)).toBe(
    'Error: Invalid arguments: arguments: Unrecognized key "bogus" — valid arguments: roomId, title, description, depends_on, priority, agentId, idempotencyKey',
  );
  expect(await roomSnapshot(full, roomId)).toBe(before);
});

test("a required argument left out is what an unknown one most likely meant", async () => {
  const roomId = newRoomId();
  const task = await full.call<Json>("add_task", { roomId, title: "t" });
  const refused = await full.raw("get_task", { roomId, id: task.id });
  expect(errorText(refused)).toBe(
    'Error: Invalid arguments: taskId: required (string); arguments: Unrecognized key "id" — did you mean "taskId"?',
  );
});

test("compact context_write takes consuming_agents, like write_context and the entry it makes", async () => {
  const roomId = newRoomId();
  const args = { roomId, agentId: "alice", type: "note", summary: "port", payload: { text: "8080" } };
  const written = await compact.raw("context_write", { ...args, consuming_agents: ["bob"] });
  expect(written.isError).toBeFalsy();
  const entries = await full.call<Json[]>("list_context", { roomId });
  expect(entries.map((e) => e.consuming_agents)).toEqual([["bob"]]);
  const before = await roomSnapshot(full, roomId);
  const old = await compact.raw("context_write", { ...args, consumers: ["bob"] });
  expect(errorText(old)).toBe(
    'Error: Invalid arguments: arguments: Unrecognized key "consumers" — did you mean "consuming_agents"?',
  );
  expect(await roomSnapshot(full, roomId)).toBe(before);
});
