/**
 * Concurrency through the whole stack: 32 agents writing the plan at once, 8 consumers of one cursor, and two
 * roomd processes on one SQLite file and on one Redis (docs/protocol.md#no-lost-updates, #ownership, #cursors).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { connect, type RoomClient } from "../support/mcp-client.ts";
import { type SpawnedServer, spawnServer, TEAM_A } from "../support/server.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";

type Json = Record<string, any>;

for (const make of E2E_STORES) {
  describe(`two roomd processes on one ${make().name} store`, () => {
    const servers: SpawnedServer[] = [];
    const clients: RoomClient[] = [];
    afterAll(async () => {
      await Promise.all(clients.map((c) => c.close()));
      await Promise.all(servers.map((s) => s.stop()));
    });

    test("32 agents add and update tasks across both processes: nothing lost", async () => {
      const e2e = make();
      const env = {
        ...(await e2e.env()),
        API_KEYS: `${TEAM_A.teamId}:${TEAM_A.secret}`,
        RATE_LIMIT_PER_MINUTE: "100000",
        // Loss is tested, not speed: on a loaded machine a PostgreSQL write waited past the 2 s default.
        STORE_TIMEOUT_MS: "20000",
      };
      servers.push(await spawnServer(env), await spawnServer(env));
      for (let i = 0; i < 8; i++)
        clients.push(await connect(servers[i % 2]!.url, TEAM_A.secret, i % 4 === 0 ? "sse" : "json"));
      const roomId = newRoomId();
      const agents = Array.from({ length: 32 }, (_, i) => ({
        id: `agent-${i}`,
        c: clients[i % clients.length]!,
      }));
      // Fresh room, every agent's first call at once: all must succeed (docs/protocol.md#ownership).
      const added = await Promise.all(
        agents.flatMap((a) =>
          [1, 2, 3, 4, 5].map((n) =>
            a.c.call<Json>("add_task", { roomId, title: `${a.id} #${n}`, agentId: a.id }),
          ),
        ),
      );
      expect(new Set(added.map((t) => t.id)).size).toBe(160);
      // Everyone updates one shared task 3 times and its own first task once, concurrently, without expectedVersion.
      const shared = added[0]!;
      await Promise.all(
        agents.flatMap((a, i) => [
          ...[1, 2, 3].map((n) =>
            a.c.call("update_task", { roomId, taskId: shared.id, note: `${a.id} ${n}`, agentId: a.id }),
          ),
          a.c.call("update_task", {
            roomId,
            taskId: added[i * 5 + 1]!.id,
            owner: a.id,
            status: "in_progress",
            agentId: a.id,
          }),
        ]),
      );
      const plan = await clients[1]!.call<Json>("read_plan", { roomId });
      expect(plan.tasks).toHaveLength(160);
      expect(plan.tasks.find((t: Json) => t.id === shared.id).version).toBe(1 + 96);
      expect(plan.tasks.filter((t: Json) => t.status === "in_progress")).toHaveLength(32);
      const events = [];
      for (let before: number | undefined; ; ) {
        const page = await clients[0]!.call<Json[]>("read_events", {
          roomId,
          limit: 100,
          ...(before ? { before } : {}),
        });
        if (page.length === 0) break;
        events.push(...page);
        before = page[page.length - 1]!.seq;
      }
      expect(events.map((e) => e.seq).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 160 + 128 }, (_, i) => i + 1),
      );
    });

    test("8 concurrent consumers of one agent's cursor: every event delivered exactly once", async () => {
      const roomId = newRoomId();
      const c = clients[0]!;
      for (let batch = 0; batch < 4; batch++) {
        await Promise.all(
          Array.from({ length: 100 }, (_, i) =>
            c.call("post_event", { roomId, type: "tick", from: "producer", payload: { n: batch * 100 + i } }),
          ),
        );
      }
      const delivered: number[] = [];
      await Promise.all(
        clients.map(async (consumer) => {
          for (;;) {
            const batch = await consumer.call<Json>("get_unread_events", {
              roomId,
              agentId: "worker",
              limit: 7,
            });
            delivered.push(...batch.events.map((e: Json) => e.seq));
            if (batch.count === 0) return;
          }
        }),
      );
      expect(delivered).toHaveLength(400);
      expect(new Set(delivered).size).toBe(400);
    });
  });
}
