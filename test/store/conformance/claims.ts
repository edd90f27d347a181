/**
 * File claims (docs/protocol.md#file-claims, protocol/claims.ts): all-or-nothing claims with conflicts as answers,
 * renewal, release, lazy expiry recorded by the next claim write, renewal by the holder's calls, check_files and
 * list_claims, leave_room, the AgentRoom peer state and broadcast, and concurrent claims that never overlap.
 */
import { expect, test } from "bun:test";
import { LIMITS } from "../../../src/protocol/limits.ts";
import { patternsOverlap } from "../../../src/protocol/paths.ts";
import { iso } from "../../../src/protocol/time.ts";
import type { RoomScope } from "../../../src/store/types.ts";
import {
  allEvents,
  claimedRoom,
  expectRoomError,
  instanceFor,
  newScope,
  newTask,
  type Suite,
  snapshot,
} from "./harness.ts";

const TTL = 3_600_000;
const as = (scope: RoomScope, actor: string): RoomScope => ({ ...scope, actor });

export function claimTests(suite: Suite): void {
  const claim = (scope: RoomScope, agentId: string, paths: string[], ttlMs = TTL, reason?: string) =>
    suite.store.claimFiles(scope, { agentId, paths, ttlMs, ...(reason === undefined ? {} : { reason }) });

  test("claims paths and globs: claimed with expiries, files_claimed, listed in byte order", async () => {
    const scope = newScope();
    const now = suite.clock.now();
    const result = await claim(scope, "a", ["src/b.ts", "docs/**"], TTL, "auth work");
    expect(result).toEqual({
      claimed: [
        { path: "src/b.ts", expiresAt: iso(now + TTL) },
        { path: "docs/**", expiresAt: iso(now + TTL) },
      ],
      conflicts: [],
    });
    expect(await suite.second.listClaims(scope, {})).toEqual([
      { path: "docs/**", heldBy: "a", expiresAt: iso(now + TTL), claimedAt: iso(now), reason: "auth work" },
      { path: "src/b.ts", heldBy: "a", expiresAt: iso(now + TTL), claimedAt: iso(now), reason: "auth work" },
    ]);
    const [event] = await allEvents(suite.store, scope);
    expect(event).toMatchObject({
      type: "files_claimed",
      from: "a",
      to: "all",
      payload: { paths: ["src/b.ts", "docs/**"], expiresAt: iso(now + TTL), reason: "auth work" },
    });
  });

  test("all or nothing: any overlap with another agent's claim answers every conflict and changes nothing", async () => {
    const scope = await claimedRoom(suite.store);
    const held = await claim(scope, "a", ["src/**", "docs/x.md"]);
    const before = await snapshot(suite.store, scope);
    const result = await suite.second.claimFiles(scope, {
      agentId: "b",
      paths: ["lib/free.ts", "src/a.ts", "docs/*.md"],
      ttlMs: TTL,
    });
    const expiresAt = held.claimed[0]?.expiresAt as string;
    expect(result).toEqual({
      claimed: [],
      conflicts: [
        { path: "docs/*.md", heldBy: "a", pattern: "docs/x.md", expiresAt },
        { path: "src/a.ts", heldBy: "a", pattern: "src/**", expiresAt },
      ],
    });
    expect(await snapshot(suite.store, scope)).toEqual(before);
    // Claims of one agent may overlap each other.
    expect((await claim(scope, "a", ["src/a.ts"])).conflicts).toEqual([]);
  });

  test("claiming what you hold renews it (claimedAt kept, a new reason replaces the old)", async () => {
    const scope = await claimedRoom(suite.store);
    const first = suite.clock.now();
    await claim(scope, "a", ["src/a.ts"], 60_000, "first");
    const later = suite.clock.advance(30_000);
    await suite.second.claimFiles(scope, { agentId: "a", paths: ["src/a.ts"], ttlMs: 120_000 });
    expect(await suite.store.listClaims(scope, {})).toEqual([
      {
        path: "src/a.ts",
        heldBy: "a",
        expiresAt: iso(later + 120_000),
        claimedAt: iso(first),
        reason: "first",
      },
    ]);
    await claim(scope, "a", ["src/a.ts"], 60_000, "second");
    expect((await suite.store.listClaims(scope, {}))[0]?.reason).toBe("second");
  });

  test("release: named claims or all of them, files_released; releasing nothing writes nothing", async () => {
    const scope = newScope();
    expect(await suite.store.releaseFiles(scope, "a")).toEqual({ released: [] });
    expect(await suite.store.listClaims(scope, {})).toEqual([]);
    await claim(scope, "a", ["src/a.ts", "src/b.ts", "docs/**"]);
    await claim(scope, "b", ["lib/**"]);
    const before = await snapshot(suite.store, scope);
    // Not exactly a held claim, or another agent's: nothing released, nothing written.
    expect(await suite.store.releaseFiles(scope, "a", ["src/**", "lib/**"])).toEqual({ released: [] });
    expect(await snapshot(suite.store, scope)).toEqual(before);
    expect(await suite.second.releaseFiles(scope, "a", ["src/b.ts"])).toEqual({ released: ["src/b.ts"] });
    expect(await suite.store.releaseFiles(scope, "a")).toEqual({ released: ["docs/**", "src/a.ts"] });
    expect((await suite.store.listClaims(scope, {})).map((c) => c.path)).toEqual(["lib/**"]);
    const released = (await allEvents(suite.store, scope)).filter((e) => e.type === "files_released");
    expect(released.map((e) => [e.from, e.payload.paths])).toEqual([
      ["a", ["src/b.ts"]],
      ["a", ["docs/**", "src/a.ts"]],
    ]);
    // Freed: b can take them now.
    expect((await claim(scope, "b", ["src/**"])).conflicts).toEqual([]);
  });

  test("expiry: gone from every read at once; the next claim write records files_claim_expired", async () => {
    const scope = await claimedRoom(suite.store);
    const start = suite.clock.now();
    await claim(scope, "a", ["src/**"], 60_000);
    suite.clock.advance(59_999);
    expect(await suite.store.checkFiles(scope, "b", ["src/x.ts"])).toEqual([
      { path: "src/x.ts", state: "held", heldBy: "a", pattern: "src/**" },
    ]);
    suite.clock.advance(1);
    expect(await suite.store.listClaims(scope, {})).toEqual([]);
    expect(await suite.second.checkFiles(scope, "b", ["src/x.ts"])).toEqual([
      { path: "src/x.ts", state: "free" },
    ]);
    expect((await allEvents(suite.store, scope)).map((e) => e.type)).toEqual(["files_claimed"]);
    // The holder's call after the end does not bring it back.
    await suite.store.heartbeat(as(scope, "a"), "a");
    expect(await suite.store.listClaims(scope, {})).toEqual([]);
    expect((await claim(scope, "b", ["src/x.ts"])).conflicts).toEqual([]);
    const events = await allEvents(suite.store, scope);
    expect(events.map((e) => e.type)).toEqual(["files_claimed", "files_claim_expired", "files_claimed"]);
    expect(events[1]).toMatchObject({
      from: "system",
      payload: { path: "src/**", heldBy: "a", expiredAt: iso(start + 60_000) },
    });
  });

  test("the holder's calls renew its claims; another agent's do not", async () => {
    const scope = await claimedRoom(suite.store);
    await claim(scope, "a", ["src/**"], 60_000);
    await claim(scope, "b", ["docs/**"], 60_000);
    let now = suite.clock.advance(50_000);
    await suite.second.heartbeat(as(scope, "a"), "a");
    now = suite.clock.advance(50_000);
    await suite.store.postEvent(as(scope, "a"), { type: "x", from: "a", to: "all", payload: {} });
    expect((await suite.store.listClaims(scope, {})).map((c) => [c.path, c.expiresAt])).toEqual([
      ["src/**", iso(now + 60_000)],
    ]);
    expect(await suite.store.listClaims(scope, { agentId: "b" })).toEqual([]);
  });

  test("check_files: held (with holder and pattern), mine, or free, in the order asked", async () => {
    const scope = await claimedRoom(suite.store);
    await claim(scope, "a", ["src/**", "src/a.ts"]);
    await claim(scope, "b", ["docs/*.md"]);
    expect(
      await suite.second.checkFiles(scope, "a", ["src/a.ts", "docs/readme.md", "README.md", "docs/x/y.md"]),
    ).toEqual([
      { path: "src/a.ts", state: "mine", pattern: "src/**" },
      { path: "docs/readme.md", state: "held", heldBy: "b", pattern: "docs/*.md" },
      { path: "README.md", state: "free" },
      { path: "docs/x/y.md", state: "free" },
    ]);
    expect(await suite.store.checkFiles(newScope(), "a", ["x"])).toEqual([{ path: "x", state: "free" }]);
  });

  test("list_claims filters by holder and by the claims overlapping a path", async () => {
    const scope = await claimedRoom(suite.store);
    await claim(scope, "a", ["src/**", "lib/a.ts"]);
    await claim(scope, "b", ["docs/*.md"]);
    const paths = async (filter: { agentId?: string; path?: string }) =>
      (await suite.store.listClaims(scope, filter)).map((c) => c.path);
    expect(await paths({ agentId: "a" })).toEqual(["lib/a.ts", "src/**"]);
    expect(await paths({ path: "src/deep/x.ts" })).toEqual(["src/**"]);
    expect(await paths({ path: "docs/*" })).toEqual(["docs/*.md"]);
    expect(await paths({ path: "docs/*", agentId: "a" })).toEqual([]);
  });

  test(`at most ${LIMITS.claimsPerRoom} live claims per room; the refused claim changes nothing`, async () => {
    const scope = await claimedRoom(suite.store);
    for (let i = 0; i < LIMITS.claimsPerRoom / 100; i++) {
      const paths = Array.from({ length: 100 }, (_, j) => `d${i}/f${j}.ts`);
      expect((await claim(scope, `agent-${i}`, paths)).claimed).toHaveLength(100);
    }
    await expectRoomError(
      claim(scope, "late", ["z.ts"]),
      "limit",
      /^Claim limit reached: a room holds at most 500/,
    );
    // Renewing what one holds adds nothing, so it still goes through.
    expect((await claim(scope, "agent-0", ["d0/f0.ts"])).claimed).toHaveLength(1);
  });

  test("leave_room: presence left, leases, claims and locks released, agent_left; the next call brings it back", async () => {
    const scope = await claimedRoom(suite.store);
    const task = await suite.store.addTask(scope, newTask("t"));
    const claimedTask = await suite.store.claimTask(scope, {
      taskId: task.id,
      agentId: "a",
      leaseMs: 900_000,
    });
    await claim(scope, "a", ["src/**"]);
    await claim(scope, "b", ["docs/**"]);
    await suite.store.acquireLock(scope, "db", "a", 60_000);
    const now = suite.clock.advance(1000);
    const left = await suite.second.leaveRoom(as(scope, "a"), "a");
    expect(left).toEqual({
      agentId: "a",
      roomExists: true,
      released: { tasks: [task.id], paths: ["src/**"], locks: ["db"] },
    });
    expect(await suite.store.getTask(scope, task.id)).toEqual({
      ...task,
      status: "pending",
      owner: null,
      version: claimedTask.version + 1,
      updated_at: iso(now),
    });
    expect((await suite.store.listClaims(scope, {})).map((c) => c.path)).toEqual(["docs/**"]);
    expect(await suite.store.listLocks(scope)).toEqual([]);
    expect((await suite.store.getPresence(scope)).find((p) => p.agentId === "a")).toEqual({
      agentId: "a",
      status: "left",
      lastSeen: iso(now),
    });
    const events = (await allEvents(suite.store, scope)).slice(-2);
    expect(events.map((e) => [e.type, e.from, e.payload])).toEqual([
      ["files_released", "a", { paths: ["src/**"] }],
      ["agent_left", "a", { agentId: "a", tasks: [task.id], paths: ["src/**"], locks: ["db"] }],
    ]);
    await suite.store.heartbeat(as(scope, "a"), "a");
    expect((await suite.store.getPresence(scope)).find((p) => p.agentId === "a")?.status).toBe("online");
    // On a room nobody owns, leaving records nothing.
    const empty = newScope();
    expect(await suite.store.leaveRoom(empty, "a")).toEqual({
      agentId: "a",
      roomExists: false,
      released: { tasks: [], paths: [], locks: [] },
    });
    expect(await suite.store.getPresence(empty)).toEqual([]);
  });

  test("room state and broadcast: claims, presence with status, the newest seq", async () => {
    const scope = newScope();
    expect(await suite.store.roomState(scope)).toEqual({ claims: [], presence: [], lastSeq: 0 });
    const now = suite.clock.now();
    const event = await suite.store.broadcast(as(scope, "a"), {
      agentId: "a",
      message: "CLAIMING src/**",
      status: "working",
    });
    expect(event).toMatchObject({
      type: "broadcast",
      from: "a",
      to: "all",
      payload: { message: "CLAIMING src/**", status: "working" },
    });
    await claim(scope, "a", ["src/**"]);
    await suite.store.broadcast(scope, { agentId: "b", message: "hello" });
    const state = await suite.second.roomState(scope);
    expect(state.lastSeq).toBe(3);
    expect(state.claims.map((c) => [c.path, c.heldBy])).toEqual([["src/**", "a"]]);
    expect(state.presence).toContainEqual({
      agentId: "a",
      status: "online",
      lastSeen: iso(now),
      statusText: "working",
    });
    expect((await allEvents(suite.store, scope)).at(-1)?.payload).toEqual({ message: "hello" });
  });

  test("16 agents racing overlapping claims on two instances: live claims never overlap, each call all or nothing", async () => {
    const scope = await claimedRoom(suite.store);
    const patterns = [
      ["src/**"],
      ["src/a.ts"],
      ["src/*.ts", "docs/x.md"],
      ["docs/x.md"],
      ["src/a.ts", "lib/b.ts"],
    ];
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all(
        Array.from({ length: 16 }, (_, i) => {
          const paths = patterns[(i + round) % patterns.length] as string[];
          return instanceFor(suite, i)
            .claimFiles(scope, { agentId: `agent-${i}`, paths, ttlMs: TTL })
            .then((result) => ({ agent: `agent-${i}`, paths, result }));
        }),
      );
      for (const { paths, result } of results) {
        // All or nothing.
        expect(result.claimed.length === paths.length || result.claimed.length === 0).toBe(true);
        expect(result.claimed.length === 0).toBe(result.conflicts.length > 0);
      }
      const live = await suite.store.listClaims(scope, {});
      for (const x of live)
        for (const y of live)
          if (x.heldBy !== y.heldBy)
            expect(`${x.path} ${y.path}: ${patternsOverlap(x.path, y.path)}`).toEndWith("false");
      // What the calls said they claimed is exactly what is live.
      const won = results.filter((r) => r.result.claimed.length > 0);
      expect(live.length).toBe(new Set(won.flatMap((r) => r.paths.map((p) => `${r.agent} ${p}`))).size);
      await Promise.all(won.map((r, i) => instanceFor(suite, i).releaseFiles(scope, r.agent)));
    }
  });
}
