/**
 * docs/protocol.md#4-results-and-errors through HTTP: a store that answers wrongly (here a broken task record) is a
 * bug, not an outage — the tool answers "Internal error (request <id>)", the log line carries that request id, the
 * tool, the driver and the message, and /health stays 200. Only an unreachable store is "Store unavailable"
 * (test/e2e/outage.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Logger } from "../../src/log.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { type RunningServer, startInProcess, TEAM_A } from "../support/server.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";

for (const make of E2E_STORES) {
  describe(`a broken record on ${make().name}`, () => {
    const backing = make();
    const lines: Record<string, unknown>[] = [];
    const logger: Logger = { log: (level, msg, fields) => lines.push({ level, msg, ...fields }) };
    let store: RoomStore;
    let server: RunningServer;
    beforeAll(async () => {
      store = await backing.open();
      server = startInProcess(store, logger);
    });
    afterAll(async () => {
      await server.stop();
      await store.close();
    });

    test("Internal error with a request id, logged with tool and driver; /health stays 200", async () => {
      const http = httpClient(server.url);
      const roomId = newRoomId();
      const task = JSON.parse((await http.tool(TEAM_A.secret, "add_task", { roomId, title: "t" })).text);
      await backing.corruptTask(roomId, task.id);
      const answer = await http.tool(TEAM_A.secret, "read_plan", { roomId });
      const id = answer.headers.get("x-request-id");
      expect(answer.text).toBe(`Error: Internal error (request ${id}); retry, and report it if it persists`);
      expect(answer.text).not.toContain("Store unavailable");
      const line = lines.find((l) => l.requestId === id);
      expect(line).toMatchObject({
        level: "error",
        tool: "read_plan",
        driver: store.driver,
        error: "StoreFault",
      });
      expect(String(line?.message)).toStartWith(`${store.driver} `);
      expect((await http.get("/health")).status).toBe(200);
      // Other rooms are unaffected.
      expect((await http.tool(TEAM_A.secret, "read_plan", { roomId: newRoomId() })).isError).toBe(false);
    });
  });
}
