/**
 * The canonical producer/consumer handoff — a contract written, a change requested, the contract updated, each
 * side consuming the other's events — between two agents on two MCP clients, on each store.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RoomStore } from "../../src/store/types.ts";
import { connect, type RoomClient } from "../support/mcp-client.ts";
import { type RunningServer, startInProcess, TEAM_A } from "../support/server.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";

type Json = Record<string, any>;

const endpoint = {
  method: "POST",
  path: "/login",
  response: { token: "string" },
  auth_required: false,
  description: "Log in",
};

for (const make of E2E_STORES) {
  describe(`canonical handoff (${make().name})`, () => {
    let store: RoomStore;
    let server: RunningServer;
    let backend: RoomClient;
    let frontend: RoomClient;
    beforeAll(async () => {
      store = await make().open();
      server = startInProcess(store);
      backend = await connect(server.url, TEAM_A.secret, "json");
      frontend = await connect(server.url, TEAM_A.secret, "sse");
    });
    afterAll(async () => {
      await backend.close();
      await frontend.close();
      await server.stop();
      await store.close();
    });

    test("contract written, change requested, contract updated, events consumed", async () => {
      const roomId = newRoomId();
      const B = (name: string, args: Json) => backend.call<Json>(name, { roomId, ...args });
      const F = (name: string, args: Json) => frontend.call<Json>(name, { roomId, ...args });
      const api = await B("add_task", { title: "auth API", agentId: "backend" });
      const ui = await B("add_task", { title: "login UI", depends_on: [api.id], agentId: "backend" });
      // Backend cursor starts after the plan set-up.
      await B("get_unread_events", { agentId: "backend" });

      await B("heartbeat", { agentId: "backend", statusText: "designing auth API" });
      expect((await B("acquire_lock", { resource: "plan", agentId: "backend" })).acquired).toBe(true);
      await B("update_task", {
        taskId: api.id,
        owner: "backend",
        status: "in_progress",
        agentId: "backend",
        expectedVersion: 1,
      });
      expect(await B("release_lock", { resource: "plan", agentId: "backend" })).toEqual({ released: true });
      const contract = await B("write_context", {
        type: "api_contract",
        summary: "auth API v1",
        consuming_agents: ["frontend"],
        author: "backend",
        payload: { service: "auth", version: "1", endpoints: [endpoint] },
      });
      await B("update_task", { taskId: api.id, status: "done", agentId: "backend" });

      const summary = await F("get_my_summary", { agentId: "frontend" });
      expect(summary.newContextCount).toBe(1);
      expect(summary.presence.map((p: Json) => [p.agentId, p.status])).toEqual([
        ["backend", "online"],
        ["frontend", "online"],
      ]);
      const available = summary.unreadEvents.events.find((e: Json) => e.type === "context_available");
      expect(available).toMatchObject({
        to: "frontend",
        from: "backend",
        payload: { contextId: contract.id, contextType: "api_contract" },
      });
      const contracts = await F("list_context", { type: "api_contract" });
      expect(contracts).toHaveLength(1);
      expect(contracts[0].payload.endpoints[0].path).toBe("/login");
      const unblocked = await F("get_unblocked_tasks", { agentId: "frontend" });
      expect(unblocked.map((t: Json) => t.id)).toEqual([ui.id]);
      await F("update_task", {
        taskId: ui.id,
        owner: "frontend",
        status: "in_progress",
        agentId: "frontend",
        expectedVersion: 1,
      });
      const request = await F("write_context", {
        type: "change_request",
        summary: "need refresh tokens",
        consuming_agents: ["backend"],
        author: "frontend",
        payload: {
          requested_by: "frontend",
          target_agent: "backend",
          description: "add POST /refresh",
          urgency: "high",
          blocking_task_id: ui.id,
        },
      });

      const inbox = await B("get_unread_events", { agentId: "backend" });
      const cr = inbox.events.find((e: Json) => e.type === "context_available");
      expect(cr).toMatchObject({
        to: "backend",
        from: "frontend",
        payload: { contextId: request.id, contextType: "change_request" },
      });
      const v11 = await B("update_context", {
        id: contract.id,
        author: "backend",
        summary: "auth API v1.1: refresh",
        expectedVersion: "1.0",
        payload: {
          service: "auth",
          version: "1.1",
          endpoints: [endpoint, { ...endpoint, path: "/refresh" }],
        },
      });
      expect(v11.version).toBe("1.1");
      const reply = await B("reply_to_event", {
        replyToId: cr.id,
        type: "change_done",
        from: "backend",
        to: "frontend",
        payload: { contextId: contract.id },
      });

      const later = await F("get_unread_events", { agentId: "frontend" });
      // Delivery includes an agent's own events (docs/protocol.md): the frontend's own task_updated comes first.
      expect(later.events.map((e: Json) => [e.type, e.from])).toEqual([
        ["task_updated", "frontend"],
        ["context_updated", "backend"],
        ["change_done", "backend"],
      ]);
      expect(later.events[1].payload).toMatchObject({ previousVersion: "1.0", version: "1.1" });
      expect(later.events[2]).toMatchObject({ id: reply.id, reply_to_id: cr.id });
      expect(
        (await F("read_context", { id: contract.id })).payload.endpoints.map((e: Json) => e.path),
      ).toEqual(["/login", "/refresh"]);
      // Nothing is delivered twice.
      expect((await F("get_my_summary", { agentId: "frontend" })).unreadEvents.count).toBe(0);
      expect((await B("get_unread_events", { agentId: "backend" })).count).toBe(0);
    });
  });
}
