/**
 * Forks of rooms written before context versions recorded their log head (docs/people.md#forks): such versions are
 * placed by their timestamp. A room is scripted, its recorded heads are then erased as an older roomd would have left
 * them (SQLite at_seq NULL, Redis without ctx_seqs), and forks at each seq must still show what was recorded there.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import type { ContextEntry } from "../../src/protocol/records.ts";
import type { RoomScope, RoomStore } from "../../src/store/types.ts";
import { sharedRedis } from "../support/redis-server.ts";
import { type E2eStore, redisE2e, sqliteE2e } from "../support/stores.ts";

async function contextOf(store: RoomStore, scope: RoomScope) {
  const entries: ContextEntry[] = await store.listContext(scope, {});
  return Promise.all(
    entries.map(async (e) => ({ entry: e, history: await store.contextHistory(scope, e.id) })),
  );
}

async function eraseHeads(backing: E2eStore, roomId: string): Promise<void> {
  const settings = await backing.settings();
  if (settings.store === "sqlite") {
    const db = new Database(settings.sqlitePath);
    try {
      db.run("UPDATE contexts SET at_seq = NULL WHERE room_id = ?", [roomId]);
      db.run("UPDATE context_history SET at_seq = NULL WHERE room_id = ?", [roomId]);
    } finally {
      db.close();
    }
  } else {
    const client = new RedisClient((await sharedRedis()).url);
    try {
      await client.send("DEL", [`room:{${roomId}}:ctx_seqs`]);
    } finally {
      client.close();
    }
  }
}

for (const make of [sqliteE2e, redisE2e]) {
  describe(`forks of a room from before version heads (${make().name})`, () => {
    test("context versions without a recorded head are placed by their timestamp", async () => {
      const backing = make();
      let t = Date.now();
      const store = await backing.open({ now: () => t });
      try {
        const scope = { roomId: `legacy-${crypto.randomUUID().slice(0, 8)}`, teamId: "t-legacy" };
        const recorded = new Map<number, Awaited<ReturnType<typeof contextOf>>>();
        const step = async (action: () => Promise<unknown>) => {
          t += 1000;
          await action();
          recorded.set((await store.roomInfo(scope)).eventCount, await contextOf(store, scope));
        };
        const note = (text: string, consumers: string[]) => ({
          type: "note" as const,
          summary: text,
          consuming_agents: consumers,
          payload: { text },
          author: "a",
        });
        await step(() =>
          store.addTask(scope, { title: "t", description: "", depends_on: [], priority: null }),
        );
        await step(() => store.writeContext(scope, note("quiet", [])));
        await step(() => store.postEvent(scope, { type: "x", from: "a", to: "all", payload: {} }));
        await step(() => store.updateContext(scope, { id: "ctx-1", author: "b", summary: "quiet 2" }));
        await step(() => store.writeContext(scope, note("loud", ["c"])));
        await step(() => store.postEvent(scope, { type: "y", from: "a", to: "all", payload: {} }));
        await step(() => store.updateContext(scope, { id: "ctx-2", author: "b", summary: "loud 2" }));
        await eraseHeads(backing, scope.roomId);
        for (const [seq, expected] of recorded) {
          const fork = { roomId: `${scope.roomId}-at-${seq}`, teamId: scope.teamId };
          await store.forkRoom(scope, { newRoomId: fork.roomId, atSeq: seq, by: "human:a" });
          expect(await contextOf(store, fork), `at ${seq}`).toEqual(expected);
        }
      } finally {
        await store.close();
      }
    });
  });
}
