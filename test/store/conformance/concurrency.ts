/**
 * Concurrency (docs/protocol.md#no-lost-updates, #cursors, #ownership): concurrent calls through both instances lose
 * nothing, deliver every event exactly once, and claim a fresh room for exactly one team.
 */
import { expect, test } from "bun:test";
import { ACCESS_DENIED, RoomError } from "../../../src/protocol/errors.ts";
import {
  allEvents,
  expectRoomError,
  instanceFor,
  newScope,
  newTask,
  newTeam,
  notePayload,
  type Suite,
  testWith,
} from "./harness.ts";

const times = (n: number) => Array.from({ length: n }, (_, i) => i);

export function concurrencyTests(suite: Suite): void {
  testWith(suite, "secondInstance", "the two instances see one backing store", async () => {
    const scope = newScope();
    const task = await suite.store.addTask(scope, newTask("t"));
    expect(await suite.second.getTask(scope, task.id)).toEqual(task);
    await suite.second.setVar(scope, "k", "v", "a");
    expect(await suite.store.getVar(scope, "k")).toBe("v");
    expect((await suite.store.postEvent(scope, { type: "e", from: "a", to: "all", payload: {} })).seq).toBe(
      3,
    );
  });

  testWith(
    suite,
    "secondInstance",
    "a plan read through one instance shows every write made through the other",
    async () => {
      // The SQL drivers keep each read plan under the room's revision and read only the rows written since
      // (store/sql/task-cache.ts): each kind of write through B, then A's reads, must equal B's.
      const scope = newScope();
      const [a, b] = [suite.store, suite.second];
      const same = async () => {
        const seen = await b.readPlan(scope);
        expect(await a.readPlan(scope)).toEqual(seen);
        for (const task of seen.tasks) expect(await a.getTask(scope, task.id)).toEqual(task);
        return seen;
      };
      const first = await b.addTask(scope, newTask("first"));
      const second = await b.addTask(scope, newTask("second", { depends_on: [first.id] }));
      await same();
      await b.updateTask(scope, { taskId: second.id, title: "second, renamed", agentId: "b" });
      expect((await same()).tasks[1]?.title).toBe("second, renamed");
      await b.claimTask(scope, { taskId: first.id, agentId: "b", leaseMs: 60_000 });
      expect((await same()).tasks[0]?.owner).toBe("b");
      await b.addTask(scope, newTask("third"));
      expect((await same()).tasks.map((t) => t.title)).toEqual(["first", "second, renamed", "third"]);
      await b.deleteTask(scope, { taskId: second.id, agentId: "b" });
      expect((await same()).tasks.map((t) => t.title)).toEqual(["first", "third"]);
      await expectRoomError(a.getTask(scope, second.id), "not_found", `Task not found: ${second.id}`);
      // A room deleted and made again under its id, with as many writes as before: a new plan, never the kept one.
      const again = newScope();
      for (const title of ["one", "two"]) await b.addTask(again, newTask(title));
      expect((await a.readPlan(again)).tasks.map((t) => t.title)).toEqual(["one", "two"]);
      await b.deleteRoom(again);
      for (const title of ["uno", "dos"]) await b.addTask(again, newTask(title));
      expect((await a.readPlan(again)).tasks.map((t) => t.title)).toEqual(["uno", "dos"]);
      expect((await a.getTask(again, "task-1")).title).toBe("uno");
    },
  );

  test("32 agents adding 5 tasks each concurrently: 160 tasks, distinct ids, none lost", async () => {
    const scope = newScope();
    const results = await Promise.all(
      times(160).map((i) =>
        instanceFor(suite, i).addTask(scope, newTask(`t${i}`, { agentId: `agent-${i % 32}` })),
      ),
    );
    const plan = await suite.store.readPlan(scope);
    expect(plan.tasks).toHaveLength(160);
    expect(new Set(plan.tasks.map((t) => t.id)).size).toBe(160);
    expect(new Set(plan.tasks.map((t) => t.title))).toEqual(new Set(times(160).map((i) => `t${i}`)));
    expect(new Set(results.map((t) => t.id))).toEqual(new Set(plan.tasks.map((t) => t.id)));
    const events = await allEvents(suite.store, scope);
    expect(events.map((e) => e.seq)).toEqual(times(160).map((i) => i + 1));
    expect(new Set(events.map((e) => e.id)).size).toBe(160);
  });

  test("concurrent updates without expectedVersion all apply, on distinct tasks and on one task", async () => {
    const scope = newScope();
    const tasks = await Promise.all(times(32).map((i) => suite.store.addTask(scope, newTask(`own ${i}`))));
    const shared = await suite.store.addTask(scope, newTask("shared"));
    await Promise.all(
      times(32).map(async (i) => {
        const store = instanceFor(suite, i);
        const own = tasks[i]?.id ?? "";
        for (let k = 0; k < 6; k++) {
          await Promise.all([
            store.updateTask(scope, { taskId: own, description: `d${k}`, agentId: `agent-${i}` }),
            // An unowned task: nothing refuses the notes, so every one must land.
            store.updateTask(scope, { taskId: shared.id, note: `n${i}-${k}`, agentId: `agent-${i}` }),
          ]);
        }
      }),
    );
    const plan = await suite.store.readPlan(scope);
    for (const task of plan.tasks.slice(0, 32)) expect(task.version).toBe(7);
    expect(plan.tasks[32]?.version).toBe(1 + 32 * 6);
    const updates = (await allEvents(suite.store, scope)).filter((e) => e.type === "task_updated");
    expect(updates).toHaveLength(2 * 32 * 6);
  });

  test("concurrent updates with the same expectedVersion: exactly one wins, the rest conflict", async () => {
    const scope = newScope();
    const task = await suite.store.addTask(scope, newTask("t"));
    const settled = await Promise.allSettled(
      times(16).map((i) =>
        instanceFor(suite, i).updateTask(scope, { taskId: task.id, owner: `a${i}`, expectedVersion: 1 }),
      ),
    );
    const won = settled.filter((r) => r.status === "fulfilled");
    expect(won).toHaveLength(1);
    for (const r of settled) {
      if (r.status === "rejected") {
        expect(r.reason).toBeInstanceOf(RoomError);
        expect((r.reason as RoomError).message).toStartWith(
          `Version conflict: task ${task.id} is at version 2 (`,
        );
      }
    }
    expect((await suite.store.getTask(scope, task.id)).version).toBe(2);
  });

  test("8 concurrent consumers of one agent's cursor get 400 events exactly once", async () => {
    const scope = newScope();
    for (let i = 0; i < 400; i++)
      await suite.store.postEvent(scope, { type: "e", from: "p", to: "all", payload: { i } });
    const delivered: number[] = [];
    await Promise.all(
      times(8).map(async (w) => {
        const store = instanceFor(suite, w);
        for (;;) {
          const batch = await store.consumeEvents(scope, "x", 7 + w * 3);
          if (batch.count === 0) return;
          const seqs = batch.events.map((e) => e.seq);
          expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
          delivered.push(...seqs);
        }
      }),
    );
    expect(delivered).toHaveLength(400);
    expect(new Set(delivered).size).toBe(400);
    expect(await suite.store.consumeEvents(scope, "x", 100)).toEqual({
      events: [],
      cursor: 400,
      count: 0,
      remaining: 0,
    });
  });

  test("consumers racing producers deliver every event exactly once", async () => {
    const scope = newScope();
    let producing = true;
    const delivered: number[] = [];
    const producers = Promise.all(
      times(4).map(async (p) => {
        const store = instanceFor(suite, p);
        for (let i = 0; i < 50; i++)
          await store.postEvent(scope, { type: "e", from: `p${p}`, to: "all", payload: {} });
      }),
    ).then(() => {
      producing = false;
    });
    const consumers = Promise.all(
      times(4).map(async (w) => {
        const store = instanceFor(suite, w + 1);
        for (;;) {
          const done = !producing;
          const batch = await store.consumeEvents(scope, "x", 5);
          delivered.push(...batch.events.map((e) => e.seq));
          if (batch.count === 0 && done) return;
          if (batch.count === 0) await Bun.sleep(1);
        }
      }),
    );
    await Promise.all([producers, consumers]);
    expect([...delivered].sort((a, b) => a - b)).toEqual(times(200).map((i) => i + 1));
  });

  test("20 concurrent updateContext calls: version 1.20 and 20 history entries", async () => {
    const scope = newScope();
    const entry = await suite.store.writeContext(scope, {
      type: "note",
      summary: "v0",
      consuming_agents: [],
      payload: notePayload(),
      author: "a",
    });
    const results = await Promise.all(
      times(20).map((i) =>
        instanceFor(suite, i).updateContext(scope, { id: entry.id, author: `u${i}`, summary: `s${i}` }),
      ),
    );
    expect(new Set(results.map((r) => r.version)).size).toBe(20);
    const current = await suite.store.readContext(scope, entry.id);
    expect(current.version).toBe("1.20");
    const history = await suite.store.contextHistory(scope, entry.id);
    expect(history.map((h) => h.version)).toEqual(times(20).map((i) => `1.${i}`));
    const summaries = [...history.map((h) => h.summary), current.summary];
    expect(new Set(summaries)).toEqual(new Set(["v0", ...times(20).map((i) => `s${i}`)]));
  });

  test("concurrent setVar on distinct keys keeps every one", async () => {
    const scope = newScope();
    await Promise.all(times(64).map((i) => instanceFor(suite, i).setVar(scope, `k${i}`, String(i), `a${i}`)));
    const vars = await suite.store.listVars(scope);
    expect(vars).toEqual(Object.fromEntries(times(64).map((i) => [`k${i}`, String(i)])));
    expect(await allEvents(suite.store, scope)).toHaveLength(64);
  });

  test("16 agents racing for one lock: exactly one acquires, the others see it as holder", async () => {
    const scope = newScope();
    const results = await Promise.all(
      times(16).map((i) => instanceFor(suite, i).acquireLock(scope, "deploy", `a${i}`, 30_000)),
    );
    const winners = results.filter((r) => r.acquired);
    expect(winners).toHaveLength(1);
    const { holder, expiresAt, fence } = winners[0] ?? results[0] ?? { holder: "", expiresAt: "", fence: 0 };
    for (const r of results)
      expect(r).toEqual({ acquired: r.acquired, resource: "deploy", holder, expiresAt, fence });
    expect(holder).toBe(`a${results.findIndex((r) => r.acquired)}`);
    expect(await suite.second.listLocks(scope)).toEqual([
      { resource: "deploy", owner: holder, expiresAt, fence },
    ]);
  });

  test("one team's concurrent first writes on a fresh room all succeed", async () => {
    const scope = newScope();
    const calls = times(20).map((i) => {
      const store = instanceFor(suite, i);
      if (i % 4 === 0) return store.addTask(scope, newTask(`t${i}`));
      if (i % 4 === 1) return store.setVar(scope, `k${i}`, "v", "a");
      if (i % 4 === 2) return store.heartbeat(scope, `a${i}`);
      return store.postEvent(scope, { type: "e", from: "a", to: "all", payload: {} });
    });
    const settled = await Promise.allSettled(calls);
    expect(settled.filter((r) => r.status === "rejected")).toEqual([]);
    expect(await allEvents(suite.store, scope)).toHaveLength(15);
  });

  test("two teams racing to claim a fresh room: one team's writes all succeed, the other's are all denied", async () => {
    const roomId = newScope().roomId;
    const teams = [newTeam(), newTeam()];
    const settled = await Promise.allSettled(
      times(24).map((i) =>
        instanceFor(suite, i >> 1).addTask(
          { roomId, teamId: teams[i % 2] ?? "" },
          newTask(`team${i % 2}-${i}`),
        ),
      ),
    );
    const byTeam = [0, 1].map((team) => settled.filter((_, i) => i % 2 === team));
    const winner = byTeam.findIndex((rs) => rs.every((r) => r.status === "fulfilled"));
    expect(winner).toBeGreaterThanOrEqual(0);
    const loser = byTeam[1 - winner] ?? [];
    for (const r of loser) {
      expect(r.status).toBe("rejected");
      if (r.status === "rejected") expect((r.reason as RoomError).message).toBe(ACCESS_DENIED);
    }
    const plan = await suite.store.readPlan({ roomId, teamId: teams[winner] ?? "" });
    expect(plan.tasks).toHaveLength(12);
    expect(plan.tasks.every((t) => t.title.startsWith(`team${winner}-`))).toBe(true);
    await expectRoomError(
      suite.store.readPlan({ roomId, teamId: teams[1 - winner] ?? "" }),
      "denied",
      ACCESS_DENIED,
    );
  });
}
