/**
 * Search with every writer of tasks, context and posted events (docs/protocol.md#search): a room filled by a
 * template and changed by claims, handoffs, leave_room, a lease running out, deletions and a title change — and a
 * fork of it — answers every query exactly like a room built to the same records by plain writes, on every driver.
 */
import { expect, test } from "bun:test";
import { queryTerms, SEARCH_KINDS, type SearchHit } from "../../../src/protocol/search.ts";
import { buildSeed, findTemplate } from "../../../src/protocol/templates.ts";
import type { RoomScope, RoomStore } from "../../../src/store/types.ts";
import { claimedRoom, type Suite } from "./harness.ts";

const LEASE = 3_600_000;
const as = (scope: RoomScope, actor: string): RoomScope => ({ ...scope, actor });

/** Every word of the room's records as a query, and a few of two words; event ids differ between rooms (seqs). */
async function answers(store: RoomStore, scope: RoomScope, queries: string[]) {
  const out: Record<string, (Omit<SearchHit, "id"> & { ref: string })[]> = {};
  for (const q of queries) {
    const hits = await store.search(scope, { terms: queryTerms(q), types: SEARCH_KINDS, limit: 50 });
    out[q] = hits.map(({ id, ...hit }) => ({ ...hit, ref: hit.type === "event" ? "event" : id }));
  }
  return out;
}

export function togetherSearchTests(suite: Suite): void {
  test("search after templates, claims, handoffs, leaving, a lapsed lease, deletions and a fork equals search on plain writes", async () => {
    const { store, clock } = suite;
    const seed = buildSeed(findTemplate("api-handoff"), {
      service: "billing",
      backend: "api",
      frontend: "web",
    });
    const post = (scope: RoomScope) =>
      store.postEvent(scope, {
        type: "question",
        from: "web",
        to: "all",
        payload: { text: "does the billing client retry?", refs: ["task-2"] },
      });

    // A: the template, then claims, a handoff, leave_room, a lease that runs out, a title change, deletions.
    const a = await claimedRoom(store);
    await store.seedRoom(a, seed, "api");
    await store.claimTask(as(a, "api"), { taskId: "task-1", agentId: "api", leaseMs: LEASE });
    await store.offerHandoff(a, {
      from: "api",
      to: "web",
      taskIds: ["task-1"],
      contextIds: ["ctx-1"],
      note: "contract is yours",
      offeredBy: "api",
      agentOffer: true,
    });
    await store.acceptHandoff(a, { id: "hof-1", agentId: "web" });
    await store.updateTask(a, { taskId: "task-1", status: "done", agentId: "web" });
    await store.claimTask(as(a, "api"), { taskId: "task-2", agentId: "api", leaseMs: 1000 });
    clock.advance(1000);
    await store.claimTask(as(a, "ops"), { taskId: "task-2", agentId: "ops", leaseMs: LEASE });
    await store.leaveRoom(a, "ops");
    await store.updateTask(a, {
      taskId: "task-3",
      title: "Build the billing client with retries",
      agentId: "x",
    });
    await store.deleteTask(a, { taskId: "task-4", agentId: "x" });
    await post(a);
    const dropped = await post(a);
    await store.deleteEvent(a, { eventId: dropped.id, by: "web" });

    // B: the same records by plain writes.
    const b = await claimedRoom(store);
    const ids: string[] = [];
    for (const t of seed.tasks) {
      const task = await store.addTask(b, {
        title: t.title,
        description: t.description,
        depends_on: t.depends_on.map((i) => ids[i] as string),
        priority: t.priority,
        agentId: "api",
      });
      ids.push(task.id);
    }
    for (const c of seed.contexts) await store.writeContext(b, { ...c, author: "api" });
    await store.updateTask(b, { taskId: "task-1", owner: "web", status: "done", agentId: "web" });
    await store.updateTask(b, {
      taskId: "task-3",
      title: "Build the billing client with retries",
      agentId: "x",
    });
    await store.deleteTask(b, { taskId: "task-4", agentId: "x" });
    await post(b);

    const words = new Set<string>();
    for (const t of (await store.readPlan(b)).tasks)
      for (const w of queryTerms(`${t.title} ${t.description}`)) words.add(w);
    for (const c of await store.listContext(b, {})) for (const w of queryTerms(c.summary)) words.add(w);
    const queries = [...words, "billing client", "question retry", "contract stub"];
    const expected = await answers(store, b, queries);
    expect(Object.values(expected).every((hits) => hits.length > 0)).toBe(true);
    expect(await answers(suite.second, a, queries)).toEqual(expected);

    // A fork of A at its head: the same answers, whichever instance made it.
    const fork = { roomId: `f-${crypto.randomUUID().slice(0, 10)}`, teamId: a.teamId };
    await suite.second.forkRoom(a, { newRoomId: fork.roomId, by: "human:x" });
    expect(await answers(store, fork, queries)).toEqual(expected);
    // Written after the fork, the fork's index moves on by itself.
    const task2 = await store.getTask(fork, "task-2");
    await store.updateTask(fork, {
      taskId: "task-2",
      title: "Implement invoices",
      agentId: "x",
      expectedVersion: task2.version,
    });
    expect(
      (await store.search(fork, { terms: ["invoices"], types: SEARCH_KINDS, limit: 5 })).map((h) => h.id),
    ).toEqual(["task-2"]);
    expect(await store.search(a, { terms: ["invoices"], types: SEARCH_KINDS, limit: 5 })).toEqual([]);
  });
}
