/**
 * A room holding one of everything a room can hold, written through the store's own operations: tasks with
 * dependencies, a lease and a deletion; context with history and a deletion; events with a reply, read receipts
 * and a tombstone; variables; reviews, approvals, handoffs, verdicts; the driver with steers and interrupts;
 * people's messages; lock fences; file claims; cursors, summary marks and the bridge's marks. Export, import and
 * migration tests move it and compare.
 */
import type { RoomScope, RoomStore } from "../../src/store/types.ts";

const task = (title: string, depends_on: string[] = [], priority: number | null = null) => ({
  title,
  description: `${title}, in detail`,
  depends_on,
  priority,
  agentId: "alice",
});

/** Fills `scope`'s room (claiming it for its team). `tag` varies the words, so rooms of one team differ. */
export async function fillRoom(store: RoomStore, scope: RoomScope, tag = "alpha"): Promise<void> {
  const t1 = await store.addTask(scope, task(`Design the ${tag} schema`));
  const t2 = await store.addTask(scope, task(`Build the ${tag} API`, [t1.id], 2));
  const t3 = await store.addTask(scope, task(`Write ${tag} docs`, [], 1));
  const t4 = await store.addTask(scope, task("Throwaway"));
  await store.deleteTask(scope, { taskId: t4.id, agentId: "alice" });
  await store.updateTask(scope, { taskId: t1.id, status: "in_progress", owner: "alice", agentId: "alice" });
  await store.updateTask(scope, { taskId: t1.id, status: "done", note: "shipped", agentId: "alice" });
  await store.claimTask(scope, { taskId: t3.id, agentId: "bob", leaseMs: 3_600_000 });

  const contract = await store.writeContext(scope, {
    type: "api_contract",
    summary: `The ${tag} users API`,
    consuming_agents: ["bob", "carol"],
    payload: {
      service: "users",
      version: "1",
      endpoints: [
        {
          method: "GET",
          path: "/users/:id",
          response: { id: "string" },
          auth_required: true,
          description: "one",
        },
      ],
    },
    author: "alice",
  });
  await store.updateContext(scope, {
    id: contract.id,
    author: "alice",
    summary: `The ${tag} users API, v2`,
    payload: {
      service: "users",
      version: "2",
      endpoints: [
        {
          method: "GET",
          path: "/users/:id",
          response: { id: "string", n: 1.5 },
          auth_required: true,
          description: "one",
        },
      ],
    },
  });
  await store.writeContext(scope, {
    type: "note",
    summary: "A note for bob",
    consuming_agents: ["bob"],
    payload: { text: `note about ${tag}`, references: ["x"] },
    author: "carol",
  });
  const gone = await store.writeContext(scope, {
    type: "note",
    summary: "Soon gone",
    consuming_agents: [],
    payload: { text: "bye" },
    author: "alice",
  });
  await store.deleteContext(scope, { id: gone.id, agentId: "alice" });

  const question = await store.postEvent(scope, {
    type: "question",
    from: "bob",
    to: "alice",
    payload: { text: `Which ${tag} port?`, nested: { deep: [1, "two", null, true] }, unicode: "café ☕" },
  });
  await store.postEvent(scope, {
    type: "answer",
    from: "alice",
    to: "bob",
    payload: { text: "8080" },
    replyToId: question.id,
  });
  await store.markEventRead(scope, question.id, "alice");
  await store.markEventRead(scope, question.id, "carol");
  const oops = await store.postEvent(scope, {
    type: "oops",
    from: "bob",
    to: "all",
    payload: { secret: "x" },
  });
  await store.deleteEvent(scope, { eventId: oops.id, by: "bob" });
  await store.setVar(scope, "port", "8080", "alice");
  await store.setVar(scope, "url", `https://${tag}.example.com/ünïcode`, "bob");

  const review = await store.requestReview(scope, {
    requester: "alice",
    reviewer: "bob",
    subject: "the schema",
    details: "please",
    taskId: t1.id,
    contextId: contract.id,
  });
  await store.decideReview(scope, {
    reviewId: review.id,
    agentId: "bob",
    status: "approved",
    comment: "lgtm",
  });
  await store.requestReview(scope, { requester: "carol", reviewer: "alice", subject: "docs", details: "" });

  const approval = await store.requestApproval(scope, {
    requestedBy: "bob",
    action: "deploy",
    details: { env: "prod", sha: "abc" },
    expiresInMs: 3_600_000,
  });
  await store.decideApproval(scope, {
    id: approval.id,
    decidedBy: "human:ann",
    decision: "approve",
    note: "ok",
  });
  await store.requestApproval(scope, {
    requestedBy: "carol",
    action: "drop",
    details: {},
    expiresInMs: 60_000,
  });

  const driver = await store.takeDriver(scope, { holder: "human:ann", kind: "human" });
  await store.driverAct(scope, {
    type: "steer",
    by: "human:ann",
    epoch: driver.epoch,
    to: "bob",
    text: "faster",
  });
  await store.driverAct(scope, {
    type: "interrupt",
    by: "human:ann",
    epoch: driver.epoch,
    to: "carol",
    text: "stop",
  });
  await store.postEvent(scope, {
    type: "human_message",
    from: "human:ann",
    to: "bob",
    payload: { text: "hi bob" },
  });

  const offer = await store.offerHandoff(scope, {
    from: "alice",
    to: "bob",
    taskIds: [t2.id],
    contextIds: [contract.id],
    note: "yours now",
    offeredBy: "alice",
    agentOffer: true,
  });
  await store.acceptHandoff(scope, { id: offer.id, agentId: "bob" });
  const later = await store.offerHandoff(scope, {
    from: "human:ann",
    to: "any",
    taskIds: [],
    contextIds: [],
    note: "anyone?",
    offeredBy: "human:ann",
    agentOffer: false,
  });
  await store.cancelHandoff(scope, { id: later.id, by: "human:ann" });
  await store.recordVerdict(scope, {
    by: "carol",
    verdict: "pass",
    summary: "tests pass",
    details: "all 12",
    ref: "https://ci.example.com/runs/1",
  });

  await store.acquireLock(scope, "deploy", "alice", 30_000);
  await store.releaseLock(scope, "deploy", "alice");
  await store.acquireLock(scope, "deploy", "bob", 30_000);
  await store.claimFiles(scope, {
    agentId: "bob",
    paths: ["src/api/**", "docs/readme.md"],
    ttlMs: 600_000,
    reason: "api",
  });

  await store.consumeEvents(scope, "bob", 5);
  await store.summary(scope, "carol", 100);
  await store.bridge(scope, { agentId: "bob", hook: "SessionStart" });
  await store.bridge(scope, { agentId: "bob", hook: "PostToolUse" });
  await store.bridge(scope, { agentId: "carol", hook: "PreToolUse" });
  await store.heartbeat(scope, "dave", "looking around");
}
