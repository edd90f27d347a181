/**
 * The timeline's one formatter (src/protocol/timeline.ts): every event type roomd appends reads as a sentence with
 * its substance — checked on the events a real store writes for a room holding one of everything, and on the
 * documented payloads of the types that room does not produce — a payload-free event (the public view) reads as
 * its short form, no payload shape makes it throw, and the words are the same ones roomctl watch prints.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ROOMD_EVENT_TYPES } from "../../src/protocol/event-types.ts";
import type { RoomEvent } from "../../src/protocol/records.ts";
import {
  describeEvent,
  EVENT_KINDS,
  type EventLike,
  eventKind,
  lineText,
} from "../../src/protocol/timeline.ts";
import { TEXT_MAX } from "../../src/protocol/timeline-parts.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { fillRoom } from "../support/rich-room.ts";
import { newRoomId, sqliteE2e } from "../support/stores.ts";

const sentence = (e: EventLike) => lineText(describeEvent(e).parts);
/** The short form: what the same event says without its payload. */
const short = (e: EventLike) => sentence({ ...e, payload: undefined });

/** Documented payloads (docs/protocol.md#events-roomd-appends-itself) of the types the rich room leaves out. */
const SAMPLES: EventLike[] = [
  { type: "room_forked", from: "human:ann", to: "all", payload: { from: { roomId: "shop", seq: 41 } } },
  {
    type: "room_forked",
    from: "human:ann",
    to: "all",
    payload: {
      from: { roomId: "shop", seq: 41 },
      released: [{ id: "task-3", title: "Docs", status: "pending", owner: null, version: 3 }],
    },
  },
  {
    type: "webhook_disabled",
    from: "system",
    to: "all",
    payload: { webhookId: "wh_1", reason: "failing", consecutiveFailures: 8 },
  },
  {
    type: "agent_step",
    from: "backend",
    to: "all",
    payload: { tool: "Edit", target: "src/cart.ts", ok: false },
  },
  {
    type: "files_claim_expired",
    from: "system",
    to: "all",
    payload: { path: "src/**", heldBy: "bob", expiredAt: "2026-01-01T00:00:00.000Z" },
  },
  {
    type: "task_lease_expired",
    from: "system",
    to: "all",
    payload: {
      taskId: "task-3",
      previousOwner: "bob",
      task: { id: "task-3", title: "Docs", status: "pending" },
    },
  },
  {
    type: "template_applied",
    from: "alice",
    to: "all",
    payload: { template: "web-app", tasks: ["task-1", "task-2"], contexts: ["ctx-1"] },
  },
  {
    type: "handoff_declined",
    from: "bob",
    to: "alice",
    payload: { handoffId: "hof-2", by: "bob", reason: "no time" },
  },
  {
    type: "agent_left",
    from: "bob",
    to: "all",
    payload: { agentId: "bob", tasks: ["task-3"], paths: ["a", "b"], locks: ["deploy"] },
  },
  { type: "broadcast", from: "bob", to: "all", payload: { message: "lunch", status: "away" } },
  {
    type: "approval_requested",
    from: "bob",
    to: "all",
    payload: { approval: { id: "apr-1", action: "deploy to prod", requestedBy: "bob" } },
  },
  {
    type: "driver_changed",
    from: "human:ann",
    to: "all",
    payload: { holder: "human:ann", previous: "agent-x", epoch: 3, reason: "taken_from_agent" },
  },
];

let store: RoomStore;
let events: RoomEvent[] = [];

beforeAll(async () => {
  store = await sqliteE2e().open();
  const scope = { roomId: newRoomId(), teamId: "timeline" };
  await fillRoom(store, scope);
  await store.leaveRoom(scope, "bob");
  await store.suspendAgent(scope, { agentId: "carol", by: "human:ann", reason: "looping" });
  await store.resumeAgent(scope, { agentId: "carol", by: "human:ann" });
  events = (await store.readEvents(scope, { limit: 500 })).reverse();
});
afterAll(() => store?.close());

describe("the timeline's sentences", () => {
  test("every type roomd appends has a full sentence: on a real room's log, or on its documented payload", () => {
    const seen = new Set<string>();
    for (const e of [...events, ...SAMPLES]) {
      if ((e as RoomEvent).deleted) continue;
      const text = sentence(e);
      expect(`${e.type}: ${text}`).not.toBe(`${e.type}: ${short(e)}`);
      expect(text).not.toMatch(/undefined|null|\[object/);
      seen.add(e.type);
      if (process.env.SHOW_SENTENCES) console.log(text);
    }
    const missing = [...ROOMD_EVENT_TYPES].filter((t) => !seen.has(t));
    expect(missing).toEqual([]);
  });

  test("they carry the substance: who, what, the text, the ids", () => {
    const text = (type: string) => events.filter((e) => e.type === type).map(sentence);
    expect(text("task_added")).toContain("alice added task-2 “Build the alpha API” (depends on task-1)");
    expect(text("task_updated")).toContain("alice finished task-1 “Design the alpha schema”: shipped");
    expect(text("task_updated")).toContain("alice started task-1 “Design the alpha schema”");
    expect(text("steer")).toEqual(["ann steered bob: faster"]);
    expect(text("interrupt")).toEqual(["ann interrupted carol: stop"]);
    expect(text("human_message")).toEqual(["ann wrote to bob: hi bob"]);
    expect(text("context_updated")).toContain(
      "context api_contract `ctx-1` v1.1 by alice (for bob, carol): The alpha users API, v2",
    );
    expect(text("question")).toEqual(["bob asked alice: Which alpha port?"]);
    const asked = events.find((e) => e.type === "question")?.seq;
    expect(text("answer")).toEqual([`alice answered bob (reply to #${asked}): 8080`]);
    expect(text("approval_decided")).toEqual(["ann approved “deploy” (apr-1): ok"]);
    expect(text("verdict_recorded")).toEqual(["carol recorded a pass verdict: tests pass"]);
    expect(text("files_claimed")).toContain("bob claimed `src/api/**`, `docs/readme.md`: api");
    expect(text("agent_left")).toEqual([
      "bob left the room and released task-3; 2 file claims; lock `deploy`",
    ]);
    const suspended = {
      type: "agent_suspended",
      from: "human:ann",
      to: "all",
      payload: {
        agentId: "bob",
        by: "human:ann",
        reason: "looping",
        tasks: ["task-3"],
        paths: ["a"],
        locks: [],
      },
    };
    expect(sentence(suspended)).toBe("ann suspended bob: looping; released task-3; 1 file claim");
    expect(sentence({ ...suspended, payload: { ...suspended.payload, tasks: [], paths: [] } })).toBe(
      "ann suspended bob: looping",
    );
    expect(
      sentence({
        type: "agent_resumed",
        from: "key:k_t_1",
        to: "all",
        payload: { agentId: "bob", by: "key:k_t_1" },
      }),
    ).toBe("key:k_t_1 resumed bob");
    expect(sentence({ type: "agent_suspended", from: "human:ann", to: "all" })).toBe(
      "ann suspended an agent",
    );
    expect(SAMPLES.map(sentence)).toEqual([
      "ann forked this room from `shop` at event #41",
      "ann forked this room from `shop` at event #41, releasing the leases on task-3",
      "webhook `wh_1` was turned off: it failed 8 times in a row",
      "backend ran `Edit` on src/cart.ts (failed)",
      "bob's claim on `src/**` ran out",
      "bob's lease on task-3 “Docs” ran out; the task is open again",
      "alice applied the template `web-app` (2 tasks, 1 context entry)",
      "bob declined hof-2: no time",
      "bob left the room and released task-3; 2 file claims; lock `deploy`",
      "bob wrote to everyone: lunch (status: away)",
      "bob asks for approval: “deploy to prod” (apr-1)",
      "ann took the wheel from agent-x",
    ]);
  });

  test("a payload-free event (the public view) says who did what; a tombstone says it was deleted", () => {
    const steer = events.find((e) => e.type === "steer") as RoomEvent;
    expect(short(steer)).toBe("ann steered bob");
    expect(short(events.find((e) => e.type === "task_added") as RoomEvent)).toBe("alice added a task");
    const tombstone = events.find((e) => e.deleted) as RoomEvent;
    expect(sentence(tombstone)).toBe("bob posted `oops` (deleted by bob)");
  });

  test("an agent's own type reads with its payload's gist; odd payloads never throw", () => {
    const post = (type: string, payload: Record<string, unknown>, to = "all") =>
      sentence({ type, from: "qa", to, payload });
    expect(post("test_run", { passed: 41, failed: 0, suite: "unit" })).toBe(
      "qa posted `test_run`: passed: 41, failed: 0, suite: unit",
    );
    expect(post("status", { nested: { a: [1] } }, "bob")).toBe(
      'qa posted `status` to bob: {"nested":{"a":[1]}}',
    );
    expect(post("ping", {})).toBe("qa posted `ping`");
    const long = post("note", { text: `${"word ".repeat(200)}\n\tend` });
    expect(long.length).toBeLessThan(TEXT_MAX + 40);
    expect(long).not.toMatch(/[\n\t]/);
    const odd = [null, 3, "x", [], { task: "x" }, { task: { id: 5 } }, { paths: "a" }, { approval: [] }];
    for (const type of [...ROOMD_EVENT_TYPES, "anything"])
      for (const payload of odd) {
        const e = { type, from: "x", to: "all", payload: { task: payload, review: payload, from: payload } };
        expect(() => sentence(e)).not.toThrow();
        expect(sentence(e)).not.toMatch(/undefined|\[object/);
      }
  });

  test("kinds: every roomd type has one of work, talk, people, system; agents' types are talk", () => {
    for (const type of ROOMD_EVENT_TYPES) expect(EVENT_KINDS).toContain(eventKind(type));
    expect(eventKind("task_added")).toBe("work");
    expect(eventKind("human_message")).toBe("talk");
    expect(eventKind("steer")).toBe("people");
    expect(eventKind("agent_left")).toBe("system");
    expect(eventKind("question")).toBe("talk");
  });

  test("values stay data: the parts hold markup as plain text, for the page to put in text nodes", () => {
    const e = {
      type: "human_message",
      from: "human:<b>",
      to: "x",
      payload: { text: "<img src=x onerror=alert(1)>" },
    };
    const { parts } = describeEvent(e);
    expect(parts).toContainEqual("<img src=x onerror=alert(1)>");
    expect(parts).toContainEqual({ who: "human:<b>" });
  });
});
