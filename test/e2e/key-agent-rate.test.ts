/**
 * A key's own agent budget (`agentRateLimitPerMinute` on POST /admin/keys) over real HTTP on every e2e store: the
 * gate charges that key's agent windows with it — with AGENT_RATE_LIMIT_PER_MINUTE off, and in place of it when it
 * is on — exactly under 50 parallel calls; the refusal names the agent; the key lists it, rotation carries it, and
 * bad values are refused with nothing stored.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { OPERATOR, type RunningServer, startInProcess } from "../support/server.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";

const times = (n: number) => Array.from({ length: n }, (_, i) => i);

for (const make of E2E_STORES) {
  describe(`a key's own agent budget (${make().name})`, () => {
    const e2e = make();
    let store: RoomStore;
    /** AGENT_RATE_LIMIT_PER_MINUTE off. */
    let off: RunningServer;
    /** AGENT_RATE_LIMIT_PER_MINUTE=20. */
    let on: RunningServer;

    beforeAll(async () => {
      store = await e2e.open();
      off = startInProcess(store, undefined, { RATE_LIMIT_PER_MINUTE: "100" });
      on = startInProcess(store, undefined, {
        RATE_LIMIT_PER_MINUTE: "100",
        AGENT_RATE_LIMIT_PER_MINUTE: "20",
      });
    });
    afterAll(async () => {
      await off?.stop();
      await on?.stop();
      await store?.close();
    });

    /** A fresh team (its own windows): its first key's secret. */
    async function team(server: RunningServer): Promise<string> {
      const teamId = `ka-${crypto.randomUUID().slice(0, 6)}`;
      const first = await httpClient(server.url).post("/admin/keys/provision", OPERATOR.secret, { teamId });
      expect(first.status).toBe(201);
      return first.body.secret as string;
    }

    /** 50 parallel post_event calls with `secret`, naming `from` (when given): the answers. */
    async function burst(server: RunningServer, secret: string, roomId: string, from?: string) {
      const http = httpClient(server.url);
      return Promise.all(
        times(50).map((i) =>
          http.tool(secret, "post_event", { roomId, type: "n", payload: { i }, ...(from ? { from } : {}) }),
        ),
      );
    }
    const admitted = (answers: { status: number; isError: boolean }[]) =>
      answers.filter((a) => a.status === 200 && !a.isError).length;

    test("setting off: a bound key with agentRateLimitPerMinute 7 gets exactly 7 of 50 parallel calls", async () => {
      const teamSecret = await team(off);
      const http = httpClient(off.url);
      const made = await http.post("/admin/keys", teamSecret, {
        boundAgentId: "looper",
        agentRateLimitPerMinute: 7,
      });
      expect(made.status).toBe(201);
      expect(made.body).toMatchObject({ boundAgentId: "looper", agentRateLimitPerMinute: 7 });
      const roomId = newRoomId();
      const answers = await burst(off, made.body.secret, roomId);
      expect(admitted(answers)).toBe(7);
      for (const a of answers.filter((a) => a.status !== 200 || a.isError))
        expect(JSON.stringify(a.body)).toContain("agent looper's own budget is spent");
      // The team's other keys have no agent window with the setting off: the team's budget holds 7 of 100.
      const rest = await burst(off, teamSecret, roomId, "helper");
      expect(admitted(rest)).toBe(50);
      const events = await http.tool(teamSecret, "read_events", { roomId, limit: 100 });
      expect(JSON.parse(events.text)).toHaveLength(57);
    });

    test("setting on (20): an unbound key's own 30 replaces it for each agent its calls name", async () => {
      const teamSecret = await team(on);
      const http = httpClient(on.url);
      const made = await http.post("/admin/keys", teamSecret, { agentRateLimitPerMinute: 30 });
      expect(made.status).toBe(201);
      const roomId = newRoomId();
      const answers = await burst(on, made.body.secret, roomId, "wide");
      expect(admitted(answers)).toBe(30);
      for (const a of answers.filter((a) => a.status !== 200 || a.isError))
        expect(JSON.stringify(a.body)).toContain("agent wide's own budget is spent");
      // Another agent named by the same key has a window of its own, with the key's limit.
      const second = await http.tool(made.body.secret, "post_event", {
        roomId,
        type: "n",
        from: "b",
        payload: {},
      });
      expect(second.isError).toBe(false);
      expect(second.headers.get("ratelimit-limit")).toBe("30");
      // The team's key without a budget of its own keeps the setting's 20.
      const plain = await burst(on, teamSecret, roomId, "narrow");
      expect(admitted(plain)).toBe(20);
    });

    test("listed, carried by rotation, and bad values refused with nothing stored", async () => {
      const teamSecret = await team(off);
      const http = httpClient(off.url);
      const made = await http.post("/admin/keys", teamSecret, {
        note: "budget",
        agentRateLimitPerMinute: 12,
      });
      expect(made.status).toBe(201);
      const rotated = await http.post(`/admin/keys/${made.body.keyId}/rotate`, teamSecret, {
        graceSeconds: 0,
      });
      expect(rotated.status).toBe(201);
      const listed = await http.get("/admin/keys", teamSecret);
      const successor = (listed.body.keys as { keyId: string; agentRateLimitPerMinute?: number }[]).find(
        (k) => k.keyId === rotated.body.keyId,
      );
      expect(successor?.agentRateLimitPerMinute).toBe(12);
      const before = (listed.body.keys as unknown[]).length;
      for (const bad of [0, -1, 1.5, 1_000_001, "7", null]) {
        const refused = await http.post("/admin/keys", teamSecret, { agentRateLimitPerMinute: bad });
        expect(refused.status).toBe(400);
        expect(JSON.stringify(refused.body)).toContain("agentRateLimitPerMinute");
      }
      expect(((await http.get("/admin/keys", teamSecret)).body.keys as unknown[]).length).toBe(before);
    });
  });
}
