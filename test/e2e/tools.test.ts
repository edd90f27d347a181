/** The tools through the official MCP SDK client over real HTTP, on each store, in both response modes. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CATALOG } from "../../src/mcp/catalog.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { connect, type RoomClient } from "../support/mcp-client.ts";
import { type RunningServer, startInProcess, TEAM_A } from "../support/server.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";

type Json = Record<string, any>;

const contract = {
  service: "auth",
  version: "1",
  endpoints: [
    {
      method: "POST",
      path: "/login",
      response: { token: "string" },
      auth_required: false,
      description: "Log in",
    },
  ],
};

for (const make of E2E_STORES) {
  for (const mode of ["json", "sse"] as const) {
    describe(`tools over MCP (${make().name}, ${mode})`, () => {
      let store: RoomStore;
      let server: RunningServer;
      let c: RoomClient;
      beforeAll(async () => {
        store = await make().open();
        server = startInProcess(store);
        c = await connect(server.url, TEAM_A.secret, mode);
      });
      afterAll(async () => {
        await c.close();
        await server.stop();
        await store.close();
      });

      test("tools/list names exactly the catalog's tools, with schemas", async () => {
        const { tools } = await c.client.listTools();
        expect(tools.map((t) => t.name)).toEqual(CATALOG.listing("full").map((t) => t.name));
        for (const tool of tools) {
          expect(tool.inputSchema.type).toBe("object");
          expect(tool.description?.length ?? 0).toBeGreaterThan(20);
        }
      });

      test("plan tools", async () => {
        const roomId = newRoomId();
        const empty = await c.call<Json>("read_plan", { roomId });
        expect(empty).toMatchObject({ project: roomId, tasks: [] });
        const api = await c.call<Json>("add_task", {
          roomId,
          title: "Auth API",
          priority: 2,
          agentId: "backend",
        });
        expect(api).toMatchObject({
          status: "pending",
          owner: null,
          version: 1,
          depends_on: [],
          description: "",
        });
        const ui = await c.call<Json>("add_task", {
          roomId,
          title: "Login UI",
          depends_on: [api.id],
          priority: 1,
        });
        const docs = await c.call<Json>("add_task", { roomId, title: "Docs" });
        // A dependency on a task that does not exist is refused (docs/protocol.md#the-plans-rules).
        const ghost = await c.raw("add_task", { roomId, title: "Ghost", depends_on: ["task-999"] });
        expect((ghost.content as Json[])[0]?.text).toStartWith("Error: Unknown task in depends_on: task-999");
        // UI waits for the API; priority 2 before none.
        let ready = await c.call<Json[]>("get_unblocked_tasks", { roomId });
        expect(ready.map((t) => t.id)).toEqual([api.id, docs.id]);
        const taken = await c.call<Json>("update_task", {
          roomId,
          taskId: api.id,
          owner: "backend",
          status: "in_progress",
          expectedVersion: 1,
          agentId: "backend",
        });
        expect(taken).toMatchObject({ owner: "backend", status: "in_progress", version: 2 });
        expect(
          (await c.call<Json[]>("get_unblocked_tasks", { roomId, agentId: "frontend" })).map((t) => t.id),
        ).toEqual([docs.id]);
        const stale = await c.raw("update_task", {
          roomId,
          taskId: api.id,
          status: "done",
          expectedVersion: 1,
        });
        expect(stale.isError).toBe(true);
        expect((stale.content as Json[])[0]?.text).toBe(
          `Error: Version conflict: task ${api.id} is at version 2 (in_progress, owned by backend); read it again before changing it`,
        );
        await c.call("update_task", {
          roomId,
          taskId: api.id,
          status: "done",
          note: "shipped",
          agentId: "backend",
        });
        ready = await c.call<Json[]>("get_unblocked_tasks", { roomId });
        expect(ready.map((t) => t.id)).toEqual([ui.id, docs.id]);
        expect(await c.call<Json>("get_task", { roomId, taskId: api.id })).toMatchObject({
          status: "done",
          version: 3,
          description: "",
        });
        expect(
          (await c.call<Json[]>("get_my_tasks", { roomId, agentId: "backend" })).map((t) => t.id),
        ).toEqual([api.id]);
        const missing = await c.raw("get_task", { roomId, taskId: "task-404" });
        expect((missing.content as Json[])[0]?.text).toBe("Error: Task not found: task-404");
        const plan = await c.call<Json>("read_plan", { roomId });
        expect(plan.tasks.map((t: Json) => t.title)).toEqual(["Auth API", "Login UI", "Docs"]);
        const summary = await c.call<Json>("get_my_summary", { roomId, agentId: "backend" });
        expect(summary.myTasks.map((t: Json) => t.id)).toEqual([api.id]);
        expect(summary.unreadEvents.events.map((e: Json) => e.type)).toEqual([
          "task_added",
          "task_added",
          "task_added",
          "task_updated",
          "task_updated",
        ]);
        expect(summary.presence).toEqual([expect.objectContaining({ agentId: "backend", status: "online" })]);
        const updated = summary.unreadEvents.events[4];
        expect(updated.payload).toMatchObject({
          previousStatus: "in_progress",
          changes: { status: "done", note: "shipped" },
        });
      });

      test("context tools", async () => {
        const roomId = newRoomId();
        const entry = await c.call<Json>("write_context", {
          roomId,
          type: "api_contract",
          summary: "Auth API v1",
          consuming_agents: ["frontend"],
          payload: contract,
          author: "backend",
        });
        expect(entry).toMatchObject({
          type: "api_contract",
          version: "1.0",
          author: "backend",
          consuming_agents: ["frontend"],
        });
        expect(await c.call<Json>("read_context", { roomId, id: entry.id })).toEqual(entry);
        await c.call("write_context", {
          roomId,
          type: "note",
          summary: "n",
          consuming_agents: [],
          payload: { text: "hi" },
          author: "pm",
        });
        expect(
          (await c.call<Json[]>("list_context", { roomId, type: "api_contract" })).map((e) => e.id),
        ).toEqual([entry.id]);
        expect((await c.call<Json[]>("list_context", { roomId, author: "pm" })).length).toBe(1);
        const v11 = await c.call<Json>("update_context", {
          roomId,
          id: entry.id,
          author: "backend",
          summary: "Auth API v1.1",
          payload: {
            ...contract,
            endpoints: [...contract.endpoints, { ...contract.endpoints[0], path: "/logout" }],
          },
          expectedVersion: "1.0",
        });
        expect(v11).toMatchObject({ id: entry.id, type: "api_contract", version: "1.1" });
        const withHistory = await c.call<Json>("read_context", {
          roomId,
          id: entry.id,
          includeHistory: true,
        });
        expect(withHistory.history).toHaveLength(1);
        expect(withHistory.history[0]).toMatchObject({ version: "1.0", summary: "Auth API v1" });
        const bad = await c.raw("update_context", {
          roomId,
          id: entry.id,
          author: "backend",
          payload: { service: "auth" },
        });
        expect((bad.content as Json[])[0]?.text).toStartWith(
          'Error: Invalid payload for context type "api_contract": ',
        );
        const events = await c.call<Json>("get_unread_events", { roomId, agentId: "frontend" });
        expect(events.events.map((e: Json) => [e.type, e.to])).toEqual([
          ["context_available", "frontend"],
          ["context_updated", "frontend"],
        ]);
        expect(events.events[1].payload).toEqual({
          contextId: entry.id,
          contextType: "api_contract",
          summary: "Auth API v1.1",
          previousVersion: "1.0",
          version: "1.1",
          consuming_agents: ["frontend"],
        });
      });

      test("event tools", async () => {
        const roomId = newRoomId();
        const first = await c.call<Json>("post_event", { roomId, type: "hello", from: "a" });
        expect(first).toMatchObject({ seq: 1, to: "all", payload: {}, read_by: [] });
        await c.call("post_event", { roomId, type: "psst", from: "a", to: "b", payload: { x: 1 } });
        const reply = await c.call<Json>("reply_to_event", {
          roomId,
          replyToId: first.id,
          type: "hi",
          from: "b",
        });
        expect(reply).toMatchObject({ seq: 3, reply_to_id: first.id });
        const forC = await c.call<Json>("get_unread_events", { roomId, agentId: "c" });
        expect(forC.events.map((e: Json) => e.seq)).toEqual([1, 3]);
        expect(forC).toMatchObject({ cursor: 3, count: 2, remaining: 0 });
        expect((await c.call<Json>("get_unread_events", { roomId, agentId: "c" })).count).toBe(0);
        const forB = await c.call<Json>("get_unread_events", { roomId, agentId: "b", limit: 1 });
        expect(forB).toMatchObject({ count: 1, cursor: 1, remaining: 2 });
        expect(await c.call<Json>("mark_event_read", { roomId, eventId: first.id, agentId: "b" })).toEqual({
          eventId: first.id,
          agentId: "b",
          ok: true,
        });
        expect(await c.call<Json>("get_event_reads", { roomId, eventId: first.id })).toEqual({
          eventId: first.id,
          readBy: ["b"],
        });
        const newest = await c.call<Json[]>("read_events", { roomId, limit: 2 });
        expect(newest.map((e) => e.seq)).toEqual([3, 2]);
        expect((await c.call<Json[]>("read_events", { roomId, before: 3 })).map((e) => e.seq)).toEqual([
          2, 1,
        ]);
        expect((await c.call<Json[]>("read_events", { roomId, since: "1" })).map((e) => e.seq)).toEqual([
          3, 2,
        ]);
        expect((await c.call<Json[]>("read_events", { roomId, since: "2000-01-01T00:00:00Z" })).length).toBe(
          3,
        );
        const unknown = await c.raw("mark_event_read", { roomId, eventId: "evt-99", agentId: "b" });
        expect((unknown.content as Json[])[0]?.text).toBe("Error: Event not found: evt-99");
      });

      test("presence, locks and shared variables", async () => {
        const roomId = newRoomId();
        // A heartbeat never creates a room (docs/protocol.md#ownership): nothing recorded, and a hint about the room
        // id.
        const early = await c.call<Json>("heartbeat", { roomId, agentId: "a" });
        expect(early).toMatchObject({
          roomExists: false,
          hint: expect.stringContaining(`Room ${roomId} has no state yet`),
        });
        expect(await c.call<Json[]>("get_presence", { roomId })).toEqual([]);
        await c.call("set_shared_var", { roomId, key: "created", value: "yes", agentId: "a" });
        const beat = await c.call<Json>("heartbeat", { roomId, agentId: "a", statusText: "writing tests" });
        expect(beat).toMatchObject({
          agentId: "a",
          presence: { status: "online", statusText: "writing tests" },
        });
        expect(await c.call<Json[]>("get_presence", { roomId })).toEqual([beat.presence]);
        const lock = await c.call<Json>("acquire_lock", {
          roomId,
          resource: "src/a.ts",
          agentId: "a",
          ttlSeconds: 60,
        });
        expect(lock).toMatchObject({ acquired: true, holder: "a", fence: 1 });
        expect(
          await c.call<Json>("acquire_lock", { roomId, resource: "src/a.ts", agentId: "b" }),
        ).toMatchObject({
          acquired: false,
          holder: "a",
          fence: 1,
        });
        expect(await c.call<Json[]>("list_locks", { roomId })).toEqual([
          { resource: "src/a.ts", owner: "a", expiresAt: lock.expiresAt, fence: 1 },
        ]);
        expect(await c.call<Json>("release_lock", { roomId, resource: "src/a.ts", agentId: "b" })).toEqual({
          released: false,
          holder: "a",
          expiresAt: lock.expiresAt,
        });
        expect(await c.call<Json>("release_lock", { roomId, resource: "src/a.ts", agentId: "a" })).toEqual({
          released: true,
        });
        expect(
          (await c.call<Json>("acquire_lock", { roomId, resource: "src/a.ts", agentId: "b" })).fence,
        ).toBe(2);
        expect(
          await c.call<Json>("set_shared_var", { roomId, key: "port", value: "8080", agentId: "a" }),
        ).toEqual({ key: "port", value: "8080" });
        expect(await c.call<Json>("get_shared_var", { roomId, key: "port" })).toEqual({
          key: "port",
          value: "8080",
          found: true,
        });
        expect(await c.call<Json>("get_shared_var", { roomId, key: "nope" })).toEqual({
          key: "nope",
          value: null,
          found: false,
        });
        expect(await c.call<Json>("list_shared_vars", { roomId })).toEqual({
          vars: { created: "yes", port: "8080" },
          count: 2,
        });
        const [event] = await c.call<Json[]>("read_events", { roomId, limit: 1 });
        expect(event).toMatchObject({ type: "shared_var_set", from: "a", payload: { key: "port" } });
      });

      test("the plan lock: holder writes, others fail fast", async () => {
        const roomId = newRoomId();
        const task = await c.call<Json>("add_task", { roomId, title: "t" });
        await c.call("acquire_lock", { roomId, resource: "plan", agentId: "backend" });
        await c.call("update_task", { roomId, taskId: task.id, status: "in_progress", agentId: "backend" });
        const refused = await c.raw("update_task", {
          roomId,
          taskId: task.id,
          status: "done",
          agentId: "frontend",
        });
        expect((refused.content as Json[])[0]?.text).toMatch(
          /^Error: Plan is locked by backend until \S+; retry after it$/,
        );
        await c.call("release_lock", { roomId, resource: "plan", agentId: "backend" });
        expect(
          await c.call<Json>("update_task", { roomId, taskId: task.id, status: "done", agentId: "frontend" }),
        ).toMatchObject({ version: 3 });
      });
    });
  }
}
