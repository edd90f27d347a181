/** Context: entries, versions "1.N", history, payload re-validation, context events. */
import { expect, test } from "bun:test";
import { RoomError } from "../../../src/protocol/errors.ts";
import { validatePayload } from "../../../src/protocol/payloads.ts";
import { iso } from "../../../src/protocol/time.ts";
import {
  allEvents,
  apiContractPayload,
  expectRefusedUnchanged,
  expectRoomError,
  newNote,
  newScope,
  notePayload,
  type Suite,
} from "./harness.ts";

/** The exact message validatePayload gives for this payload. */
function invalidMessage(payload: unknown): string {
  try {
    validatePayload("api_contract", payload);
  } catch (err) {
    if (err instanceof RoomError) return err.message;
  }
  throw new Error("fixture payload is valid");
}

export function contextTests(suite: Suite): void {
  test("writeContext stores version 1.0 and readContext returns it", async () => {
    const scope = newScope();
    const now = suite.clock.now();
    const payload = apiContractPayload();
    const entry = await suite.store.writeContext(scope, {
      type: "api_contract",
      summary: "users API",
      consuming_agents: [],
      payload,
      author: "a",
    });
    expect(entry).toEqual({
      id: expect.any(String),
      type: "api_contract",
      author: "a",
      timestamp: iso(now),
      summary: "users API",
      consuming_agents: [],
      payload,
      version: "1.0",
    });
    expect(await suite.store.readContext(scope, entry.id)).toEqual(entry);
    expect(await suite.store.contextHistory(scope, entry.id)).toEqual([]);
    expect(await allEvents(suite.store, scope)).toEqual([]);
  });

  test("context_available only with consumers: to the single consumer, or all", async () => {
    const scope = newScope();
    await suite.store.writeContext(scope, newNote("nobody"));
    expect(await allEvents(suite.store, scope)).toEqual([]);
    const one = await suite.store.writeContext(scope, newNote("for b", { consuming_agents: ["b"] }));
    const two = await suite.store.writeContext(
      scope,
      newNote("for b and c", { consuming_agents: ["b", "c"] }),
    );
    const events = await allEvents(suite.store, scope);
    expect(events.map((e) => [e.seq, e.type, e.from, e.to])).toEqual([
      [1, "context_available", "a", "b"],
      [2, "context_available", "a", "all"],
    ]);
    expect(events[0]?.payload).toEqual({
      contextId: one.id,
      contextType: "note",
      summary: "for b",
      consuming_agents: ["b"],
    });
    expect(events[1]?.payload).toEqual({
      contextId: two.id,
      contextType: "note",
      summary: "for b and c",
      consuming_agents: ["b", "c"],
    });
  });

  test("listContext is oldest first and filters by type and by author", async () => {
    const scope = newScope();
    const n1 = await suite.store.writeContext(scope, newNote("n1"));
    suite.clock.advance(1000);
    const api = await suite.store.writeContext(scope, {
      type: "api_contract",
      summary: "api",
      consuming_agents: [],
      payload: apiContractPayload(),
      author: "b",
    });
    suite.clock.advance(1000);
    const n2 = await suite.store.writeContext(scope, newNote("n2", { author: "b" }));
    const ids = (list: { id: string }[]) => list.map((e) => e.id);
    expect(ids(await suite.store.listContext(scope, {}))).toEqual([n1.id, api.id, n2.id]);
    expect(ids(await suite.store.listContext(scope, { type: "note" }))).toEqual([n1.id, n2.id]);
    expect(ids(await suite.store.listContext(scope, { author: "b" }))).toEqual([api.id, n2.id]);
    expect(ids(await suite.store.listContext(scope, { type: "note", author: "b" }))).toEqual([n2.id]);
    expect(await suite.store.listContext(scope, { type: "task" })).toEqual([]);
    // The filter is on the current author: an update by "c" moves n1 to c.
    await suite.store.updateContext(scope, { id: n1.id, author: "c", summary: "n1'" });
    expect(ids(await suite.store.listContext(scope, { author: "c" }))).toEqual([n1.id]);
    expect(ids(await suite.store.listContext(scope, { author: "a" }))).toEqual([]);
  });

  test("updateContext bumps 1.0 → 1.1 → … → 1.10 → 1.11, keeping id and type", async () => {
    const scope = newScope();
    const entry = await suite.store.writeContext(scope, newNote("v0"));
    const versions: string[] = [];
    for (let i = 1; i <= 11; i++) {
      const at = suite.clock.advance(1000);
      const updated = await suite.store.updateContext(scope, {
        id: entry.id,
        author: `u${i}`,
        summary: `v${i}`,
      });
      expect(updated).toMatchObject({ id: entry.id, type: "note", author: `u${i}`, timestamp: iso(at) });
      versions.push(updated.version);
    }
    expect(versions).toEqual(["1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7", "1.8", "1.9", "1.10", "1.11"]);
    const current = await suite.store.readContext(scope, entry.id);
    expect(current).toMatchObject({
      id: entry.id,
      version: "1.11",
      summary: "v11",
      payload: notePayload("v0"),
    });
    expect(await suite.store.listContext(scope, {})).toEqual([current]);
  });

  test("contextHistory returns the earlier versions oldest first", async () => {
    const scope = newScope();
    const v0 = await suite.store.writeContext(scope, newNote("first", { consuming_agents: ["b"] }));
    suite.clock.advance(1000);
    const v1 = await suite.store.updateContext(scope, {
      id: v0.id,
      author: "b",
      summary: "second",
      payload: notePayload("p1"),
      consuming_agents: ["c"],
    });
    suite.clock.advance(1000);
    await suite.store.updateContext(scope, { id: v0.id, author: "c", summary: "third" });
    const history = await suite.store.contextHistory(scope, v0.id);
    expect(history).toHaveLength(2);
    const { id: _i0, type: _t0, ...rest0 } = v0;
    const { id: _i1, type: _t1, ...rest1 } = v1;
    expect(history[0]).toMatchObject(rest0);
    expect(history[1]).toMatchObject(rest1);
    expect((await suite.store.readContext(scope, v0.id)).consuming_agents).toEqual(["c"]);
  });

  test("updateContext re-validates the payload against the type; an invalid one changes nothing", async () => {
    const scope = newScope();
    const entry = await suite.store.writeContext(scope, {
      type: "api_contract",
      summary: "api",
      consuming_agents: ["b"],
      payload: apiContractPayload(),
      author: "a",
    });
    for (const bad of [{ service: "users" }, { ...apiContractPayload(), endpoints: [] }, notePayload("x")]) {
      const message = invalidMessage(bad);
      expect(message.startsWith('Invalid payload for context type "api_contract": ')).toBe(true);
      await expectRefusedUnchanged(
        suite.store,
        scope,
        () =>
          suite.store.updateContext(scope, { id: entry.id, author: "b", summary: "broken", payload: bad }),
        "invalid",
        message,
      );
    }
    const good = { ...apiContractPayload(), base_url: "https://x" };
    const updated = await suite.store.updateContext(scope, { id: entry.id, author: "b", payload: good });
    expect(updated).toMatchObject({ version: "1.1", type: "api_contract", payload: good, summary: "api" });
  });

  test("expectedVersion: a match applies, a mismatch is a conflict that changes nothing", async () => {
    const scope = newScope();
    const entry = await suite.store.writeContext(scope, newNote("n", { consuming_agents: ["b"] }));
    const v1 = await suite.store.updateContext(scope, {
      id: entry.id,
      author: "a",
      summary: "m",
      expectedVersion: "1.0",
    });
    expect(v1.version).toBe("1.1");
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () =>
        suite.store.updateContext(scope, {
          id: entry.id,
          author: "b",
          summary: "lost",
          expectedVersion: "1.0",
        }),
      "conflict",
      `Version conflict: context ${entry.id} is at version 1.1 (last written by a); read it again before changing it`,
    );
  });

  test("an unknown context id is not found and changes nothing", async () => {
    const scope = newScope();
    await suite.store.writeContext(scope, newNote("n"));
    const message = "Context entry not found: nope";
    await expectRoomError(suite.store.readContext(scope, "nope"), "not_found", message);
    await expectRoomError(suite.store.contextHistory(scope, "nope"), "not_found", message);
    await expectRefusedUnchanged(
      suite.store,
      scope,
      () => suite.store.updateContext(scope, { id: "nope", author: "a", summary: "x" }),
      "not_found",
      message,
    );
  });

  test("context_updated {contextId, contextType, summary, previousVersion, version, consuming_agents} only with consumers", async () => {
    const scope = newScope();
    const entry = await suite.store.writeContext(scope, newNote("n"));
    await suite.store.updateContext(scope, { id: entry.id, author: "a", summary: "quiet" });
    expect(await allEvents(suite.store, scope)).toEqual([]);
    await suite.store.updateContext(scope, {
      id: entry.id,
      author: "b",
      summary: "to c",
      consuming_agents: ["c"],
    });
    // consuming_agents is kept when an update omits it.
    await suite.store.updateContext(scope, { id: entry.id, author: "b", summary: "still c" });
    await suite.store.updateContext(scope, {
      id: entry.id,
      author: "c",
      summary: "all",
      consuming_agents: ["a", "d"],
    });
    const events = await allEvents(suite.store, scope);
    expect(events.map((e) => [e.seq, e.type, e.from, e.to])).toEqual([
      [1, "context_updated", "b", "c"],
      [2, "context_updated", "b", "c"],
      [3, "context_updated", "c", "all"],
    ]);
    expect(events.map((e) => e.payload)).toEqual([
      {
        contextId: entry.id,
        contextType: "note",
        summary: "to c",
        previousVersion: "1.1",
        version: "1.2",
        consuming_agents: ["c"],
      },
      {
        contextId: entry.id,
        contextType: "note",
        summary: "still c",
        previousVersion: "1.2",
        version: "1.3",
        consuming_agents: ["c"],
      },
      {
        contextId: entry.id,
        contextType: "note",
        summary: "all",
        previousVersion: "1.3",
        version: "1.4",
        consuming_agents: ["a", "d"],
      },
    ]);
  });
}
