import { describe, expect, test } from "bun:test";
import type { RoomSummaryView } from "../store/access-types.ts";
import { createSummaryCache } from "./summary-cache.ts";

const view = (roomId: string, taskCount: number) =>
  ({
    roomId,
    agents: [],
    taskCount,
    tasksByStatus: {},
    contextCount: 0,
    recentEvents: [],
  }) as unknown as RoomSummaryView;

describe("summary cache", () => {
  test("concurrent misses share one read; entries live ttlMs; viewers are kept apart", async () => {
    let clock = 0;
    const reads: string[] = [];
    const cache = createSummaryCache(
      async (roomId, teamId) => {
        reads.push(`${roomId}/${teamId ?? "public"}`);
        await Bun.sleep(5);
        return view(roomId, reads.length);
      },
      { now: () => clock },
    );
    const burst = await Promise.all(Array.from({ length: 20 }, () => cache.get("r1")));
    expect(new Set(burst).size).toBe(1);
    expect(reads).toEqual(["r1/public"]);
    await cache.get("r1", "team-a");
    await cache.get("r1", "team-b");
    expect(reads).toEqual(["r1/public", "r1/team-a", "r1/team-b"]);
    clock = 999;
    expect((await cache.get("r1"))?.taskCount).toBe(1);
    clock = 1000;
    expect((await cache.get("r1"))?.taskCount).toBe(4);
  });

  test("a failed read is not kept: the next request reads again", async () => {
    let fail = true;
    let reads = 0;
    const cache = createSummaryCache(
      async (roomId) => {
        reads++;
        if (fail) throw new Error("Store unavailable");
        return view(roomId, 1);
      },
      { now: () => 0 },
    );
    await expect(cache.get("r1")).rejects.toThrow("Store unavailable");
    fail = false;
    expect((await cache.get("r1"))?.taskCount).toBe(1);
    expect(reads).toBe(2);
  });

  test("at most maxEntries rooms are held", async () => {
    let reads = 0;
    const cache = createSummaryCache(
      async (roomId) => {
        reads++;
        return view(roomId, 0);
      },
      { now: () => 0, maxEntries: 10 },
    );
    for (let i = 0; i < 50; i++) await cache.get(`room-${i}`);
    expect(reads).toBe(50);
    await cache.get("room-49"); // recent: still held
    expect(reads).toBe(50);
    await cache.get("room-0"); // the oldest: dropped long ago
    expect(reads).toBe(51);
  });
});
