/**
 * Errors that point the caller (a model) at the fix: another tool's name for an argument, an approval id given to
 * the review tools, a header that names another agent than the key.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { type InProcessServer, startInProcess, TEAM_A } from "../support/server.ts";
import { newRoomId, sqliteE2e } from "../support/stores.ts";

let store: RoomStore;
let server: InProcessServer;
const roomId = newRoomId();

beforeAll(async () => {
  store = await sqliteE2e().open();
  server = startInProcess(store);
});
afterAll(async () => {
  await server.stop();
  await store.close();
});

test("an argument named as another tool names it gets a hint with this tool's name", async () => {
  const http = httpClient(server.url);
  const post = await http.tool(TEAM_A.secret, "post_event", {
    roomId,
    agentId: "a",
    type: "note",
    payload: {},
  });
  expect(post.text).toBe(
    'Error: Invalid arguments: from: required (string); arguments: Unrecognized key "agentId" — did you mean "from"?',
  );
  const diff = await http.tool(TEAM_A.secret, "diff_context", { roomId, contextId: "ctx-1" });
  expect(diff.text).toContain('Unrecognized key "contextId" — did you mean "id"?');
  const write = await http.tool(TEAM_A.secret, "write_context", {
    roomId,
    agentId: "a",
    type: "note",
    summary: "s",
    payload: { text: "t" },
  });
  expect(write.text).toContain('Unrecognized key "agentId" — did you mean "author"?');
});

test("an approval id given to approve says that people decide approvals", async () => {
  const http = httpClient(server.url);
  await http.tool(TEAM_A.secret, "post_event", { roomId, from: "a", type: "note", payload: {} });
  const approve = await http.tool(TEAM_A.secret, "approve", { roomId, reviewId: "apr-2", agentId: "a" });
  expect(approve.text).toBe(
    "Error: Review not found: apr-2 (apr- ids are approvals, which only people decide; approve and reject decide reviews, rev-…)",
  );
});

test("a bound key refused because of the X-Roomd-Agent header says the header named the other agent", async () => {
  const http = httpClient(server.url);
  const key = (await http.post("/admin/keys", TEAM_A.secret, { boundAgentId: "worker-b" })).body
    .secret as string;
  const res = await http.tool(key, "heartbeat", { roomId }, { "X-Roomd-Agent": "worker-a" });
  expect(res.text).toBe(
    "Error: This key is bound to agent worker-b (the X-Roomd-Agent header names worker-a)",
  );
  const named = await http.tool(key, "heartbeat", { roomId, agentId: "worker-a" });
  expect(named.text).toBe("Error: This key is bound to agent worker-b");
});
