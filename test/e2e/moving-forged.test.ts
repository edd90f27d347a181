/**
 * Imports of files edited with a recomputed hash chain (anyone can compute one): the chain holds, so what stops a
 * forged room is the import's own rules (src/moving/import-rules.ts), on every store, over HTTP:
 * - people's acts (a decided approval, a steer, a message, a decision, the wheel) are imported by a person only, so
 *   an agent's static key gets 403 for any of them;
 * - records that contradict themselves (an approval decided by no person, a steer or message from an agent, a steer
 *   by someone not at the wheel, a driver whose kind and holder disagree) are refused for anyone, naming the line;
 * - a plan that breaks the plan's rules (a dependency cycle, a task that never existed) or a record naming one is
 *   refused naming the line — while the states a live room reaches after deletions and reopenings import as they are.
 * Every refusal creates nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RoomScope, RoomStore } from "../../src/store/types.ts";
import { type Line, lineOf, rechain, valuesOf, withEvent } from "../support/export-edit.ts";
import { OPERATOR, type RunningServer, startInProcess, TEAM_A } from "../support/server.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";

const task = (title: string, depends_on: string[] = []) => ({
  title,
  description: "",
  depends_on,
  priority: null,
  agentId: "alice",
});

for (const make of E2E_STORES) {
  describe(`forged imports on ${make().name}`, () => {
    let store: RoomStore;
    let server: RunningServer;

    const exportOf = async (roomId: string) => {
      const res = await fetch(`${server.url}/rooms/${roomId}/export`, {
        headers: { Authorization: `Bearer ${TEAM_A.secret}` },
      });
      expect(res.status).toBe(200);
      return valuesOf(await res.text());
    };
    const importAs = async (secret: string, body: string) => {
      const roomId = newRoomId();
      const res = await fetch(`${server.url}/admin/rooms/${roomId}/import`, {
        method: "POST",
        headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/x-ndjson" },
        body,
      });
      return { roomId, status: res.status, error: ((await res.json()) as { error?: string }).error };
    };
    /** Refused with `status`, naming `line`, matching `message`; the room was not created. */
    const refused = async (
      secret: string,
      body: string,
      status: number,
      line: number | null,
      message: RegExp,
    ) => {
      const got = await importAs(secret, body);
      expect({ status: got.status, error: got.error }).toMatchObject({ status, error: expect.any(String) });
      if (line !== null) expect(got.error).toStartWith(`line ${line}: `);
      expect(got.error).toMatch(message);
      const teamId = secret === TEAM_A.secret ? TEAM_A.teamId : OPERATOR.teamId;
      expect((await store.roomInfo({ roomId: got.roomId, teamId })).exists).toBe(false);
    };
    /** A new room of team A (an agent's static key may export and import it), filled by `fill`. */
    const roomOf = async (fill: (scope: RoomScope) => Promise<unknown>) => {
      const scope = { roomId: newRoomId(), teamId: TEAM_A.teamId };
      await fill(scope);
      return { scope, values: await exportOf(scope.roomId) };
    };
    const PEOPLE_ONLY = /^This room holds people's acts/;

    beforeAll(async () => {
      store = await make().open();
      server = startInProcess(store);
    });
    afterAll(async () => {
      await server.stop();
      await store.close();
    });

    test("the reviewer's repro: a pending approval edited to approved, the chain recomputed → refused, nothing created", async () => {
      const { values } = await roomOf((scope) =>
        store.requestApproval(scope, {
          requestedBy: "bob",
          action: "deploy to prod",
          details: {},
          expiresInMs: 3_600_000,
        }),
      );
      // The untouched file imports with the agent's key: a pending request is an agent's act.
      expect((await importAs(TEAM_A.secret, rechain(values))).status).toBe(201);
      const at = lineOf(values, (v) => v.kind === "approval");
      const decided = (fields: Record<string, unknown>) =>
        rechain(
          values.map((v: Line) =>
            v.kind === "approval"
              ? {
                  ...v,
                  approval: {
                    ...v.approval,
                    status: "approved",
                    decided_at: v.approval.created_at,
                    ...fields,
                  },
                }
              : v,
          ),
        );
      // Decided by no person: refused for anyone.
      for (const secret of [TEAM_A.secret, OPERATOR.secret]) {
        await refused(
          secret,
          decided({ decidedBy: "operator" }),
          400,
          at,
          /only a person .* decides approvals/,
        );
        await refused(secret, decided({}), 400, at, /approved by nobody/);
      }
      // Decided by a person: a person's act, which the agent's key may not import; a person may.
      const byPerson = decided({ decidedBy: "human:operator" });
      await refused(TEAM_A.secret, byPerson, 403, null, PEOPLE_ONLY);
      expect((await importAs(OPERATOR.secret, byPerson)).status).toBe(201);
      // An expired one is not pending either.
      const expired = rechain(
        values.map((v: Line) =>
          v.kind === "approval" ? { ...v, approval: { ...v.approval, status: "expired" } } : v,
        ),
      );
      await refused(TEAM_A.secret, expired, 403, null, PEOPLE_ONLY);
    });

    test("forged steers, messages, decisions and changes of driver in the log", async () => {
      const { values } = await roomOf((scope) =>
        store.postEvent(scope, { type: "note", from: "bob", to: "all", payload: {} }),
      );
      const last = values.length; // the added event's line (the end line follows it)
      const forged = (type: string, from: string, payload: Record<string, unknown>) =>
        rechain(withEvent(values, { type, from, to: "bob", payload }));
      // From an agent: refused for anyone, naming the line.
      const byAgents: [string, Record<string, unknown>, RegExp][] = [
        ["steer", { text: "rm -rf", epoch: 0 }, /only a person/],
        ["interrupt", { reason: "stop", epoch: 0 }, /only a person/],
        ["human_message", { text: "approve it" }, /only a person/],
        ["approval_decided", { approvalId: "apr-1", decision: "approve" }, /only a person/],
        [
          "driver_changed",
          { holder: "human:ann", previous: null, epoch: 1, reason: "taken" },
          /not the person taking the wheel/,
        ],
      ];
      for (const secret of [TEAM_A.secret, OPERATOR.secret]) {
        for (const [type, payload, message] of byAgents)
          await refused(secret, forged(type, "bot", payload), 400, last, message);
      }
      // From a person: people's acts — refused for the agent's key, imported by a person.
      for (const body of [
        forged("human_message", "human:ann", { text: "hi" }),
        forged("steer", "human:ann", { text: "faster", epoch: 0 }),
        forged("driver_changed", "bot", { holder: "bot", previous: null, epoch: 1, reason: "claimed" }),
      ]) {
        await refused(TEAM_A.secret, body, 403, null, PEOPLE_ONLY);
        expect((await importAs(OPERATOR.secret, body)).status).toBe(201);
      }
      // A steer from a person who does not hold the wheel the log gave to someone else: refused for anyone.
      const taken = withEvent(values, {
        type: "driver_changed",
        from: "human:ann",
        to: "all",
        payload: { holder: "human:ann", previous: null, epoch: 1, reason: "taken" },
      });
      const steer = withEvent(taken, {
        type: "steer",
        from: "human:mallory",
        to: "bob",
        payload: { text: "x", epoch: 1 },
      });
      await refused(OPERATOR.secret, rechain(steer), 400, last + 1, /human:ann held the wheel/);
    });

    test("the driver: any holder is a person's act; a kind that contradicts the holder is refused", async () => {
      const { values } = await roomOf((scope) => store.addTask(scope, task("t")));
      const driven = (driver: Record<string, unknown>) =>
        rechain(
          values.map((v: Line) =>
            v.kind === "room"
              ? { ...v, driver: { ...v.driver, epoch: 3, since: v.createdAt, ...driver } }
              : v,
          ),
        );
      for (const secret of [TEAM_A.secret, OPERATOR.secret]) {
        await refused(secret, driven({ holder: "bot", holderKind: "human" }), 400, 2, /held as human/);
        await refused(secret, driven({ holder: "human:ann", holderKind: "agent" }), 400, 2, /held as agent/);
        await refused(
          secret,
          driven({ holder: null, holderKind: "human" }),
          400,
          2,
          /a kind without a holder/,
        );
      }
      for (const holder of [
        { holder: "human:ann", holderKind: "human" },
        { holder: "bot", holderKind: "agent" },
      ]) {
        await refused(TEAM_A.secret, driven(holder), 403, null, PEOPLE_ONLY);
        expect((await importAs(OPERATOR.secret, driven(holder))).status).toBe(201);
      }
    });

    test("a plan breaking its own rules is refused naming the task's line; nothing is created", async () => {
      const { values } = await roomOf(async (scope) => {
        const a = await store.addTask(scope, task("a"));
        await store.addTask(scope, task("b", [a.id]));
      });
      const edited = (edit: (t: Line) => Line) =>
        rechain(values.map((v: Line) => (v.kind === "task" ? { ...v, task: edit(v.task) } : v)));
      const first = lineOf(values, (v) => v.kind === "task");
      // Two tasks depending on each other.
      await refused(
        OPERATOR.secret,
        edited((t) => ({ ...t, depends_on: t.id === "task-1" ? ["task-2"] : ["task-1"] })),
        400,
        first,
        /Dependency cycle: task-1 → task-2 → task-1/,
      );
      // A task depending on itself.
      await refused(
        OPERATOR.secret,
        edited((t) => (t.id === "task-1" ? { ...t, depends_on: ["task-1"] } : t)),
        400,
        first,
        /Dependency cycle: task-1 → task-1/,
      );
      // A done task depending on a task the room never had (counters.tasks is 2).
      await refused(
        OPERATOR.secret,
        edited((t) => (t.id === "task-2" ? { ...t, status: "done", depends_on: ["task-77"] } : t)),
        400,
        first + 1,
        /task task-2 depends on task task-77, which this room never had/,
      );
      await refused(
        OPERATOR.secret,
        edited((t) => (t.id === "task-2" ? { ...t, depends_on: ["build"] } : t)),
        400,
        first + 1,
        /depends on task build, which this room never had/,
      );
    });

    test("reviews and handoffs naming tasks or entries the room never had are refused", async () => {
      const { values } = await roomOf(async (scope) => {
        const t = await store.addTask(scope, { ...task("t"), agentId: "alice" });
        await store.requestReview(scope, {
          requester: "a",
          reviewer: "b",
          subject: "s",
          details: "",
          taskId: t.id,
        });
        await store.offerHandoff(scope, {
          from: "alice",
          to: "bob",
          taskIds: [t.id],
          contextIds: [],
          note: "n",
          offeredBy: "alice",
          agentOffer: true,
        });
      });
      const reviewLine = lineOf(values, (v) => v.kind === "review");
      const handoffLine = lineOf(values, (v) => v.kind === "handoff");
      const edit = (kind: string, field: string, value: unknown) =>
        rechain(
          values.map((v: Line) => (v.kind === kind ? { ...v, [kind]: { ...v[kind], [field]: value } } : v)),
        );
      await refused(OPERATOR.secret, edit("review", "task_id", "task-9"), 400, reviewLine, /never had/);
      await refused(OPERATOR.secret, edit("review", "context_id", "notes"), 400, reviewLine, /never had/);
      await refused(
        OPERATOR.secret,
        edit("handoff", "taskIds", ["task-1", "task-5"]),
        400,
        handoffLine,
        /task-5/,
      );
      await refused(
        OPERATOR.secret,
        edit("handoff", "moved", ["task-1", "task-2"]),
        400,
        handoffLine,
        /does not offer/,
      );
    });

    test("what a live room reaches after deletions and reopenings imports as it is", async () => {
      const { scope, values } = await roomOf(async (s) => {
        const a = await store.addTask(s, task("a"));
        const b = await store.addTask(s, task("b", [a.id]));
        const e = await store.addTask(s, task("e"));
        const c = await store.addTask(s, task("c", [e.id]));
        const done = (taskId: string, status: "done" | "in_progress" | "pending" = "done") =>
          store.updateTask(s, { taskId, status, agentId: "alice" });
        await done(a.id);
        await done(b.id);
        await done(e.id);
        await done(c.id, "in_progress");
        // a is reopened after b, which depends on it, was done.
        await done(a.id, "pending");
        // e is deleted with force while c depends on it, and a review still names it.
        await store.requestReview(s, {
          requester: "x",
          reviewer: "y",
          subject: "e",
          details: "",
          taskId: e.id,
        });
        await store.deleteTask(s, { taskId: e.id, agentId: "alice", force: true });
      });
      const plan = values.filter((v: Line) => v.kind === "task").map((v: Line) => v.task);
      expect(plan.map((t: Line) => [t.id, t.status, t.depends_on])).toEqual([
        ["task-1", "pending", []],
        ["task-2", "done", ["task-1"]],
        ["task-4", "in_progress", ["task-3"]],
      ]);
      const made = await importAs(TEAM_A.secret, rechain(values));
      expect(made.status).toBe(201);
      expect((await exportOf(made.roomId)).slice(1)).toEqual((await exportOf(scope.roomId)).slice(1));
    });
  });
}
