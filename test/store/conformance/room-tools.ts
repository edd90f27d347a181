/** Reviews (only the named reviewer decides, once), filling a room from a template, and the rooms a team can use. */
import { expect, test } from "bun:test";
import { LIMITS } from "../../../src/protocol/limits.ts";
import { buildSeed, findTemplate } from "../../../src/protocol/templates.ts";
import { iso } from "../../../src/protocol/time.ts";
import type { NewReview } from "../../../src/store/types.ts";
import {
  allEvents,
  createTestClock,
  expectRefusedUnchanged,
  expectRoomError,
  newScope,
  newTask,
  newTeam,
  notePayload,
  type Suite,
} from "./harness.ts";

const ask = (extra: Partial<NewReview> = {}): NewReview => ({
  requester: "alice",
  reviewer: "bob",
  subject: "the login handler",
  details: "",
  ...extra,
});

export function reviewTests(suite: Suite): void {
  test("requestReview stores a pending review and tells the reviewer (review_requested {review})", async () => {
    const scope = newScope();
    const task = await suite.store.addTask(scope, newTask("login"));
    const entry = await suite.store.writeContext(scope, {
      type: "note",
      summary: "s",
      consuming_agents: [],
      payload: notePayload(),
      author: "alice",
    });
    await suite.store.updateContext(scope, { id: entry.id, author: "alice", summary: "s2" });
    const review = await suite.store.requestReview(
      scope,
      ask({ details: "look at errors", taskId: task.id, contextId: entry.id }),
    );
    expect(review).toEqual({
      id: "rev-1",
      status: "pending",
      requester: "alice",
      reviewer: "bob",
      subject: "the login handler",
      details: "look at errors",
      task_id: task.id,
      context_id: entry.id,
      context_version: "1.1",
      comment: null,
      created_at: iso(suite.clock.now()),
      decided_at: null,
    });
    expect((await allEvents(suite.store, scope)).at(-1)).toMatchObject({
      type: "review_requested",
      from: "alice",
      to: "bob",
      payload: { review },
    });
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.requestReview(scope, ask({ taskId: "task-99" })),
      "not_found",
      "Task not found: task-99",
    );
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.requestReview(scope, ask({ contextId: "ctx-99" })),
      "not_found",
      "Context entry not found: ctx-99",
    );
    expect((await suite.store.requestReview(scope, ask())).id).toBe("rev-2");
  });

  test("only the named reviewer decides, once; review_decided {review} goes to the requester", async () => {
    const scope = newScope();
    const review = await suite.store.requestReview(scope, ask());
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.decideReview(scope, { reviewId: review.id, agentId: "alice", status: "approved" }),
      "forbidden",
      "Review rev-1 names bob as its reviewer; only bob can approve or reject it",
    );
    suite.clock.advance(2000);
    const decided = await suite.store.decideReview(scope, {
      reviewId: review.id,
      agentId: "bob",
      status: "rejected",
      comment: "check the length",
    });
    const at = iso(suite.clock.now());
    expect(decided).toEqual({ ...review, status: "rejected", comment: "check the length", decided_at: at });
    expect((await allEvents(suite.store, scope)).at(-1)).toMatchObject({
      type: "review_decided",
      from: "bob",
      to: "alice",
      payload: { review: decided },
    });
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.decideReview(scope, { reviewId: review.id, agentId: "bob", status: "approved" }),
      "conflict",
      `Review rev-1 was already rejected by bob at ${at}`,
    );
    await expectRoomError(
      suite.store.decideReview(scope, { reviewId: "rev-9", agentId: "bob", status: "approved" }),
      "not_found",
      "Review not found: rev-9",
    );
    const approved = await suite.store.requestReview(scope, ask());
    expect(
      await suite.store.decideReview(scope, { reviewId: approved.id, agentId: "bob", status: "approved" }),
    ).toMatchObject({ status: "approved", comment: null });
  });

  test("listReviews: request order, filtered by reviewer, requester, status, task and context entry", async () => {
    const scope = newScope();
    expect(await suite.store.listReviews(scope, {})).toEqual([]);
    const task = await suite.store.addTask(scope, newTask("t"));
    const made = [];
    for (let i = 0; i < 11; i++) {
      made.push(
        await suite.store.requestReview(
          scope,
          ask({
            reviewer: i % 2 ? "bob" : "carol",
            requester: i % 3 ? "alice" : "dan",
            ...(i === 4 ? { taskId: task.id } : {}),
          }),
        ),
      );
    }
    await suite.store.decideReview(scope, { reviewId: "rev-2", agentId: "bob", status: "approved" });
    const ids = async (filter: Parameters<typeof suite.store.listReviews>[1]) =>
      (await suite.store.listReviews(scope, filter)).map((r) => r.id);
    expect(await ids({})).toEqual(made.map((r) => r.id));
    expect(await ids({ reviewer: "bob" })).toEqual(["rev-2", "rev-4", "rev-6", "rev-8", "rev-10"]);
    expect(await ids({ reviewer: "bob", status: "pending" })).toEqual(["rev-4", "rev-6", "rev-8", "rev-10"]);
    expect(await ids({ requester: "dan", reviewer: "carol" })).toEqual(["rev-1", "rev-7"]);
    expect(await ids({ status: "approved" })).toEqual(["rev-2"]);
    expect(await ids({ taskId: task.id })).toEqual(["rev-5"]);
    expect(await ids({ contextId: "ctx-1" })).toEqual([]);
  });
}

export function templateTests(suite: Suite): void {
  const seed = buildSeed(findTemplate("api-handoff"), { service: "auth", backend: "api", frontend: "web" });

  test("seedRoom fills an empty room: tasks with dependencies, context entries, their events, template_applied", async () => {
    const scope = newScope();
    await suite.store.createRoom(scope);
    const made = await suite.store.seedRoom(scope, seed, "api");
    const plan = await suite.store.readPlan(scope);
    expect(plan.tasks).toEqual(made.tasks);
    expect(made.tasks.map((t) => [t.id, t.title, t.depends_on, t.priority, t.status, t.owner])).toEqual(
      seed.tasks.map((t, i) => [
        `task-${i + 1}`,
        t.title,
        t.depends_on.map((d) => `task-${d + 1}`),
        t.priority,
        "pending",
        null,
      ]),
    );
    expect(await suite.store.listContext(scope, {})).toEqual(made.contexts);
    expect(
      made.contexts.map((c) => [c.id, c.type, c.author, c.version, c.summary, c.consuming_agents, c.payload]),
    ).toEqual(
      seed.contexts.map((c, i) => [
        `ctx-${i + 1}`,
        c.type,
        "api",
        "1.0",
        c.summary,
        c.consuming_agents,
        c.payload,
      ]),
    );
    const events = await allEvents(suite.store, scope);
    expect(events.map((e) => [e.type, e.from, e.to])).toEqual([
      ...seed.tasks.map(() => ["task_added", "api", "all"]),
      ["context_available", "api", "web"],
      ["template_applied", "api", "all"],
    ]);
    expect(events.at(-1)?.payload).toEqual({
      template: "api-handoff",
      tasks: made.tasks.map((t) => t.id),
      contexts: ["ctx-1"],
    });
    // The room is the team's now, and searchable.
    expect((await suite.store.roomStats(scope.roomId))?.owner).toBe(scope.teamId);
    const hits = await suite.store.search(scope, { terms: ["auth"], types: ["context"], limit: 5 });
    expect(hits.map((h) => h.id)).toEqual(["ctx-1"]);
  });

  test("seedRoom claims an unowned room and refuses one with tasks, context or events", async () => {
    const fresh = newScope();
    expect((await suite.store.seedRoom(fresh, seed, "api")).tasks).toHaveLength(seed.tasks.length);
    expect((await suite.store.roomStats(fresh.roomId))?.owner).toBe(fresh.teamId);
    const message = (roomId: string) =>
      `Room ${roomId} already has tasks, context or events; a template only fills a new or empty room, so choose a new roomId`;
    await expectRefusedUnchanged(
      suite.store,
      fresh,
      () => suite.store.seedRoom(fresh, seed, "api"),
      "conflict",
      message(fresh.roomId),
    );
    const withContext = newScope();
    await suite.store.writeContext(withContext, {
      type: "note",
      summary: "s",
      consuming_agents: [],
      payload: notePayload(),
      author: "a",
    });
    await expectRefusedUnchanged(
      suite.store,
      withContext,
      () => suite.store.seedRoom(withContext, seed, "api"),
      "conflict",
      message(withContext.roomId),
    );
    const withEvent = newScope();
    await suite.store.postEvent(withEvent, { type: "hello", from: "a", to: "all", payload: {} });
    await expectRoomError(
      suite.store.seedRoom(withEvent, seed, "api"),
      "conflict",
      message(withEvent.roomId),
    );
    const locked = newScope();
    await suite.store.createRoom(locked);
    await suite.store.acquireLock(locked, "plan", "carol", 60_000);
    await expectRoomError(
      suite.store.seedRoom(locked, seed, "api"),
      "locked",
      /^Plan is locked by carol until /,
    );
    expect(await suite.store.seedRoom(locked, seed, "carol")).toMatchObject({
      contexts: [{ author: "carol" }],
    });
    const foreign = { ...fresh, teamId: newTeam() };
    await expectRoomError(
      suite.store.seedRoom(foreign, seed, "api"),
      "denied",
      "Room not found or access denied",
    );
  });

  test("usableRooms: the team's live rooms, oldest claim first; never another team's", async () => {
    const clock = createTestClock();
    const store = await suite.factory.open(clock.now);
    try {
      const team = newTeam();
      const first = { ...newScope(), teamId: team };
      const second = { ...newScope(), teamId: team };
      expect(await store.usableRooms(team)).toEqual([]);
      await store.createRoom(first);
      const firstAt = iso(clock.now());
      clock.advance(LIMITS.roomTtlMs / 2);
      await store.addTask(second, newTask("t"));
      const secondAt = iso(clock.now());
      await store.addTask({ ...newScope(), teamId: newTeam() }, newTask("elsewhere"));
      expect(await store.usableRooms(team)).toEqual([
        { roomId: first.roomId, createdAt: firstAt },
        { roomId: second.roomId, createdAt: secondAt },
      ]);
      // 30 days after its last use a room has expired: only the room used since is left.
      clock.advance(LIMITS.roomTtlMs / 2);
      await store.readPlan(second);
      await store.addTask(second, newTask("used"));
      expect(await store.usableRooms(team)).toEqual([{ roomId: second.roomId, createdAt: secondAt }]);
      clock.advance(LIMITS.roomTtlMs / 2 + 1000);
      expect(await store.usableRooms(team)).toEqual([{ roomId: second.roomId, createdAt: secondAt }]);
      await store.deleteRoom(second);
      expect(await store.usableRooms(team)).toEqual([]);
    } finally {
      await store.close();
    }
  });
}
