/**
 * Access control through the tools (docs/security.md#principals, #rooms-and-teams, #rate-limiting): bound identities,
 * invites, expiry, rate limits, failed-bearer limiting, the room page, and a scan of the store for any plaintext
 * secret.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { type RunningServer, startInProcess, TEAM_A, TEAM_B } from "../support/server.ts";
import { scanStoreForSecrets } from "../support/store-scan.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";

for (const make of E2E_STORES) {
  describe(`access through the tools (${make().name})`, () => {
    const e2e = make();
    let clock = Date.now();
    let store: RoomStore;
    let server: RunningServer;
    let http: ReturnType<typeof httpClient>;
    const issued: string[] = [TEAM_A.secret, TEAM_B.secret];
    beforeAll(async () => {
      store = await e2e.open({ now: () => clock });
      server = startInProcess(store, undefined, {}, () => clock);
      http = httpClient(server.url);
    });
    afterAll(async () => {
      await server.stop();
      await store.close();
    });

    // Refusal of every other agent in every tool is checked catalog-wide (test/e2e/catalog.test.ts); this test
    // covers what a bound key may do: omit its identity, name itself, and read with filters.
    test("a key bound to an agent acts as that agent, and filters stay filters", async () => {
      const roomId = newRoomId();
      const key = await http.post("/admin/keys", TEAM_A.secret, { boundAgentId: "alice" });
      issued.push(key.body.secret);
      const k = key.body.secret as string;
      await http.tool(TEAM_A.secret, "acquire_lock", { roomId, resource: "r", agentId: "bob" });
      await http.tool(TEAM_A.secret, "write_context", {
        roomId,
        type: "note",
        summary: "s",
        consuming_agents: [],
        payload: { text: "x" },
        author: "bob",
      });
      // Omitting the identity means the bound agent, even where unbound keys must name one; naming it is fine.
      expect(JSON.parse((await http.tool(k, "heartbeat", { roomId })).text).agentId).toBe("alice");
      expect(
        JSON.parse(
          (
            await http.tool(k, "write_context", {
              roomId,
              type: "note",
              summary: "s",
              consuming_agents: [],
              payload: { text: "x" },
            })
          ).text,
        ).author,
      ).toBe("alice");
      expect(JSON.parse((await http.tool(k, "heartbeat", { roomId, agentId: "alice" })).text).agentId).toBe(
        "alice",
      );
      expect(
        JSON.parse((await http.tool(k, "post_event", { roomId, type: "y", from: "alice" })).text).from,
      ).toBe("alice");
      // Optional identity-like arguments are filters, not identities: a bound key still sees everyone's context.
      const listed = JSON.parse((await http.tool(k, "list_context", { roomId })).text);
      expect(listed.map((e: any) => e.author).sort()).toEqual(["alice", "bob"]);
      // bob's lock is untouched.
      expect(JSON.parse((await http.tool(TEAM_A.secret, "list_locks", { roomId })).text)[0].owner).toBe(
        "bob",
      );
    });

    test("a bound key fills optional acting arguments too: its writes are its agent's, its own tasks its to change", async () => {
      const roomId = newRoomId();
      const key = await http.post("/admin/keys", TEAM_A.secret, { boundAgentId: "carol" });
      issued.push(key.body.secret);
      const k = key.body.secret as string;
      // add_task's agentId is optional (the event's from, "system" without it): a bound key's call is carol's.
      const task = JSON.parse((await http.tool(k, "add_task", { roomId, title: "docs" })).text);
      await http.tool(k, "claim_task", { roomId, taskId: task.id });
      // update_task's agentId is optional too: carol changes her own task without naming herself.
      const done = await http.tool(k, "update_task", { roomId, taskId: task.id, status: "done" });
      expect(done.isError).toBe(false);
      const events = JSON.parse((await http.tool(k, "read_events", { roomId, limit: 10 })).text);
      expect(events.map((e: { type: string; from: string }) => [e.type, e.from]).reverse()).toEqual([
        ["task_added", "carol"],
        ["task_claimed", "carol"],
        ["task_updated", "carol"],
      ]);
    });

    test("a bound key fills only the actor: update_task's owner stays as it was unless given, and null unassigns", async () => {
      const roomId = newRoomId();
      const key = await http.post("/admin/keys", TEAM_A.secret, { boundAgentId: "dave" });
      issued.push(key.body.secret);
      const k = key.body.secret as string;
      const task = JSON.parse((await http.tool(k, "add_task", { roomId, title: "typo" })).text);
      const edited = await http.tool(k, "update_task", { roomId, taskId: task.id, description: "fix it" });
      expect(JSON.parse(edited.text)).toMatchObject({
        owner: null,
        status: "pending",
        description: "fix it",
      });
      // Nothing to change is refused, as for any key (the filled-in actor is not a change).
      const empty = await http.tool(k, "update_task", { roomId, taskId: task.id });
      expect(empty.isError).toBe(true);
      expect(empty.text).toContain("give at least one of");
      await http.tool(k, "update_task", { roomId, taskId: task.id, owner: "dave" });
      const given = await http.tool(k, "update_task", { roomId, taskId: task.id, owner: null });
      expect(JSON.parse(given.text)).toMatchObject({ owner: null });
    });

    test("an invite works in its room only, as its bound agent, and never claims", async () => {
      const roomA = newRoomId();
      const roomB = newRoomId();
      await http.post("/admin/rooms", TEAM_A.secret, { roomId: roomA });
      await http.post("/admin/rooms", TEAM_A.secret, { roomId: roomB });
      const invite = await http.post(`/admin/rooms/${roomA}/invite`, TEAM_A.secret, {});
      const token = invite.body.token as string;
      issued.push(token);
      const agent = `invite:${invite.body.tokenId}`;
      const posted = JSON.parse(
        (await http.tool(token, "post_event", { roomId: roomA, type: "hi", from: agent })).text,
      );
      expect(posted.from).toBe(agent);
      expect((await http.tool(token, "heartbeat", { roomId: roomA, agentId: "someone" })).text).toBe(
        `Error: This key is bound to agent ${agent}`,
      );
      // Every tool on room B is denied like a missing room: checked catalog-wide in test/e2e/catalog.test.ts.
      expect((await http.tool(token, "read_plan", { roomId: roomB })).text).toStartWith(
        "Error: Room not found or access denied (",
      );
      expect((await http.tool(token, "add_task", { roomId: newRoomId(), title: "squat" })).text).toStartWith(
        "Error: Room not found or access denied (",
      );
    });

    test("expired invites and invites to rooms their team no longer owns stop working", async () => {
      const roomId = newRoomId();
      await http.post("/admin/rooms", TEAM_A.secret, { roomId });
      const short = (await http.post(`/admin/rooms/${roomId}/invite`, TEAM_A.secret, { expiresIn: 60 })).body
        .token;
      const long = (await http.post(`/admin/rooms/${roomId}/invite`, TEAM_A.secret, {})).body.token;
      issued.push(short, long);
      expect((await http.tool(short, "read_plan", { roomId })).status).toBe(200);
      clock += 61_000;
      expect((await http.tool(short, "read_plan", { roomId })).status).toBe(401);
      expect((await http.tool(long, "read_plan", { roomId })).status).toBe(200);
      await http.del(`/admin/rooms/${roomId}`, TEAM_A.secret);
      await http.tool(TEAM_B.secret, "add_task", { roomId, title: "B owns it now" });
      expect((await http.tool(long, "read_plan", { roomId })).status).toBe(401);
    });

    test("the room page: JSON or escaped HTML under a strict CSP, no payloads, never claims", async () => {
      const roomId = newRoomId();
      await http.tool(TEAM_A.secret, "add_task", { roomId, title: "<script>alert(1)</script>" });
      await http.tool(TEAM_A.secret, "heartbeat", {
        roomId,
        agentId: "a",
        status: "<img src=x onerror=alert(1)>",
      });
      await http.tool(TEAM_A.secret, "post_event", {
        roomId,
        type: "secret-plan",
        from: "a",
        payload: { password: "hunter2" },
      });
      const json = await http.get(`/room/${roomId}`);
      expect(json.status).toBe(200);
      expect(json.body).toMatchObject({
        roomId,
        taskCount: 1,
        tasksByStatus: { pending: 1, in_progress: 0, done: 0, blocked: 0 },
        contextCount: 0,
      });
      expect(JSON.stringify(json.body)).not.toContain("hunter2");
      const page = await fetch(`${server.url}/room/${roomId}`, {
        headers: { Accept: "text/html,application/xhtml+xml,*/*;q=0.8" },
      });
      const html = await page.text();
      expect(page.headers.get("content-type")).toStartWith("text/html");
      expect(page.headers.get("content-security-policy")).toStartWith("default-src 'none'");
      // The live room view (src/web/): a shell whose own script reads the state; no data in it, no inline script.
      expect(html).not.toContain("<img src=x");
      expect(html).not.toContain("hunter2");
      expect(html).toContain(`data-room="${roomId}"`);
      expect(html).not.toMatch(
        /<script(?! type="module" src="\/assets\/[0-9a-f]{20}\.js"><\/script>)|src="http|href="http/,
      );
      const fresh = newRoomId();
      expect((await http.get(`/room/${fresh}`)).status).toBe(404);
      expect((await http.tool(TEAM_B.secret, "add_task", { roomId: fresh, title: "mine" })).isError).toBe(
        false,
      );
      expect((await http.get("/room/Not_Valid!")).status).toBe(404);
    });

    test("ROOM_SUMMARY=private: a bearer is required and only the owner (or its invite) sees the room", async () => {
      const priv = startInProcess(store, undefined, { ROOM_SUMMARY: "private" }, () => clock);
      try {
        const p = httpClient(priv.url);
        const roomId = newRoomId();
        await p.tool(TEAM_A.secret, "add_task", { roomId, title: "t" });
        expect((await p.get(`/room/${roomId}`)).status).toBe(401);
        expect((await p.get(`/room/${roomId}`, TEAM_B.secret)).status).toBe(404);
        expect((await p.get(`/room/${roomId}`, TEAM_A.secret)).body).toMatchObject({ roomId, taskCount: 1 });
        const token = (await p.post(`/admin/rooms/${roomId}/invite`, TEAM_A.secret, {})).body.token;
        issued.push(token);
        expect((await p.get(`/room/${roomId}`, token)).status).toBe(200);
        const other = newRoomId();
        await p.tool(TEAM_A.secret, "add_task", { roomId: other, title: "t" });
        expect((await p.get(`/room/${other}`, token)).status).toBe(404);
      } finally {
        await priv.stop();
      }
    });

    test("two teams racing for a fresh room over HTTP: one team wins every call, the other is denied every call", async () => {
      const roomId = newRoomId();
      const calls = Array.from({ length: 40 }, (_, i) => {
        const secret = i % 2 === 0 ? TEAM_A.secret : TEAM_B.secret;
        return http
          .tool(secret, "add_task", { roomId, title: `t${i}` })
          .then((r) => ({ team: i % 2, ok: !r.isError, text: r.text }));
      });
      const results = await Promise.all(calls);
      const wins = [0, 1].map((team) => results.filter((r) => r.team === team && r.ok).length);
      expect(wins.sort()).toEqual([0, 20]);
      const loser = results.filter((r) => !r.ok);
      expect(loser.every((r) => r.text.startsWith("Error: Room not found or access denied ("))).toBe(true);
    });

    test("the rate limit allows exactly the configured count under 50 parallel calls", async () => {
      const limited = startInProcess(store, undefined, { RATE_LIMIT_PER_MINUTE: "20" }, () => clock);
      try {
        const lim = httpClient(limited.url);
        const team = await lim.post("/admin/keys/provision", "secret-operator-0123456789", {
          teamId: `rl-${crypto.randomUUID().slice(0, 6)}`,
        });
        issued.push(team.body.secret);
        const roomId = newRoomId();
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            lim.tool(team.body.secret, "post_event", { roomId, type: "n", from: "a", payload: { i } }),
          ),
        );
        const ok = results.filter((r) => !r.isError);
        const refused = results.filter((r) => /^Error: Rate limit exceeded; retry in \d+ s$/.test(r.text));
        expect(ok).toHaveLength(20);
        expect(refused).toHaveLength(30);
        expect(refused[0]?.headers.get("retry-after")).toMatch(/^\d+$/);
        expect(refused[0]?.headers.get("ratelimit-remaining")).toBe("0");
        // Routes answer 429 with the headers; the refused calls wrote nothing.
        const route = await lim.get("/admin/me", team.body.secret);
        expect(route.status).toBe(429);
        expect(route.body).toEqual({ error: "Rate limit exceeded" });
        expect(route.headers.get("ratelimit-limit")).toBe("20");
        clock += 61_000;
        const events = JSON.parse(
          (await lim.tool(team.body.secret, "read_events", { roomId, limit: 100 })).text,
        );
        expect(events).toHaveLength(20);
      } finally {
        await limited.stop();
      }
    });

    test("repeated failed bearers from one client are turned away", async () => {
      const fresh = startInProcess(store); // the failure count is per process: start from zero
      try {
        const guesser = httpClient(fresh.url);
        const statuses: number[] = [];
        for (let i = 0; i < 35; i++)
          statuses.push((await guesser.get("/admin/me", `rk_team-a_${"x".repeat(43)}`)).status);
        expect(statuses.slice(0, 30).every((s) => s === 401)).toBe(true);
        expect(statuses.slice(30).every((s) => s === 429)).toBe(true);
        // Env keys are checked in memory, so a guesser sharing the address (a load balancer) does not lock them out.
        expect((await guesser.get("/admin/me", TEAM_A.secret)).status).toBe(200);
        // The right key still gets through once the window has passed; a guesser cannot lock out the team by address
        // forever, and other addresses are unaffected (not testable from one loopback address).
      } finally {
        await fresh.stop();
      }
    });

    test("the store holds no plaintext secret after all of the above", async () => {
      expect(issued.length).toBeGreaterThan(5);
      expect(await scanStoreForSecrets(e2e, issued)).toEqual([]);
    });
  });
}
