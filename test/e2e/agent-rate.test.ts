/**
 * AGENT_RATE_LIMIT_PER_MINUTE end to end, through the official MCP SDK client on every e2e store: one agent's
 * calls are capped inside its team's budget, exactly under 50 parallel calls; the refusal names whose budget is
 * spent and carries the usual rate-limit headers; the team's other agents keep working; a key bound to an agent is
 * charged to that agent whatever its calls name.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient, postTool } from "../support/http.ts";
import { connect, errorText } from "../support/mcp-client.ts";
import { OPERATOR, type RunningServer, startInProcess } from "../support/server.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";

for (const make of E2E_STORES) {
  describe(`an agent's own rate window (${make().name})`, () => {
    const e2e = make();
    let server: RunningServer;
    let clock = Date.now();
    const env = { RATE_LIMIT_PER_MINUTE: "100", AGENT_RATE_LIMIT_PER_MINUTE: "20" };

    let store: RoomStore;

    beforeAll(async () => {
      store = await e2e.open({ now: () => clock });
      server = startInProcess(store, undefined, env, () => clock);
    });
    afterAll(async () => {
      await server?.stop();
      await store?.close();
    });

    /** A fresh team (its own windows), and a key of it bound to `agent`. */
    async function team(agent: string) {
      const http = httpClient(server.url);
      const teamId = `ar-${crypto.randomUUID().slice(0, 6)}`;
      const first = await http.post("/admin/keys/provision", OPERATOR.secret, { teamId });
      expect(first.status).toBe(201);
      const bound = await http.post("/admin/keys", first.body.secret, { boundAgentId: agent });
      expect(bound.status).toBe(201);
      return { teamSecret: first.body.secret as string, boundSecret: bound.body.secret as string };
    }

    test("50 parallel calls of one bound agent: exactly 20 answered; the other 30 say the agent's budget is spent", async () => {
      const { teamSecret, boundSecret } = await team("looper");
      const roomId = newRoomId();
      const looper = await connect(server.url, boundSecret);
      const other = await connect(server.url, teamSecret);
      try {
        // The bound key's calls name other agents: they are charged to looper all the same.
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            looper.raw("post_event", {
              roomId,
              type: "n",
              payload: { i },
              ...(i % 2 ? {} : { from: "looper" }),
            }),
          ),
        );
        const ok = results.filter((r) => !r.isError);
        const refused = results.filter((r) => r.isError).map(errorText);
        expect(ok).toHaveLength(20);
        expect(refused).toHaveLength(30);
        for (const text of refused)
          expect(text).toMatch(
            /^Error: Rate limit exceeded: agent looper's own budget is spent \(the team's is not\); retry in \d+ s$/,
          );
        // Another agent of the team still works: the team's budget holds 20 of 100.
        const helper = await other.raw("post_event", { roomId, type: "n", from: "helper", payload: {} });
        expect(helper.isError).toBeFalsy();
        // The refused calls wrote nothing: 21 events.
        const events = await other.call<unknown[]>("read_events", { roomId, limit: 100 });
        expect(events).toHaveLength(21);
      } finally {
        await looper.close();
        await other.close();
      }
    });

    test("the refusal carries RateLimit headers of the agent's window; a team's spent budget says so", async () => {
      const { teamSecret, boundSecret } = await team("solo");
      const roomId = newRoomId();
      for (let i = 0; i < 20; i++) {
        const answer = await postTool(server.url, boundSecret, "post_event", {
          roomId,
          type: "n",
          payload: {},
        });
        expect(answer.status).toBe(200);
      }
      const refused = await postTool(server.url, boundSecret, "post_event", {
        roomId,
        type: "n",
        payload: {},
      });
      expect(refused.headers.get("ratelimit-limit")).toBe("20");
      expect(refused.headers.get("ratelimit-remaining")).toBe("0");
      expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(JSON.stringify(await refused.json())).toContain("agent solo's own budget is spent");
      // Four other agents spend the rest of the team's 100 (20 each, their own limit).
      for (const agent of ["b1", "b2", "b3", "b4"])
        for (let i = 0; i < 20; i++)
          await postTool(server.url, teamSecret, "post_event", {
            roomId,
            type: "n",
            from: agent,
            payload: {},
          });
      const teamSpent = await postTool(server.url, teamSecret, "post_event", {
        roomId,
        type: "n",
        from: "b5",
        payload: {},
      });
      expect(teamSpent.headers.get("ratelimit-limit")).toBe("100");
      expect(JSON.stringify(await teamSpent.json())).toContain("the team's budget is spent");
      // A window later, both have room again.
      clock += 61_000;
      const again = await postTool(server.url, boundSecret, "post_event", { roomId, type: "n", payload: {} });
      expect(JSON.stringify(await again.json())).not.toContain("Rate limit exceeded");
    });
  });
}
