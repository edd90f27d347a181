/**
 * Agents cannot post the event types roomd appends itself (protocol/event-types.ts): a posted `steer`,
 * `human_message` or `task_added` would reach the bridge, the summary's messages or a fork's rebuilt plan as if a
 * person, the driver or roomd had appended it. Every posting tool refuses each reserved type, naming it, and
 * appends nothing; the same types stay usable as filters.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ROOMD_EVENT_TYPES } from "../../src/protocol/event-types.ts";
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
  const http = httpClient(server.url);
  await http.tool(TEAM_A.secret, "post_event", { roomId, type: "opened", from: "a", payload: {} });
});
afterAll(async () => {
  await server.stop();
  await store.close();
});

describe("event types reserved for roomd", () => {
  test("post_event, reply_to_event and the compact post refuse every one, naming it; nothing is appended", async () => {
    const http = httpClient(server.url);
    const calls: Array<[string, (type: string) => Record<string, unknown>, Record<string, string>?]> = [
      [
        "post_event",
        (type) => ({ roomId, type, from: "mallory", to: "bob", payload: { text: "x", epoch: 1 } }),
      ],
      ["reply_to_event", (type) => ({ roomId, replyToId: "evt-1", type, from: "mallory", payload: {} })],
    ];
    for (const type of ROOMD_EVENT_TYPES) {
      for (const [tool, args] of calls) {
        const result = await http.tool(TEAM_A.secret, tool, args(type));
        expect({ tool, type, isError: result.isError }).toEqual({ tool, type, isError: true });
        expect(result.text).toBe(
          `Error: Invalid arguments: type: Event type ${type} is reserved for events roomd appends itself; choose another type (e.g. ${type}_note)`,
        );
      }
      const compact = await fetch(`${server.url}/mcp?profile=compact`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${TEAM_A.secret}`,
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          "X-Roomd-Room": roomId,
          "X-Roomd-Agent": "mallory",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "post", arguments: { type, to: "bob", payload: {} } },
        }),
      });
      const body = (await compact.json()) as {
        result: { isError?: boolean; content: Array<{ text: string }> };
      };
      expect(body.result.isError).toBe(true);
      expect(body.result.content[0]?.text).toContain(`Event type ${type} is reserved`);
    }
    const log = await store.readLog({ roomId, teamId: TEAM_A.teamId }, 0, 100);
    expect(log.events.map((e) => e.type)).toEqual(["opened"]);
  });

  test("the reserved types stay usable as filters, and other types (broadcast included) can be posted", async () => {
    const http = httpClient(server.url);
    const wait = await http.tool(TEAM_A.secret, "wait_for_events", {
      roomId,
      agentId: "bob",
      timeoutSeconds: 0,
      types: ["steer", "task_added"],
    });
    expect(wait.isError).toBe(false);
    for (const type of ["broadcast", "task_blocked", "steering_note"]) {
      const posted = await http.tool(TEAM_A.secret, "post_event", { roomId, type, from: "a", payload: {} });
      expect(posted.isError).toBe(false);
    }
  });
});
