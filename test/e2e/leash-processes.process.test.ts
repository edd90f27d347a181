/**
 * Agents on a leash across two roomd processes sharing one store, on every store: a suspension made through one
 * process is refused on the other at once, and a suspension racing the agent's claims on the other process leaves
 * nothing held; an agent's own rate window (AGENT_RATE_LIMIT_PER_MINUTE) is exact over both processes' calls; a
 * key's expiry, rotation and scopes set through one process hold on the other at once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { httpClient } from "../support/http.ts";
import { type SpawnedServer, spawnServer } from "../support/server.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";

const LEAD = "secret-leash-lead-0123456789";
const AGENT_LIMIT = 40;

for (const make of E2E_STORES) {
  describe(`agents on a leash across two processes on ${make().name}`, () => {
    let servers: SpawnedServer[] = [];
    let a: ReturnType<typeof httpClient>;
    let b: ReturnType<typeof httpClient>;
    beforeAll(async () => {
      const env = {
        ...(await make().env()),
        OPERATOR_KEYS: `leash-${crypto.randomUUID().slice(0, 6)}:${LEAD}:pat`,
        RATE_LIMIT_PER_MINUTE: "1000000",
        AGENT_RATE_LIMIT_PER_MINUTE: String(AGENT_LIMIT),
        KEYS_PER_TEAM: "10000",
      };
      servers = await Promise.all([spawnServer(env), spawnServer(env)]);
      [a, b] = servers.map((s) => httpClient(s.url)) as [typeof a, typeof b];
    });
    afterAll(async () => {
      await Promise.all(servers.map((s) => s.stop()));
    });

    const boundKey = async (agent: string) =>
      (await a.post("/admin/keys", LEAD, { boundAgentId: agent })).body.secret as string;

    test("a suspension made on one process is refused on the other; resumed there, it works again", async () => {
      const roomId = newRoomId();
      const worker = await boundKey("worker");
      const task = JSON.parse((await a.tool(LEAD, "add_task", { roomId, agentId: "lead", title: "t" })).text);
      expect((await b.tool(worker, "claim_task", { roomId, taskId: task.id })).isError).toBe(false);
      const suspended = await a.post(`/admin/rooms/${roomId}/agents/worker/suspend`, LEAD, {
        reason: "looping",
      });
      expect(suspended.status).toBe(201);
      expect(suspended.body.suspension.by).toBe("human:pat");
      expect(suspended.body.released.tasks).toEqual([task.id]);
      const refused = await b.tool(worker, "post_event", { roomId, type: "note", payload: {} });
      expect(refused.text).toMatch(
        /^Error: AGENT_SUSPENDED: agent worker is suspended in room .* by human:pat since .*: looping\./,
      );
      expect((await b.post(`/admin/rooms/${roomId}/agents/worker/resume`, LEAD, {})).body.resumed).toBe(true);
      expect((await a.tool(worker, "post_event", { roomId, type: "note", payload: {} })).isError).toBe(false);
    });

    test("a suspension on one process racing the agent's claims on the other: nothing is left held", async () => {
      const racer = await boundKey("racer");
      for (let round = 0; round < 4; round++) {
        const roomId = newRoomId();
        const task = JSON.parse(
          (await a.tool(LEAD, "add_task", { roomId, agentId: "lead", title: "t" })).text,
        );
        const [claim, files, lock, suspend] = await Promise.all([
          b.tool(racer, "claim_task", { roomId, taskId: task.id }),
          b.tool(racer, "claim_files", { roomId, paths: [`f${round}.ts`] }),
          b.tool(racer, "acquire_lock", { roomId, resource: "deploy", ttlSeconds: 300 }),
          a.post(`/admin/rooms/${roomId}/agents/racer/suspend`, LEAD, { reason: "race" }),
        ]);
        expect(suspend.status).toBe(201);
        for (const answer of [claim, files, lock])
          if (answer.isError) expect(answer.text).toStartWith("Error: AGENT_SUSPENDED");
        const plan = JSON.parse((await b.tool(LEAD, "read_plan", { roomId })).text);
        expect(plan.tasks.filter((t: { owner: string | null }) => t.owner === "racer")).toEqual([]);
        expect(JSON.parse((await a.tool(LEAD, "list_claims", { roomId })).text)).toEqual([]);
        expect(JSON.parse((await b.tool(LEAD, "list_locks", { roomId })).text)).toEqual([]);
      }
    });

    test(`an agent's own window over both processes: ${AGENT_LIMIT * 2} parallel calls, exactly ${AGENT_LIMIT} answered`, async () => {
      const looper = await boundKey(`looper-${crypto.randomUUID().slice(0, 6)}`);
      const roomId = newRoomId();
      const answers = await Promise.all(
        Array.from({ length: AGENT_LIMIT * 2 }, (_, i) =>
          (i % 2 ? a : b).tool(looper, "post_event", { roomId, type: "note", payload: { i } }),
        ),
      );
      expect(answers.filter((r) => !r.isError)).toHaveLength(AGENT_LIMIT);
      for (const r of answers.filter((r) => r.isError))
        expect(r.text).toMatch(/^Error: Rate limit exceeded: agent looper-\w+'s own budget is spent/);
      // The team is not held back: another agent's call goes through.
      expect(
        (await a.tool(LEAD, "post_event", { roomId, type: "note", from: "other", payload: {} })).isError,
      ).toBe(false);
    });
    test("a key's expiry, rotation and scopes made on one process hold on the other at once", async () => {
      const roomId = newRoomId();
      const other = newRoomId();
      for (const id of [roomId, other]) await a.post("/admin/rooms", LEAD, { roomId: id });
      // Expiry: a key living one second works on the other process, then is refused there like an unknown one.
      const brief = (await a.post("/admin/keys", LEAD, { boundAgentId: "brief", expiresIn: 1 })).body;
      expect((await b.tool(brief.secret, "read_plan", { roomId })).isError).toBe(false);
      await Bun.sleep(1100);
      expect((await b.get("/admin/me", brief.secret)).status).toBe(401);
      // Rotation without grace: the successor works on the other process, the old key is refused there.
      const old = (await a.post("/admin/keys", LEAD, { boundAgentId: "rotor" })).body;
      const rotated = await a.post(`/admin/keys/${old.keyId}/rotate`, LEAD, { graceSeconds: 0 });
      expect(rotated.status).toBe(201);
      expect((await b.get("/admin/me", old.secret)).status).toBe(401);
      expect((await b.tool(rotated.body.secret, "heartbeat", { roomId })).isError).toBe(false);
      // Scopes: a read-only key for one room, made on one process, reads there on the other and nothing more.
      const scoped = (
        await a.post("/admin/keys", LEAD, { boundAgentId: "watcher", rooms: [roomId], readOnly: true })
      ).body;
      expect((await b.tool(scoped.secret, "read_plan", { roomId })).isError).toBe(false);
      expect((await b.tool(scoped.secret, "add_task", { roomId, title: "no" })).text).toStartWith(
        "Error: This key is read-only",
      );
      expect((await b.tool(scoped.secret, "read_plan", { roomId: other })).text).toStartWith(
        "Error: Room not found or access denied",
      );
    });
  });
}
