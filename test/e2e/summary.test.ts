/**
 * The public room summary under load (docs/http.md#get-roomroomid): a per-client-address limit
 * (SUMMARY_RATE_LIMIT_PER_MINUTE) and an answer cached at most a second per (room, viewer), so a burst of
 * anonymous clients costs one store read. Store reads are counted through a wrapped store given to createApp.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { startInProcess, TEAM_A, TEAM_B } from "../support/server.ts";
import { newRoomId, sqliteE2e } from "../support/stores.ts";

let store: RoomStore;
const METRICS = "metrics-token-0123456789abcdef";
beforeAll(async () => {
  store = await sqliteE2e().open();
});
afterAll(() => store.close());

/** The store, with its roomSummary calls counted. */
function counting(inner: RoomStore) {
  const calls: string[] = [];
  const wrapped = new Proxy(inner, {
    get(target, property) {
      if (property === "roomSummary") {
        return (roomId: string, teamId?: string) => {
          calls.push(roomId);
          return target.roomSummary(roomId, teamId);
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store: wrapped, calls };
}

describe("GET /room/:roomId under load", () => {
  test("130 requests from one address → exactly 120 answered, then 429 with Retry-After", async () => {
    let clock = Date.now();
    const server = startInProcess(store, undefined, {}, () => clock);
    try {
      const http = httpClient(server.url);
      const roomId = newRoomId();
      await http.post("/admin/rooms", TEAM_A.secret, { roomId });
      const answers = await Promise.all(Array.from({ length: 130 }, () => http.get(`/room/${roomId}`)));
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(120);
      expect(statuses.filter((s) => s === 429)).toHaveLength(10);
      const refused = answers.find((a) => a.status === 429)!;
      expect(refused.body).toEqual({ error: "Rate limit exceeded" });
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(60);
      expect(refused.headers.get("ratelimit-limit")).toBe("120");
      expect(refused.headers.get("ratelimit-remaining")).toBe("0");
      // Unknown rooms count too: the limit is spent before anything is looked up.
      expect((await http.get(`/room/${newRoomId()}`)).status).toBe(429);
      // Other routes are not affected, and a minute later the address is served again.
      expect((await http.get("/admin/me", TEAM_A.secret)).status).toBe(200);
      clock += 60_000;
      const again = await http.get(`/room/${roomId}`);
      expect(again.status).toBe(200);
      expect(again.headers.get("ratelimit-remaining")).toBe("119");
    } finally {
      await server.stop();
    }
  });

  test("SUMMARY_RATE_LIMIT_PER_MINUTE sets the limit; private summaries spend the team's budget instead", async () => {
    const limited = startInProcess(store, undefined, { SUMMARY_RATE_LIMIT_PER_MINUTE: "5" });
    try {
      const http = httpClient(limited.url);
      const statuses = [];
      for (let i = 0; i < 7; i++) statuses.push((await http.get(`/room/${newRoomId()}`)).status);
      expect(statuses).toEqual([404, 404, 404, 404, 404, 429, 429]);
    } finally {
      await limited.stop();
    }
    const priv = startInProcess(store, undefined, {
      ROOM_SUMMARY: "private",
      SUMMARY_RATE_LIMIT_PER_MINUTE: "5",
      RATE_LIMIT_PER_MINUTE: "600",
    });
    try {
      const http = httpClient(priv.url);
      const roomId = newRoomId();
      await http.post("/admin/rooms", TEAM_A.secret, { roomId });
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => http.get(`/room/${roomId}`, TEAM_A.secret)),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
      expect(answers[0]?.headers.get("ratelimit-limit")).toBe("600");
    } finally {
      await priv.stop();
    }
  });

  test("one budget per address for everything public about a room: page, JSON summary, view and stream; refusals counted", async () => {
    const limited = startInProcess(store, undefined, {
      SUMMARY_RATE_LIMIT_PER_MINUTE: "4",
      METRICS_TOKEN: METRICS,
    });
    try {
      const http = httpClient(limited.url);
      const roomId = newRoomId();
      await http.tool(TEAM_A.secret, "add_task", { roomId, title: "public" });
      const statuses = [
        (await fetch(`${limited.url}/room/${roomId}`, { headers: { Accept: "text/html" } })).status,
        (await http.get(`/room/${roomId}`)).status,
        (await http.get(`/room/${roomId}/view`)).status,
        (await http.get(`/room/${roomId}`)).status,
        (await fetch(`${limited.url}/room/${roomId}`, { headers: { Accept: "text/html" } })).status,
        (await http.get(`/room/${roomId}/view`)).status,
        (await http.get(`/room/${roomId}`)).status,
      ];
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429, 429]);
      const metrics = await fetch(`${limited.url}/metrics`, {
        headers: { Authorization: `Bearer ${METRICS}` },
      });
      expect(await metrics.text()).toMatch(/^roomd_rate_limited_total 3$/m);
    } finally {
      await limited.stop();
    }
  });

  test("a burst of 50 requests for one room reads the store at most twice; the cache lives ≤ 1 s", async () => {
    let clock = Date.now();
    const { store: wrapped, calls } = counting(store);
    const server = startInProcess(wrapped, undefined, {}, () => clock);
    try {
      const http = httpClient(server.url);
      const roomId = newRoomId();
      await http.tool(TEAM_A.secret, "add_task", { roomId, title: "first" });
      const burst = await Promise.all(Array.from({ length: 50 }, () => http.get(`/room/${roomId}`)));
      expect(burst.every((a) => a.status === 200 && a.body.taskCount === 1)).toBe(true);
      expect(calls.length).toBeGreaterThanOrEqual(1);
      expect(calls.length).toBeLessThanOrEqual(2);
      // Within the second, a change is not yet visible and costs no read; a second later it is read once.
      await http.tool(TEAM_A.secret, "add_task", { roomId, title: "second" });
      clock += 999;
      const before = calls.length;
      expect((await http.get(`/room/${roomId}`)).body.taskCount).toBe(1);
      expect(calls.length).toBe(before);
      clock += 1;
      const fresh = await Promise.all(Array.from({ length: 20 }, () => http.get(`/room/${roomId}`)));
      expect(fresh.every((a) => a.body.taskCount === 2)).toBe(true);
      expect(calls.length).toBe(before + 1);
      // Each room is its own entry.
      const other = newRoomId();
      await http.tool(TEAM_A.secret, "add_task", { roomId: other, title: "elsewhere" });
      await Promise.all([http.get(`/room/${other}`), http.get(`/room/${other}`)]);
      expect(calls.filter((r) => r === other)).toHaveLength(1);
    } finally {
      await server.stop();
    }
  });

  test("private summaries are cached per team, never shown to another team", async () => {
    const frozen = Date.now();
    const { store: wrapped, calls } = counting(store);
    const server = startInProcess(wrapped, undefined, { ROOM_SUMMARY: "private" }, () => frozen);
    try {
      const http = httpClient(server.url);
      const roomId = newRoomId();
      await http.tool(TEAM_A.secret, "add_task", { roomId, title: "a's" });
      expect((await http.get(`/room/${roomId}`, TEAM_A.secret)).status).toBe(200);
      expect((await http.get(`/room/${roomId}`, TEAM_B.secret)).status).toBe(404);
      expect((await http.get(`/room/${roomId}`, TEAM_A.secret)).status).toBe(200);
      expect((await http.get(`/room/${roomId}`, TEAM_B.secret)).status).toBe(404);
      expect(calls).toHaveLength(2);
    } finally {
      await server.stop();
    }
  });
});
