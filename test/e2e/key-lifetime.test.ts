/**
 * Keys with a lifetime over real HTTP on every store (docs/http.md#admin, docs/security.md#key-lifetime-and-scopes):
 * expiresIn, an expired key refused like an unknown one with nothing written, lastUsedAt moving at most once a minute,
 * and rotation with its grace period, its clear refusals and the key limit.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { OPERATOR, type RunningServer, startInProcess, TEAM_B } from "../support/server.ts";
import { E2E_STORES } from "../support/stores.ts";

const iso = (ms: number) => new Date(ms).toISOString();

for (const make of E2E_STORES) {
  describe(`key lifetime (${make().name})`, () => {
    const e2e = make();
    let clock = Math.floor(Date.now() / 1000) * 1000;
    let store: RoomStore;
    let server: RunningServer;
    let http: ReturnType<typeof httpClient>;
    beforeAll(async () => {
      store = await e2e.open({ now: () => clock });
      server = startInProcess(store, undefined, { KEYS_PER_TEAM: "5" }, () => clock);
      http = httpClient(server.url);
    });
    afterAll(async () => {
      await server.stop();
      await store.close();
    });

    /** A newly provisioned team and its first key (a person's, so it may rotate people's keys too). */
    const freshTeam = async () => {
      const teamId = `t-${crypto.randomUUID().slice(0, 8)}`;
      const made = await http.post("/admin/keys/provision", OPERATOR.secret, {
        teamId,
        kind: "human",
        humanId: "ada",
      });
      expect(made.status).toBe(201);
      return { teamId, secret: made.body.secret as string, keyId: made.body.keyId as string };
    };
    const listed = async (secret: string, keyId: string) =>
      ((await http.get("/admin/keys", secret)).body.keys as Record<string, unknown>[]).find(
        (k) => k.keyId === keyId,
      );

    test("expiresIn: the record shows expiresAt; at that moment the key is refused like an unknown one", async () => {
      const team = await freshTeam();
      const made = await http.post("/admin/keys", team.secret, { expiresIn: 120, note: "short" });
      expect(made.status).toBe(201);
      expect(made.body.expiresAt).toBe(iso(clock + 120_000));
      const key = made.body.secret as string;
      expect((await http.get("/admin/me", key)).status).toBe(200);
      expect(await listed(team.secret, made.body.keyId)).toMatchObject({ expiresAt: iso(clock + 120_000) });
      const usedAt = iso(clock);

      clock += 120_000;
      const unknown = await http.get("/admin/me", `rk_${team.teamId}_${"x".repeat(43)}`);
      const expired = await http.get("/admin/me", key);
      expect(expired.status).toBe(401);
      expect(expired.body).toEqual(unknown.body);
      const tool = await http.tool(key, "list_rooms", {});
      expect(tool.status).toBe(401);
      // Nothing was written by the refusals: the use is still the one before the expiry.
      expect(await listed(team.secret, made.body.keyId)).toMatchObject({ lastUsedAt: usedAt });
    });

    test("lastUsedAt: shown by GET /admin/keys, moved at most once a minute", async () => {
      const team = await freshTeam();
      const made = await http.post("/admin/keys", team.secret, {});
      const key = made.body.secret as string;
      expect(await listed(team.secret, made.body.keyId)).not.toHaveProperty("lastUsedAt");
      const first = clock;
      await http.tool(key, "list_rooms", {});
      expect(await listed(team.secret, made.body.keyId)).toMatchObject({ lastUsedAt: iso(first) });
      clock += 59_000;
      await http.tool(key, "list_rooms", {});
      await http.get("/admin/me", key);
      expect(await listed(team.secret, made.body.keyId)).toMatchObject({ lastUsedAt: iso(first) });
      clock += 1_000;
      await http.get("/admin/me", key);
      expect(await listed(team.secret, made.body.keyId)).toMatchObject({ lastUsedAt: iso(clock) });
    });

    test("rotate: a successor with the same binding, note and scope; the old key works for the grace period", async () => {
      const team = await freshTeam();
      const old = await http.post("/admin/keys", team.secret, {
        boundAgentId: "builder",
        note: "ci runner",
        rooms: ["room-a", "room-b"],
        readOnly: true,
      });
      const rotated = await http.post(`/admin/keys/${old.body.keyId}/rotate`, team.secret, {
        graceSeconds: 300,
      });
      expect(rotated.status).toBe(201);
      expect(rotated.body).toMatchObject({
        teamId: team.teamId,
        boundAgentId: "builder",
        note: "ci runner",
        rooms: ["room-a", "room-b"],
        readOnly: true,
        rotated: { keyId: old.body.keyId, expiresAt: iso(clock + 300_000), rotatedTo: rotated.body.keyId },
      });
      expect(rotated.body.secret).toMatch(new RegExp(`^rk_${team.teamId}_`));
      expect(rotated.body.keyId).not.toBe(old.body.keyId);
      expect(rotated.body).not.toHaveProperty("expiresAt");
      const successor = rotated.body.secret as string;
      const me = await http.get("/admin/me", successor);
      expect(me.body).toMatchObject({ boundAgentId: "builder", rooms: ["room-a", "room-b"], readOnly: true });
      expect((await http.get("/admin/me", old.body.secret)).status).toBe(200);
      expect(await listed(team.secret, old.body.keyId)).toMatchObject({
        expiresAt: iso(clock + 300_000),
        rotatedTo: rotated.body.keyId,
      });

      clock += 300_000;
      expect((await http.get("/admin/me", old.body.secret)).status).toBe(401);
      expect((await http.get("/admin/me", successor)).status).toBe(200);
    });

    test("rotate: the default grace is an hour, never later than the key's own end; the lifetime carries over", async () => {
      const team = await freshTeam();
      const plain = await http.post("/admin/keys", team.secret, {});
      const once = await http.post(`/admin/keys/${plain.body.keyId}/rotate`, team.secret, {});
      expect(once.body.rotated.expiresAt).toBe(iso(clock + 3_600_000));
      expect(once.body).not.toHaveProperty("expiresAt");
      // Within the key limit (5): the rotated key is revoked at once rather than waiting for its grace to end.
      expect((await http.del(`/admin/keys/${plain.body.keyId}`, team.secret)).status).toBe(200);

      const short = await http.post("/admin/keys", team.secret, { expiresIn: 600 });
      const again = await http.post(`/admin/keys/${short.body.keyId}/rotate`, team.secret, {
        graceSeconds: 7200,
      });
      // The old key ends when it would have anyway; the successor gets the same lifetime from now.
      expect(again.body.rotated.expiresAt).toBe(iso(clock + 600_000));
      expect(again.body.expiresAt).toBe(iso(clock + 600_000));
      const chosen = await http.post(`/admin/keys/${again.body.keyId}/rotate`, team.secret, {
        graceSeconds: 0,
        expiresIn: 86_400,
      });
      expect(chosen.body.expiresAt).toBe(iso(clock + 86_400_000));
      expect((await http.get("/admin/me", again.body.secret)).status).toBe(401);
    });

    test("rotate: a second rotation, unknown keys, other teams, agents on people's keys and bad bodies are refused", async () => {
      const team = await freshTeam();
      const made = await http.post("/admin/keys", team.secret, {});
      const path = `/admin/keys/${made.body.keyId}/rotate`;
      const first = await http.post(path, team.secret, {});
      expect(first.status).toBe(201);
      const second = await http.post(path, team.secret, {});
      expect(second).toMatchObject({
        status: 409,
        body: {
          error: `Key ${made.body.keyId} was already rotated (its successor is ${first.body.keyId}); rotate that one`,
        },
      });
      expect((await http.post(`/admin/keys/k_${team.teamId}_zzzzzzzz/rotate`, team.secret, {})).status).toBe(
        404,
      );
      expect((await http.post("/admin/keys/nonsense/rotate", team.secret, {})).status).toBe(404);
      // Another team's key reads as missing.
      expect((await http.post(`/admin/keys/${first.body.keyId}/rotate`, TEAM_B.secret, {})).status).toBe(404);
      // An agent's key may not rotate a person's key (as it may not revoke one).
      const agent = await http.post("/admin/keys", team.secret, {});
      const person = await http.post(`/admin/keys/${team.keyId}/rotate`, agent.body.secret, {});
      expect(person.status).toBe(403);
      for (const body of [
        { graceSeconds: -1 },
        { graceSeconds: 1.5 },
        { expiresIn: 0 },
        { other: 1 },
        "{oops",
      ]) {
        const bad = await http.post(`/admin/keys/${first.body.keyId}/rotate`, team.secret, body);
        expect(bad.status).toBe(400);
        expect(typeof bad.body.error).toBe("string");
      }
      expect(await listed(team.secret, first.body.keyId)).not.toHaveProperty("rotatedTo");
    });

    test("rotate: the key limit applies as for createKey (the old key still counts)", async () => {
      const team = await freshTeam();
      // KEYS_PER_TEAM is 5, and the provisioned key is the first.
      const a = await http.post("/admin/keys", team.secret, {});
      for (let i = 0; i < 3; i++) expect((await http.post("/admin/keys", team.secret, {})).status).toBe(201);
      const refused = await http.post(`/admin/keys/${a.body.keyId}/rotate`, team.secret, {});
      expect(refused.status).toBe(403);
      expect(refused.body.error).toContain("KEYS_PER_TEAM");
      expect(await listed(team.secret, a.body.keyId)).not.toHaveProperty("rotatedTo");
    });

    test("expiresIn and scopes are checked: bad values are refused with a clear error, nothing is made", async () => {
      const team = await freshTeam();
      const before = (await http.get("/admin/keys", team.secret)).body.keys.length;
      for (const body of [
        { expiresIn: 0 },
        { expiresIn: -5 },
        { expiresIn: 1.5 },
        { expiresIn: "60" },
        { expiresIn: 10 ** 12 },
        { rooms: [] },
        { rooms: ["Bad Room"] },
        { rooms: ["room-a", "room-a"] },
        { rooms: "room-a" },
        { readOnly: "yes" },
      ]) {
        const bad = await http.post("/admin/keys", team.secret, body);
        expect(bad.status, JSON.stringify(body)).toBe(400);
        expect(bad.body.error, JSON.stringify(body)).toMatch(/^Invalid /);
      }
      expect((await http.get("/admin/keys", team.secret)).body.keys).toHaveLength(before);
      // Provisioning takes a lifetime too.
      const provisioned = await http.post("/admin/keys/provision", OPERATOR.secret, {
        teamId: `t-${crypto.randomUUID().slice(0, 8)}`,
        expiresIn: 3600,
      });
      expect(provisioned.body.expiresAt).toBe(iso(clock + 3_600_000));
    });
  });
}
