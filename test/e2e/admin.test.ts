/** The admin API (docs/http.md#admin) over real HTTP on each store: statuses, limits, secrets shown once. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { OPERATOR, type RunningServer, startInProcess, TEAM_A, TEAM_B } from "../support/server.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";

for (const make of E2E_STORES) {
  describe(`admin API (${make().name})`, () => {
    let store: RoomStore;
    let server: RunningServer;
    let http: ReturnType<typeof httpClient>;
    beforeAll(async () => {
      store = await make().open();
      server = startInProcess(store, undefined, {
        KEYS_PER_TEAM: "3",
        INVITES_PER_ROOM: "2",
        ROOMS_PER_TEAM: "1000",
      });
      http = httpClient(server.url);
    });
    afterAll(async () => {
      await server.stop();
      await store.close();
    });

    /** A newly provisioned team: Redis and Upstash share one server, so fixed teams accumulate keys across files. */
    const freshTeam = async () => {
      const teamId = `t-${crypto.randomUUID().slice(0, 8)}`;
      const made = await http.post("/admin/keys/provision", OPERATOR.secret, { teamId });
      return { teamId, secret: made.body.secret as string };
    };

    test("GET /admin/me names the principal", async () => {
      expect((await http.get("/admin/me", TEAM_A.secret)).body).toEqual({
        teamId: "team-a",
        kind: "static",
        type: "agent",
      });
      // Operator keys are people's (docs/people.md#people-and-agents): the person is "operator" unless OPERATOR_KEYS
      // names one.
      expect((await http.get("/admin/me", OPERATOR.secret)).body).toEqual({
        teamId: "ops",
        kind: "operator",
        type: "human",
        humanId: "operator",
      });
      expect((await http.get("/admin/me")).status).toBe(401);
      expect((await http.get("/admin/me", "rk_team-a_nope")).status).toBe(401);
    });

    test("rooms: create (generated or named, idempotent), list, delete; another team's room is 404", async () => {
      const generated = await http.post("/admin/rooms", TEAM_A.secret, {});
      expect(generated.status).toBe(201);
      expect(generated.body.roomId).toMatch(/^[0-9a-z]{12}$/);
      expect(generated.body.teamId).toBe("team-a");
      const roomId = newRoomId();
      expect((await http.post("/admin/rooms", TEAM_A.secret, { roomId })).status).toBe(201);
      expect((await http.post("/admin/rooms", TEAM_A.secret, { roomId })).status).toBe(201);
      expect(await http.post("/admin/rooms", TEAM_B.secret, { roomId })).toMatchObject({
        status: 404,
        body: { error: "Room not found or access denied" },
      });
      expect((await http.post("/admin/rooms", TEAM_A.secret, { roomId: "Bad Id" })).status).toBe(400);
      expect((await http.post("/admin/rooms", TEAM_A.secret, "{oops")).status).toBe(400);
      const listed = (await http.get("/admin/rooms", TEAM_A.secret)).body.rooms.map((r: any) => r.roomId);
      expect(listed).toContain(roomId);
      expect(
        (await http.get("/admin/rooms", TEAM_B.secret)).body.rooms.map((r: any) => r.roomId),
      ).not.toContain(roomId);
      await http.tool(TEAM_A.secret, "add_task", { roomId, title: "t" });
      expect((await http.del(`/admin/rooms/${roomId}`, TEAM_B.secret)).status).toBe(404);
      expect((await http.tool(TEAM_A.secret, "read_plan", { roomId })).text).toContain('"title":"t"');
      expect((await http.del(`/admin/rooms/${roomId}`, TEAM_A.secret)).body).toEqual({ ok: true, roomId });
      // The id is free again: another team can take it, and nothing of the old room remains.
      expect((await http.tool(TEAM_B.secret, "read_plan", { roomId })).text).toContain('"tasks":[]');
      expect((await http.post("/admin/rooms", TEAM_B.secret, { roomId })).status).toBe(201);
    });

    test("room stats are for operators", async () => {
      const roomId = newRoomId();
      await http.tool(TEAM_A.secret, "add_task", { roomId, title: "t" });
      await http.tool(TEAM_A.secret, "heartbeat", { roomId, agentId: "a" });
      expect((await http.get(`/admin/rooms/${roomId}/stats`, TEAM_A.secret)).status).toBe(403);
      const stats = await http.get(`/admin/rooms/${roomId}/stats`, OPERATOR.secret);
      expect(stats.body).toMatchObject({
        roomId,
        owner: "team-a",
        taskCount: 1,
        doneTasks: 0,
        agentCount: 1,
        eventCount: 1,
      });
      expect((await http.get(`/admin/rooms/${newRoomId()}/stats`, OPERATOR.secret)).status).toBe(404);
    });

    test("keys: secret shown once, listed by hint, limit enforced, revocation immediate", async () => {
      const team = await freshTeam();
      const made = await http.post("/admin/keys", team.secret, { note: "ci" });
      expect(made.status).toBe(201);
      const { keyId, secret } = made.body;
      expect(made.body).toMatchObject({ teamId: team.teamId, note: "ci", message: expect.any(String) });
      expect(secret).toMatch(new RegExp(`^rk_${team.teamId}_`));
      expect((await http.get("/admin/me", secret)).body).toEqual({
        teamId: team.teamId,
        kind: "dynamic",
        type: "agent",
        keyId,
      });
      const list = await http.get("/admin/keys", team.secret);
      const listed = list.body.keys.find((k: any) => k.keyId === keyId);
      expect(listed).toEqual({
        keyId,
        teamId: team.teamId,
        createdAt: made.body.createdAt,
        note: "ci",
        hint: `****${secret.slice(-4)}`,
        // The GET /admin/me above was its first use (test/e2e/key-lifetime.test.ts covers lastUsedAt).
        lastUsedAt: expect.any(String),
      });
      expect(JSON.stringify(list.body)).not.toContain(secret);
      expect(
        (await http.get("/admin/keys", TEAM_B.secret)).body.keys.some((k: any) => k.keyId === keyId),
      ).toBe(false);
      // Another team cannot delete it (404, as if missing); the owner can, and it stops working at once.
      expect((await http.del(`/admin/keys/${keyId}`, TEAM_B.secret)).status).toBe(404);
      expect((await http.del(`/admin/keys/${keyId}`, secret)).body).toEqual({ ok: true, keyId });
      expect((await http.get("/admin/me", secret)).status).toBe(401);
      expect((await http.tool(secret, "read_plan", { roomId: "any-room" })).status).toBe(401);
      // Limit of 3 (KEYS_PER_TEAM) under concurrent creation: a fresh team holds its provisioned key, so 2 more fit.
      const burstTeam = await freshTeam();
      const burst = await Promise.all(
        Array.from({ length: 6 }, () => http.post("/admin/keys", burstTeam.secret, {})),
      );
      expect(burst.filter((r) => r.status === 201)).toHaveLength(2);
      expect(burst.filter((r) => r.status === 403)[0]?.body.error).toMatch(/Key limit reached/);
      expect((await http.post("/admin/keys", team.secret, { boundAgentId: "bad agent" })).status).toBe(400);
    });

    test("operators provision teams and revoke any key", async () => {
      const teamId = `t-${crypto.randomUUID().slice(0, 8)}`;
      expect((await http.post("/admin/keys/provision", TEAM_A.secret, { teamId })).status).toBe(403);
      const made = await http.post("/admin/keys/provision", OPERATOR.secret, { teamId, boundAgentId: "bot" });
      // Bun's toMatchObject replaces matched fields of the received object with the matcher: read values first.
      const { secret, keyId } = made.body;
      expect(made.status).toBe(201);
      expect(made.body).toMatchObject({
        teamId,
        boundAgentId: "bot",
        secret: expect.stringMatching(new RegExp(`^rk_${teamId}_`)),
      });
      expect((await http.post("/admin/keys/provision", OPERATOR.secret, { teamId })).status).toBe(409);
      expect((await http.post("/admin/keys/provision", OPERATOR.secret, { teamId: "team-a" })).status).toBe(
        409,
      );
      expect((await http.post("/admin/keys/provision", OPERATOR.secret, { teamId: "X!" })).status).toBe(400);
      expect((await http.post("/admin/keys/provision", OPERATOR.secret, { teamId: "-ab" })).status).toBe(400);
      expect((await http.get("/admin/me", secret)).body).toMatchObject({
        teamId,
        kind: "dynamic",
        boundAgentId: "bot",
      });
      expect((await http.del(`/admin/keys/${keyId}`, OPERATOR.secret)).status).toBe(200);
      expect((await http.get("/admin/me", secret)).status).toBe(401);
    });

    test("a key bound to an agent cannot escape its binding through the admin API", async () => {
      const team = await freshTeam();
      const bound = (await http.post("/admin/keys", team.secret, { boundAgentId: "alice" })).body
        .secret as string;
      expect((await http.get("/admin/me", bound)).status).toBe(200);
      const roomId = newRoomId();
      await http.post("/admin/rooms", team.secret, { roomId });
      for (const res of [
        await http.post("/admin/keys", bound, {}),
        await http.get("/admin/keys", bound),
        await http.post(`/admin/rooms/${roomId}/invite`, bound, { agentId: "bob" }),
        await http.post("/admin/rooms", bound, { roomId: newRoomId() }),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ error: "Keys bound to an agent can only use GET /admin/me" });
      }
    });

    test("only an operator may revoke an operator-kind key (the first-run key)", async () => {
      const team = await freshTeam();
      const keyId = `k_${team.teamId}_opkey001`;
      await store.createKey(
        {
          keyId,
          teamId: team.teamId,
          kind: "operator",
          createdAt: new Date().toISOString(),
          hint: "****abcd",
          digest: "ab".repeat(32),
        },
        100,
      );
      expect((await http.del(`/admin/keys/${keyId}`, team.secret)).status).toBe(404);
      expect((await http.del(`/admin/keys/${keyId}`, OPERATOR.secret)).status).toBe(200);
    });

    test("invites: owner only, limit per room, listed by hint, revocable", async () => {
      const roomId = newRoomId();
      expect((await http.post(`/admin/rooms/${roomId}/invite`, TEAM_A.secret, {})).status).toBe(404); // unowned
      await http.post("/admin/rooms", TEAM_A.secret, { roomId });
      expect((await http.post(`/admin/rooms/${roomId}/invite`, TEAM_B.secret, {})).status).toBe(404);
      expect(
        (await http.post(`/admin/rooms/${roomId}/invite`, TEAM_A.secret, { expiresIn: 10 })).status,
      ).toBe(400);
      const invite = await http.post(`/admin/rooms/${roomId}/invite`, TEAM_A.secret, { expiresIn: 3600 });
      const { token, tokenId } = invite.body;
      expect(invite.status).toBe(201);
      expect(invite.body).toMatchObject({
        roomId,
        tokenId: expect.stringMatching(/^i_/),
        token: expect.stringMatching(/^ri_/),
      });
      expect(Date.parse(invite.body.expiresAt) - Date.parse(invite.body.createdAt)).toBe(3_600_000);
      await http.post(`/admin/rooms/${roomId}/invite`, TEAM_A.secret, {});
      expect((await http.post(`/admin/rooms/${roomId}/invite`, TEAM_A.secret, {})).status).toBe(403); // INVITES_PER_ROOM=2
      const list = await http.get(`/admin/rooms/${roomId}/invites`, TEAM_A.secret);
      expect(list.body.invites).toHaveLength(2);
      // Two invites made in the same millisecond tie on createdAt, so find ours rather than assume it is first.
      expect(list.body.invites.find((i: { tokenId: string }) => i.tokenId === tokenId)).toEqual({
        tokenId,
        createdAt: invite.body.createdAt,
        expiresAt: invite.body.expiresAt,
        hint: `****${token.slice(-4)}`,
      });
      expect(JSON.stringify(list.body)).not.toContain(token);
      expect((await http.get(`/admin/rooms/${roomId}/invites`, TEAM_B.secret)).status).toBe(404);
      expect((await http.get("/admin/me", token)).body).toEqual({
        error: "Invite tokens cannot access admin endpoints",
      });
      expect((await http.del(`/admin/rooms/${roomId}/invites/${tokenId}`, TEAM_B.secret)).status).toBe(404);
      expect((await http.del(`/admin/rooms/${roomId}/invites/${tokenId}`, TEAM_A.secret)).body).toEqual({
        ok: true,
        tokenId,
      });
      expect((await http.tool(token, "read_plan", { roomId })).status).toBe(401);
    });

    test("every admin route answers another team as if the thing did not exist", async () => {
      const owner = await freshTeam();
      const roomId = newRoomId();
      await http.post("/admin/rooms", owner.secret, { roomId });
      const invite = await http.post(`/admin/rooms/${roomId}/invite`, owner.secret, {});
      const key = await http.post("/admin/keys", owner.secret, {});
      if (key.status !== 201) throw new Error(`could not make a key: ${JSON.stringify(key.body)}`);
      const attempts = [
        await http.post("/admin/rooms", TEAM_B.secret, { roomId }),
        await http.del(`/admin/rooms/${roomId}`, TEAM_B.secret),
        await http.post(`/admin/rooms/${roomId}/invite`, TEAM_B.secret, {}),
        await http.get(`/admin/rooms/${roomId}/invites`, TEAM_B.secret),
        await http.del(`/admin/rooms/${roomId}/invites/${invite.body.tokenId}`, TEAM_B.secret),
        await http.del(`/admin/keys/${key.body.keyId}`, TEAM_B.secret),
      ];
      for (const res of attempts) expect(res.status).toBe(404);
      expect((await http.get(`/admin/rooms/${roomId}/stats`, TEAM_B.secret)).status).toBe(403);
      // Nothing changed for team A.
      expect((await http.get(`/admin/rooms/${roomId}/invites`, owner.secret)).body.invites).toHaveLength(1);
      expect((await http.get("/admin/me", key.body.secret)).status).toBe(200);
      expect((await http.get("/admin/rooms", owner.secret)).body.rooms.map((r: any) => r.roomId)).toContain(
        roomId,
      );
    });
  });
}
