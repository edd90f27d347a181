/**
 * Forks (docs/people.md#forks): a scripted room records its plan and context after every step; forks at each of those
 * seqs must show exactly what was recorded, with the log prefix and room_forked after it, and the source unchanged.
 */
import { expect, test } from "bun:test";
import type { ContextEntry, RoomEvent, Task } from "../../../src/protocol/records.ts";
import type { ContextVersion, RoomScope, RoomStore } from "../../../src/store/types.ts";
import {
  allEvents,
  apiContractPayload,
  expectRefusedUnchanged,
  expectRoomError,
  newNote,
  newScope,
  newTask,
  newTeam,
  notePayload,
  type Suite,
  snapshot,
} from "./harness.ts";

interface State {
  tasks: Task[];
  context: ContextEntry[];
  history: ContextVersion[][];
}

async function stateOf(store: RoomStore, scope: RoomScope): Promise<State> {
  const [plan, context] = await Promise.all([store.readPlan(scope), store.listContext(scope, {})]);
  const history = await Promise.all(context.map((entry) => store.contextHistory(scope, entry.id)));
  return { tasks: plan.tasks, context, history };
}

const withoutReads = (events: RoomEvent[]) => events.map(({ read_by: _r, ...rest }) => rest);
const newRoomId = () => `f-${crypto.randomUUID().slice(0, 10)}`;

/**
 * The script: plan and context changes with and without events (context without consumers appends none, so
 * several states share one head: the fork shows the last of them), a handoff moving tasks, and noise.
 */
async function scriptedRoom(suite: Suite): Promise<{ scope: RoomScope; recorded: Map<number, State> }> {
  const scope = newScope();
  const store = suite.store;
  const recorded = new Map<number, State>();
  const step = async (action: () => Promise<unknown>) => {
    suite.clock.advance(1000);
    await action();
    recorded.set((await store.roomInfo(scope)).eventCount, await stateOf(store, scope));
  };
  const note = (text: string) => newNote(text, { author: "alice" });
  await step(() => store.addTask(scope, newTask("design", { agentId: "alice" })));
  await step(() => store.writeContext(scope, note("first thoughts")));
  await step(() => store.addTask(scope, newTask("build", { depends_on: ["task-1"], priority: 2 })));
  await step(() =>
    store.updateContext(scope, {
      id: "ctx-1",
      author: "bob",
      summary: "second thoughts",
      payload: notePayload("v2"),
    }),
  );
  await step(() =>
    store.writeContext(scope, {
      type: "api_contract",
      summary: "users API",
      consuming_agents: ["frontend"],
      payload: apiContractPayload(),
      author: "backend",
    }),
  );
  await step(() =>
    store.updateTask(scope, { taskId: "task-1", owner: "alice", status: "in_progress", agentId: "alice" }),
  );
  await step(() =>
    store.updateContext(scope, {
      id: "ctx-2",
      author: "backend",
      payload: { ...apiContractPayload(), version: "2" },
    }),
  );
  await step(() => store.postEvent(scope, { type: "chatter", from: "x", to: "all", payload: { n: 1 } }));
  await step(() => store.updateContext(scope, { id: "ctx-1", author: "carol", summary: "third thoughts" }));
  await step(() =>
    store.updateTask(scope, { taskId: "task-1", status: "done", agentId: "alice", note: "shipped" }),
  );
  await step(() => store.updateTask(scope, { taskId: "task-2", owner: "bob", agentId: "bob" }));
  await step(() => store.writeContext(scope, note("late idea")));
  await step(() => store.setVar(scope, "k", "v", "x"));
  await step(() => store.acquireLock(scope, "db", "x", 60_000));
  await step(() =>
    store.offerHandoff(scope, {
      from: "bob",
      to: "dave",
      taskIds: ["task-2"],
      contextIds: ["ctx-2"],
      note: "n",
      offeredBy: "bob",
      agentOffer: true,
    }),
  );
  await step(() => store.acceptHandoff(scope, { id: "hof-1", agentId: "dave" }));
  await step(() => store.addTask(scope, newTask("polish")));
  await step(() => store.markEventRead(scope, "evt-1", "reader"));
  return { scope, recorded };
}

export function forkTests(suite: Suite): void {
  test("forks at every recorded seq hold exactly the plan and context recorded there, the log prefix, then room_forked; the source is unchanged", async () => {
    const { scope, recorded } = await scriptedRoom(suite);
    const source = await snapshot(suite.store, scope);
    const sourceEvents = withoutReads(source.events);
    const head = sourceEvents.length;
    expect([...recorded.keys()].at(-1)).toBe(head);
    for (const [seq, expected] of recorded) {
      const roomId = newRoomId();
      const store = seq % 2 === 0 ? suite.store : suite.second;
      const made = await store.forkRoom(scope, { newRoomId: roomId, atSeq: seq, by: "human:alice" });
      expect(made).toEqual({ roomId, forkedFrom: { roomId: scope.roomId, seq } });
      const fork = { roomId, teamId: scope.teamId };
      expect(await stateOf(suite.store, fork), `fork at ${seq}`).toEqual(expected);
      const events = await allEvents(suite.store, fork);
      expect(withoutReads(events.slice(0, seq)), `log of fork at ${seq}`).toEqual(sourceEvents.slice(0, seq));
      expect(events).toHaveLength(seq + 1);
      expect(events[seq]).toMatchObject({
        seq: seq + 1,
        type: "room_forked",
        from: "human:alice",
        to: "all",
        payload: { from: { roomId: scope.roomId, seq } },
      });
      expect(events.every((e) => e.read_by.length === 0)).toBe(true);
    }
    expect(await snapshot(suite.store, scope)).toEqual(source);
  });

  test("the fork is a room of its own: default seq is the head, forkedFrom is shown, new ids never clash, a person drives it", async () => {
    const { scope } = await scriptedRoom(suite);
    const head = (await suite.store.roomInfo(scope)).eventCount;
    const roomId = newRoomId();
    const made = await suite.second.forkRoom(scope, {
      newRoomId: roomId,
      by: "human:alice",
      driver: "human:alice",
    });
    expect(made.forkedFrom).toEqual({ roomId: scope.roomId, seq: head });
    const fork = { roomId, teamId: scope.teamId };
    const info = await suite.store.roomInfo(fork);
    expect(info).toMatchObject({
      exists: true,
      forkedFrom: { roomId: scope.roomId, seq: head },
      taskCount: 3,
      tasksByStatus: { pending: 2, in_progress: 0, done: 1, blocked: 0 },
      contextCount: 3,
      eventCount: head + 1,
      agentCount: 0,
      driver: { holder: "human:alice", holderKind: "human", epoch: 1 },
    });
    expect((await suite.store.roomSummary(roomId))?.forkedFrom).toEqual({ roomId: scope.roomId, seq: head });
    expect((await suite.store.roomSummary(scope.roomId))?.forkedFrom).toBeUndefined();
    expect((await suite.store.addTask(fork, newTask("fork-only"))).id).toBe("task-4");
    expect(
      (
        await suite.store.writeContext(fork, {
          type: "note",
          summary: "s",
          consuming_agents: [],
          payload: notePayload(),
          author: "a",
        })
      ).id,
    ).toBe("ctx-4");
    // Not copied: locks, variables, presence, approvals.
    expect(await suite.store.listLocks(fork)).toEqual([]);
    expect(await suite.store.listVars(fork)).toEqual({});
    expect(await suite.store.listHandoffs(fork)).toEqual([]);
    // Driven by the forker: a steer at epoch 1 lands.
    await suite.store.driverAct(fork, { type: "steer", by: "human:alice", epoch: 1, to: "bot", text: "go" });
    // Writing the fork leaves the source alone.
    expect((await suite.store.readPlan(scope)).tasks.map((t) => t.title)).toEqual([
      "design",
      "build",
      "polish",
    ]);
  });

  test("refused forks change nothing: past the head, an existing target, another team's source", async () => {
    const { scope } = await scriptedRoom(suite);
    const head = (await suite.store.roomInfo(scope)).eventCount;
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.forkRoom(scope, { newRoomId: newRoomId(), atSeq: head + 1, by: "human:alice" }),
      "invalid",
      `Invalid arguments: atSeq: ${head + 1} is past the room's last event (seq ${head})`,
    );
    const taken = newRoomId();
    await suite.store.addTask({ roomId: taken, teamId: scope.teamId }, newTask("mine"));
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.forkRoom(scope, { newRoomId: taken, by: "human:alice" }),
      "conflict",
      `Room ${taken} already exists; choose another newRoomId`,
    );
    expect((await suite.store.readPlan({ roomId: taken, teamId: scope.teamId })).tasks).toHaveLength(1);
    await expectRoomError(
      suite.store.forkRoom(scope, { newRoomId: scope.roomId, by: "human:alice" }),
      "conflict",
      `Room ${scope.roomId} already exists; choose another newRoomId`,
    );
    const stranger = { roomId: newRoomId(), teamId: newTeam() };
    await suite.store.addTask(stranger, newTask("theirs"));
    await expectRoomError(
      suite.store.forkRoom(scope, { newRoomId: stranger.roomId, by: "human:alice" }),
      "denied",
      "Room not found or access denied",
    );
    const target = newRoomId();
    await expectRoomError(
      suite.store.forkRoom({ ...scope, teamId: newTeam() }, { newRoomId: target, by: "human:mallory" }),
      "denied",
      "Room not found or access denied",
    );
    expect((await suite.store.roomInfo({ roomId: target, teamId: scope.teamId })).exists).toBe(false);
  });
}
