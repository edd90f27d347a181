/**
 * `bun bench/fork.ts [--events 10000] [--store sqlite,redis]`: how long forking a room takes (the contract:
 * a 10,000-event room forks in under 2 s on SQLite, docs/people.md#forks). Builds a room through the store — tasks
 * added and updated, context written and revised (with and without consumers), messages and noise — then forks it at
 * its head and at its middle, three times each, and prints the median and worst time per fork.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openStore } from "../src/store/index.ts";
import type { RoomScope, RoomStore } from "../src/store/types.ts";
import { sharedRedis } from "../test/support/redis-server.ts";

const { values } = parseArgs({
  options: {
    events: { type: "string", default: "10000" },
    store: { type: "string", default: "sqlite,redis" },
  },
});
const target = Number(values.events);

async function build(store: RoomStore, scope: RoomScope): Promise<number> {
  let head = 0;
  let tasks = 0;
  let entries = 0;
  for (let i = 0; head < target; i++) {
    const kind = i % 10;
    if (kind < 3 || tasks === 0) {
      await store.addTask(scope, {
        title: `task ${i}`,
        description: "x".repeat(200),
        depends_on: [],
        priority: i % 7,
        agentId: "planner",
      });
      tasks += 1;
    } else if (kind < 6) {
      await store.updateTask(scope, {
        taskId: `task-${1 + (i % tasks)}`,
        description: `step ${i}`,
        agentId: "planner",
        expectedVersion: undefined,
      });
    } else if (kind === 6) {
      const consumers = i % 2 === 0 ? ["frontend"] : [];
      if (entries === 0 || i % 3 === 0) {
        await store.writeContext(scope, {
          type: "note",
          summary: `note ${i}`,
          consuming_agents: consumers,
          payload: { text: "y".repeat(500) },
          author: "backend",
        });
        entries += 1;
      } else {
        await store.updateContext(scope, {
          id: `ctx-${1 + (i % entries)}`,
          author: "backend",
          payload: { text: `v${i}` },
          consuming_agents: consumers,
        });
      }
    } else if (kind === 7) {
      await store.postEvent(scope, {
        type: "human_message",
        from: "human:alice",
        to: "backend",
        payload: { text: `message ${i}` },
      });
    } else {
      await store.postEvent(scope, {
        type: "progress",
        from: "backend",
        to: "all",
        payload: { i, note: "z".repeat(100) },
      });
    }
    head = (await store.roomInfo(scope)).eventCount;
  }
  return head;
}

async function timeFork(store: RoomStore, scope: RoomScope, atSeq: number | undefined): Promise<number[]> {
  const times: number[] = [];
  for (let run = 0; run < 3; run++) {
    const started = performance.now();
    await store.forkRoom(scope, {
      newRoomId: `fork-${crypto.randomUUID().slice(0, 12)}`,
      atSeq,
      by: "human:alice",
      driver: "human:alice",
    });
    times.push(performance.now() - started);
  }
  return times.sort((x, y) => x - y);
}

const rows: string[] = ["| store | events | fork at | median ms | worst ms |", "|---|---|---|---|---|"];
for (const name of values.store.split(",")) {
  const dir = mkdtempSync(join(tmpdir(), "roomd-fork-bench-"));
  const settings =
    name === "sqlite"
      ? { store: "sqlite" as const, sqlitePath: join(dir, "roomd.sqlite") }
      : { store: "redis" as const, redisUrl: (await sharedRedis()).url, redisCluster: false };
  const store = await openStore({ ...settings, storeTimeoutMs: 30_000, roomsPerTeam: 1000 }, Date.now);
  const scope = { roomId: `bench-${crypto.randomUUID().slice(0, 8)}`, teamId: "bench" };
  const head = await build(store, scope);
  for (const [label, at] of [
    ["head", undefined],
    ["middle", Math.floor(head / 2)],
  ] as const) {
    const times = await timeFork(store, scope, at);
    rows.push(`| ${name} | ${head} | ${label} | ${times[1]?.toFixed(0)} | ${times[2]?.toFixed(0)} |`);
  }
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
process.stdout.write(`${rows.join("\n")}\n`);
process.exit(0);
