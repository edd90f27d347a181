/**
 * `bun bench/fork.ts [--events 10000] [--store sqlite,redis]`: how long forking a room takes (the contract:
 * a 10,000-event room forks in under 2 s on SQLite, docs/people.md#forks). Builds a room through the store — tasks
 * added and updated, context written and revised (with and without consumers), people's records (approvals asked
 * and decided, handoffs, verdicts), the wheel taken, messages and noise — then forks it at its head and at its
 * middle, three times each, and prints the median and worst time per fork, and the median CPU time this process
 * spent on it (user + system: on SQLite the whole fork, on Redis the TypeScript side), which a machine shared with
 * other work inflates far less than the wall time.
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

/** One of people's acts, in turn: an approval asked, then decided; a handoff offered; a verdict. */
async function people(store: RoomStore, scope: RoomScope, n: number): Promise<void> {
  if (n === 0) await store.takeDriver(scope, { holder: "human:alice", kind: "human" });
  const turn = n % 4;
  if (turn === 0)
    await store.requestApproval(scope, {
      requestedBy: "backend",
      action: `deploy ${n}`,
      details: { n },
      expiresInMs: 3_600_000,
    });
  else if (turn === 1)
    await store.decideApproval(scope, {
      id: `apr-${(n + 3) / 4}`,
      decidedBy: "human:alice",
      decision: "approve",
    });
  else if (turn === 2)
    await store.offerHandoff(scope, {
      from: "backend",
      to: "any",
      taskIds: [],
      contextIds: [],
      note: `handoff ${n}`,
      offeredBy: "backend",
      agentOffer: true,
    });
  else
    await store.recordVerdict(scope, {
      by: "reviewer",
      verdict: "pass",
      summary: `ok ${n}`,
      details: "",
      ref: null,
    });
}

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
    } else if (i % 50 === 9) {
      await people(store, scope, Math.floor(i / 50));
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

async function timeFork(
  store: RoomStore,
  scope: RoomScope,
  atSeq: number | undefined,
): Promise<{ times: number[]; cpu: number[] }> {
  const times: number[] = [];
  const cpu: number[] = [];
  for (let run = 0; run < 3; run++) {
    const started = performance.now();
    const used = process.cpuUsage();
    await store.forkRoom(scope, {
      newRoomId: `fork-${crypto.randomUUID().slice(0, 12)}`,
      atSeq,
      by: "human:alice",
    });
    const spent = process.cpuUsage(used);
    times.push(performance.now() - started);
    cpu.push((spent.user + spent.system) / 1000);
  }
  return { times: times.sort((x, y) => x - y), cpu: cpu.sort((x, y) => x - y) };
}

const rows: string[] = [
  "| store | events | fork at | median ms | worst ms | median CPU ms |",
  "|---|---|---|---|---|---|",
];
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
    const { times, cpu } = await timeFork(store, scope, at);
    rows.push(
      `| ${name} | ${head} | ${label} | ${times[1]?.toFixed(0)} | ${times[2]?.toFixed(0)} | ${cpu[1]?.toFixed(0)} |`,
    );
  }
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
process.stdout.write(`${rows.join("\n")}\n`);
process.exit(0);
