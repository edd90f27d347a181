/**
 * Suspending an agent end to end, through the official MCP SDK client and the admin routes on every e2e store: what
 * the agent held goes back at once, its calls are refused with who, when and why (AGENT_SUSPENDED), other agents
 * work on, the log tells the room, and resuming restores it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { connect, errorText, type RoomClient } from "../support/mcp-client.ts";
import { type RunningServer, startInProcess, TEAM_A, TEAM_B } from "../support/server.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";

for (const make of E2E_STORES) {
  describe(`suspending an agent (${make().name})`, () => {
    const e2e = make();
    let store: RoomStore;
    let server: RunningServer;
    let worker: RoomClient;
    let lead: RoomClient;
    let workerKeyId: string;

    beforeAll(async () => {
      store = await e2e.open();
      server = startInProcess(store);
      const http = httpClient(server.url);
      const key = await http.post("/admin/keys", TEAM_A.secret, { boundAgentId: "worker" });
      workerKeyId = key.body.keyId;
      worker = await connect(server.url, key.body.secret);
      lead = await connect(server.url, TEAM_A.secret);
    });
    afterAll(async () => {
      await worker?.close();
      await lead?.close();
      await httpClient(server.url).del(`/admin/keys/${workerKeyId}`, TEAM_A.secret);
      await server?.stop();
      await store?.close();
    });

    test("suspend releases the agent's task, claims and lock; its calls are refused; resume restores it", async () => {
      const http = httpClient(server.url);
      const roomId = newRoomId();
      const task = await lead.call<{ id: string }>("add_task", { roomId, agentId: "lead", title: "build" });
      await worker.call("claim_task", { roomId, taskId: task.id });
      await worker.call("claim_files", { roomId, paths: ["src/app.ts"] });
      await worker.call("acquire_lock", { roomId, resource: "deploy", ttlSeconds: 300 });

      const suspended = await http.post(`/admin/rooms/${roomId}/agents/worker/suspend`, TEAM_A.secret, {
        reason: "it keeps rewriting the lockfile",
      });
      expect(suspended.status).toBe(201);
      expect(suspended.body).toMatchObject({
        roomId,
        already: false,
        suspension: { agentId: "worker", by: "team:team-a", reason: "it keeps rewriting the lockfile" },
        released: { tasks: [task.id], paths: ["src/app.ts"], locks: ["deploy"] },
      });

      // Every call of the agent in the room is refused, naming who, when and why.
      for (const [tool, args] of [
        ["claim_task", { roomId, taskId: task.id }],
        ["post_event", { roomId, type: "note", payload: {} }],
        ["get_my_summary", { roomId }],
        ["read_plan", { roomId }],
        ["leave_room", { roomId }],
      ] as const) {
        const answer = await worker.raw(tool, args);
        expect(answer.isError).toBe(true);
        const text = errorText(answer);
        expect(text).toStartWith(
          `Error: AGENT_SUSPENDED: agent worker is suspended in room ${roomId} by team:team-a since `,
        );
        expect(text).toContain("it keeps rewriting the lockfile");
      }
      // Others take what it held; the log tells the room.
      await lead.call("claim_task", { roomId, taskId: task.id, agentId: "lead" });
      const claimed = await lead.call<{ conflicts: unknown[] }>("claim_files", {
        roomId,
        agentId: "lead",
        paths: ["src/app.ts"],
      });
      expect(claimed.conflicts).toEqual([]);
      const events = await lead.call<{ type: string; from: string; payload: Record<string, unknown> }[]>(
        "read_events",
        { roomId, limit: 50 },
      );
      expect(events.find((e) => e.type === "agent_suspended")).toMatchObject({
        from: "team:team-a",
        payload: { agentId: "worker", reason: "it keeps rewriting the lockfile" },
      });
      // Presence shows it.
      const presence = await lead.call<{ agentId: string; suspended?: unknown }[]>("get_presence", {
        roomId,
      });
      expect(presence.find((p) => p.agentId === "worker")?.suspended).toMatchObject({
        by: "team:team-a",
        reason: "it keeps rewriting the lockfile",
      });
      expect(presence.find((p) => p.agentId === "lead")?.suspended).toBeUndefined();
      const listed = await http.get(`/admin/rooms/${roomId}/agents/suspended`, TEAM_A.secret);
      expect(listed.body.suspended.map((s: { agentId: string }) => s.agentId)).toEqual(["worker"]);

      // Its other rooms are not affected.
      await worker.call("post_event", { roomId: newRoomId(), type: "note", payload: {} });

      const resumed = await http.post(`/admin/rooms/${roomId}/agents/worker/resume`, TEAM_A.secret, {});
      expect(resumed.body).toEqual({ roomId, agentId: "worker", resumed: true });
      await worker.call("post_event", { roomId, type: "note", payload: { back: true } });
      const again = await http.post(`/admin/rooms/${roomId}/agents/worker/resume`, TEAM_A.secret, {});
      expect(again.body.resumed).toBe(false);
    });

    test("bad input and another team's room change nothing", async () => {
      const http = httpClient(server.url);
      const roomId = newRoomId();
      await lead.call("add_task", { roomId, agentId: "lead", title: "t" });
      const path = `/admin/rooms/${roomId}/agents/worker/suspend`;
      expect((await http.post(path, TEAM_A.secret, {})).status).toBe(400);
      expect((await http.post(path, TEAM_A.secret, { reason: "x".repeat(501) })).status).toBe(400);
      expect(
        (await http.post(`/admin/rooms/${roomId}/agents/human:pat/suspend`, TEAM_A.secret, { reason: "r" }))
          .status,
      ).toBe(400);
      expect((await http.post(path, TEAM_B.secret, { reason: "r" })).status).toBe(404);
      expect(
        (await http.post(`/admin/rooms/${newRoomId()}/agents/worker/suspend`, TEAM_A.secret, { reason: "r" }))
          .status,
      ).toBe(404);
      expect(
        (await http.get(`/admin/rooms/${roomId}/agents/suspended`, TEAM_A.secret)).body.suspended,
      ).toEqual([]);
      await worker.call("post_event", { roomId, type: "note", payload: {} });
    });
  });
}
