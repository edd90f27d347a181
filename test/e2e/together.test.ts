/**
 * The features built apart, used together through real HTTP on every store: a leased task handed on with the
 * tools (its lease ends with the handoff), a fork made by a person and then searched and edited by agents like its
 * source, and leave_room by the agent driving the room (the wheel goes with it).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { OPERATOR, type RunningServer, startInProcess } from "../support/server.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";

type Http = ReturnType<typeof httpClient>;
type Json = Record<string, any>;

for (const make of E2E_STORES) {
  describe(`features together on ${make().name}`, () => {
    const clock = Date.now();
    let store: RoomStore;
    let server: RunningServer;
    let http: Http;
    /** Keys of team "ops": agents bound to alice, bob and bot; the operator is a person (carol). */
    const keys = { alice: "", bob: "", bot: "" };

    beforeAll(async () => {
      store = await make().open({ now: () => clock });
      server = startInProcess(
        store,
        undefined,
        {
          OPERATOR_KEYS: `${OPERATOR.teamId}:${OPERATOR.secret}:carol`,
          // The shared Redis keeps every test file's keys of a team: the default 50 would run out.
          KEYS_PER_TEAM: "10000",
        },
        () => clock,
      );
      http = httpClient(server.url);
      for (const agent of ["alice", "bob", "bot"] as const) {
        const made = await http.post("/admin/keys", OPERATOR.secret, { boundAgentId: agent });
        keys[agent] = made.body.secret as string;
      }
    });
    afterAll(async () => {
      await server.stop();
      await store.close();
    });

    /** A tool's structured result, or its error text. */
    async function call(key: string, name: string, args: Json): Promise<Json> {
      const res = await http.tool(key, name, args);
      return "isError" in res && res.isError ? { error: res.text } : JSON.parse(res.text);
    }

    async function room(): Promise<string> {
      const roomId = newRoomId();
      expect((await http.post("/admin/rooms", OPERATOR.secret, { roomId })).status).toBe(201);
      return roomId;
    }

    test("a leased task handed on: the acceptor owns it without a lease; the old holder renews nothing; analytics count one handoff", async () => {
      const roomId = await room();
      const task = await call(keys.alice, "add_task", { roomId, title: "login", agentId: "alice" });
      const claimed = await call(keys.alice, "claim_task", { roomId, taskId: task.id, agentId: "alice" });
      expect(claimed.lease_expires_at).toBeString();
      const offer = await call(keys.alice, "offer_handoff", {
        roomId,
        from: "alice",
        to: "bob",
        taskIds: [task.id],
        note: "login is yours",
      });
      const accepted = await call(keys.bob, "accept_handoff", {
        roomId,
        handoffId: offer.id,
        agentId: "bob",
      });
      expect(accepted).toMatchObject({ moved: [task.id] });
      const now = await call(keys.bob, "get_task", { roomId, taskId: task.id });
      expect(now).toMatchObject({ owner: "bob", status: "in_progress", version: claimed.version + 1 });
      expect(now.lease_expires_at).toBeUndefined();
      expect(await call(keys.alice, "renew_lease", { roomId, agentId: "alice" })).toEqual([]);
      const analytics = await call(keys.bob, "get_room_analytics", { roomId });
      expect(analytics).toMatchObject({ handoffs: 1, tasksByStatus: { in_progress: 1 } });
    });

    test("a person's fork is searched and edited by agents like its source: posts stay deletable by their authors", async () => {
      const roomId = await room();
      await call(keys.alice, "add_task", { roomId, title: "billing export", agentId: "alice" });
      const post = await call(keys.bot, "post_event", {
        roomId,
        type: "note",
        from: "bot",
        payload: { text: "billing export needs retries" },
      });
      const fork = `${roomId}-f`;
      const made = await http.post(`/rooms/${roomId}/fork`, OPERATOR.secret, { newRoomId: fork });
      expect(made.status).toBe(201);
      const found = await call(keys.alice, "search", { roomId: fork, query: "billing" });
      expect(found.hits.map((h: Json) => h.id).sort()).toEqual([post.id, "task-1"].sort());
      expect(await call(keys.alice, "search", { roomId: fork, query: "retries" })).toMatchObject({
        count: 1,
      });
      // Another agent's key cannot delete bot's post; bot can; roomd's own events stay.
      expect(
        (await call(keys.alice, "delete_event", { roomId: fork, eventId: post.id, agentId: "alice" })).error,
      ).toMatch(/was posted by bot; only its author/);
      const tomb = await call(keys.bot, "delete_event", { roomId: fork, eventId: post.id, agentId: "bot" });
      expect(tomb).toMatchObject({ id: post.id, payload: {}, deleted: { by: "bot" } });
      expect(
        (await call(keys.bot, "delete_event", { roomId: fork, eventId: "evt-1", agentId: "bot" })).error,
      ).toMatch(/was appended by roomd/);
      expect(await call(keys.alice, "search", { roomId: fork, query: "retries" })).toMatchObject({
        count: 0,
      });
      expect(await call(keys.alice, "search", { roomId, query: "retries" })).toMatchObject({ count: 1 });
    });

    test("the agent driving the room leaves: the wheel is free for the next orchestrator", async () => {
      const roomId = await room();
      const held = await call(keys.bot, "claim_driver", { roomId, agentId: "bot" });
      expect(held.holder).toBe("bot");
      await call(keys.bot, "leave_room", { roomId, agentId: "bot" });
      const driver = await http.get(`/rooms/${roomId}/driver`, OPERATOR.secret);
      expect(driver.body).toMatchObject({ holder: null, epoch: held.epoch + 1 });
      expect((await call(keys.alice, "claim_driver", { roomId, agentId: "alice" })).holder).toBe("alice");
      const info = await call(keys.alice, "get_room_info", { roomId });
      expect(info).toMatchObject({ agentCount: 2, driver: { holder: "alice" } });
    });
  });
}
