/**
 * The room report (GET /rooms/:roomId/report) on every driver: a room scripted through real HTTP with a clock the
 * test moves — people stepping in, an approval, a contract handed to two consumers (one finishes on the latest
 * version, one on a stale one), a lease running out, a duplicate start — gives exactly the numbers it was scripted
 * for; a window narrows them; bad input is refused; and no report changes the room's records.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RoomReport } from "../../src/protocol/report.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { roomRecords } from "../support/room-records.ts";
import { OPERATOR, type RunningServer, startInProcess, TEAM_B } from "../support/server.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";

const T0 = Date.parse("2026-03-02T09:00:00.000Z");
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const CONTRACT = {
  service: "orders",
  version: "1",
  endpoints: [
    { method: "GET", path: "/orders", response: { items: [] }, auth_required: true, description: "list" },
  ],
};

for (const make of E2E_STORES) {
  describe(`the room report on ${make().name}`, () => {
    const backing = make();
    let clock = T0;
    let store: RoomStore;
    let server: RunningServer;
    let http: ReturnType<typeof httpClient>;
    const keys: Record<string, string> = {};
    const roomId = newRoomId();

    const tool = async (agent: string, name: string, args: Record<string, unknown>) => {
      const answer = await http.tool(keys[agent] as string, name, { roomId, ...args });
      if (answer.isError) throw new Error(`${agent} ${name}: ${answer.text}`);
      return JSON.parse(answer.text);
    };
    const person = async (path: string, body: Record<string, unknown>) => {
      const answer = await http.post(`/rooms/${roomId}${path}`, keys.alice, body);
      if (answer.status >= 300) throw new Error(`${path}: ${JSON.stringify(answer.body)}`);
      return answer.body;
    };
    const report = async (query = "", key = keys.api) => http.get(`/rooms/${roomId}/report${query}`, key);

    beforeAll(async () => {
      store = await backing.open({ now: () => clock });
      server = startInProcess(
        store,
        undefined,
        { OPERATOR_KEYS: `${OPERATOR.teamId}:${OPERATOR.secret}:carol`, KEYS_PER_TEAM: "10000" },
        () => clock,
      );
      http = httpClient(server.url);
      const mint = async (body: Record<string, unknown>) =>
        (await http.post("/admin/keys", OPERATOR.secret, body)).body.secret as string;
      keys.alice = await mint({ kind: "human", humanId: "alice" });
      for (const agent of ["api", "web", "cli", "ghost"]) keys[agent] = await mint({ boundAgentId: agent });

      // The script (seconds after T0). The contract goes to web and cli; both read 1.0.
      const entry = await tool("api", "write_context", {
        type: "api_contract",
        summary: "Orders API",
        payload: CONTRACT,
        consuming_agents: ["web", "cli"],
      });
      const a = await tool("api", "add_task", { title: "web client" });
      const b = await tool("api", "add_task", { title: "cli client" });
      const c = await tool("api", "add_task", { title: "migration" });
      const d = await tool("api", "add_task", { title: "docs" });
      clock = T0 + 1000;
      await tool("web", "get_unread_events", {});
      clock = T0 + 2000;
      await tool("cli", "get_my_summary", {});
      clock = T0 + 3000;
      await tool("web", "claim_task", { taskId: a.id });
      await tool("cli", "claim_task", { taskId: b.id });
      await tool("ghost", "claim_task", { taskId: c.id, leaseSeconds: 30 });
      // People: two messages, a steer and an interrupt (the driver's wheel first).
      clock = T0 + 5000;
      await person("/messages", { to: "web", text: "the orders list needs paging" });
      await person("/messages", { to: "all", text: "standup in 10" });
      const driver = await person("/driver", { action: "take" });
      await person("/steer", { epoch: driver.epoch, to: "cli", text: "use the v1 client" });
      await person("/interrupt", { epoch: driver.epoch, to: "web", reason: "wait for the new field" });
      // The contract changes; web reads it, cli does not.
      clock = T0 + 10_000;
      await tool("api", "update_context", {
        id: entry.id,
        summary: "Orders API with paging",
        payload: { ...CONTRACT, version: "2" },
      });
      const approval = await tool("api", "request_approval", { action: "deploy orders v2" });
      clock = T0 + 15_000;
      await tool("web", "get_unread_events", {});
      clock = T0 + 20_000;
      await tool("web", "update_task", { taskId: a.id, status: "done" });
      clock = T0 + 25_000;
      await tool("cli", "update_task", { taskId: b.id, status: "done" });
      // Two agents start the same unowned task.
      await tool("web", "update_task", { taskId: d.id, status: "in_progress" });
      await tool("cli", "update_task", { taskId: d.id, status: "in_progress" });
      // The person decides 30 s after the request; ghost's lease ran out, web takes its task.
      clock = T0 + 40_000;
      await person(`/approvals/${approval.id}`, { decision: "approve" });
      clock = T0 + 60_000;
      await tool("web", "claim_task", { taskId: c.id });
      // Long enough that a read recording a use of the room would write.
      clock = T0 + 10 * 60_000;
    });
    afterAll(async () => {
      await server.stop();
      await store.close();
    });

    test("the scripted room gives exactly its numbers", async () => {
      const answer = await report();
      expect(answer.status).toBe(200);
      const r = answer.body as RoomReport;
      expect(r.roomId).toBe(roomId);
      expect(r.from).toBe(at(0));
      expect(r.to).toBe(at(600));
      expect(r.humanInterventions).toEqual({ total: 4, messages: 2, steers: 1, interrupts: 1 });
      expect(r.approvals).toEqual({ requested: 1, decided: 1, medianDecisionMs: 30_000 });
      expect(r.handoffs).toEqual([
        {
          contextId: expect.any(String),
          type: "api_contract",
          producer: "api",
          latestVersion: "1.1",
          consumers: [
            { agentId: "cli", observedVersion: "1.0", correct: false, stalenessMs: [2000, null] },
            { agentId: "web", observedVersion: "1.1", correct: true, stalenessMs: [1000, 5000] },
          ],
        },
      ]);
      expect(r.handoffCorrectness).toBe(0.5);
      expect(r.staleness).toEqual({ count: 3, p50Ms: 2000, p99Ms: 5000 });
      expect(r.concurrency).toEqual({ duplicateClaims: 1, refusedStaleWrites: null, claimConflicts: null });
      // Cycles: web 3 s → 20 s, cli 3 s → 25 s.
      expect(r.tasks).toEqual({ done: 2, abandoned: 1, reclaimedAfterLease: 1, medianCycleMs: 19_500 });
    });

    test("a window counts only what happened in it", async () => {
      const r = (await report(`?from=${at(4)}&to=${at(12)}`)).body as RoomReport;
      expect(r.from).toBe(at(4));
      expect(r.to).toBe(at(12));
      expect(r.humanInterventions.total).toBe(4);
      expect(r.approvals).toEqual({ requested: 1, decided: 0, medianDecisionMs: null });
      // Version 1.1 is the window's only version: nobody had it by 12 s, and nobody finished work yet.
      expect(r.handoffs[0]?.latestVersion).toBe("1.1");
      expect(
        r.handoffs[0]?.consumers.map((c) => [c.agentId, c.observedVersion, c.correct, c.stalenessMs]),
      ).toEqual([
        ["cli", "1.0", null, [null]],
        ["web", "1.0", null, [null]],
      ]);
      expect(r.handoffCorrectness).toBeNull();
      expect(r.tasks).toEqual({ done: 0, abandoned: 0, reclaimedAfterLease: 0, medianCycleMs: null });
      const before = (await report(`?to=${at(0.5)}`)).body as RoomReport;
      expect(before.handoffs[0]?.consumers.map((c) => c.stalenessMs)).toEqual([[null], [null]]);
    });

    test("bad windows are refused; other teams and other rooms read as missing", async () => {
      expect((await report("?from=yesterday")).status).toBe(400);
      expect((await report("?from=yesterday")).body.error).toContain("from: must be an ISO 8601 time");
      expect((await report(`?from=${at(20)}&to=${at(10)}`)).status).toBe(400);
      expect((await report("", TEAM_B.secret)).status).toBe(404);
      expect((await http.get(`/rooms/${newRoomId()}/report`, keys.api)).status).toBe(404);
      expect((await http.get(`/rooms/${roomId}/report`)).status).toBe(401);
    });

    test("a report changes nothing in the room", async () => {
      const before = await roomRecords(backing, roomId);
      expect(before).toContain("web client");
      for (const query of ["", `?from=${at(4)}&to=${at(12)}`]) {
        expect((await report(query)).status).toBe(200);
        expect((await report(query, keys.alice)).status).toBe(200);
      }
      clock += 5 * 60_000;
      expect((await report()).status).toBe(200);
      expect(await roomRecords(backing, roomId)).toBe(before);
    });
  });
}
