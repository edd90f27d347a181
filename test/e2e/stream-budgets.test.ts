/**
 * Stream budgets inside the team's: an invite (STREAMS_PER_INVITE) and each agent a key is bound to
 * (STREAMS_PER_AGENT) hold at most their own smaller number of the team's STREAMS_PER_TEAM open streams, so one
 * invite cannot lock the team's keys and its dashboard out. Slots are counted in each process (not in the store),
 * so one in-process roomd on the embedded store shows all of it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { type InProcessServer, startInProcess, TEAM_A } from "../support/server.ts";
import { openSse, type SseReader } from "../support/sse.ts";
import { newRoomId, sqliteE2e } from "../support/stores.ts";

describe("stream budgets", () => {
  let store: RoomStore;
  const open: SseReader[] = [];
  beforeAll(async () => {
    store = await sqliteE2e().open();
  });
  afterAll(async () => {
    for (const reader of open) reader.close();
    await store.close();
  });

  /** A server with the given limits, a room of team A, and a stream opener that keeps what it opens. */
  async function setUp(env: Record<string, string>) {
    const server = startInProcess(store, undefined, env);
    const http = httpClient(server.url);
    const roomId = newRoomId();
    expect((await http.post("/admin/rooms", TEAM_A.secret, { roomId })).status).toBe(201);
    const stream = async (secret: string, path = `/rooms/${roomId}/stream`) => {
      const reader = await openSse({ url: `${server.url}${path}`, secret });
      open.push(reader);
      return reader;
    };
    const invite = async (agentId?: string) =>
      (await http.post(`/admin/rooms/${roomId}/invite`, TEAM_A.secret, agentId ? { agentId } : {})).body
        .token as string;
    const boundKey = async (agent: string) =>
      (await http.post("/admin/keys", TEAM_A.secret, { boundAgentId: agent })).body.secret as string;
    return { server, stream, invite, boundKey };
  }

  const statuses = (readers: SseReader[]) => readers.map((r) => r.status);

  test("R2-7 defaults: one invite holds at most 10 streams; the team's key and dashboard still get theirs", async () => {
    const { server, stream, invite } = await setUp({});
    try {
      const guest = await invite();
      const held = [];
      for (let i = 0; i < 10; i++) held.push(await stream(guest));
      expect(statuses(held)).toEqual(Array(10).fill(200));
      const over = (await stream(guest)) as SseReader & { error?: { error: string } };
      expect(over.status).toBe(429);
      expect(over.headers.get("retry-after")).toBe("5");
      expect(over.error?.error).toBe("Too many open streams (STREAMS_PER_INVITE); close one or retry later");
      expect((await stream(TEAM_A.secret)).status).toBe(200);
      expect((await stream(TEAM_A.secret, "/dashboard/stream")).status).toBe(200);
    } finally {
      for (const reader of open.splice(0)) reader.close();
      await (server as InProcessServer).stop();
    }
  });

  test("R2-7 each invite and each bound agent has its own budget inside the team's; closing frees the place", async () => {
    const { server, stream, invite, boundKey } = await setUp({
      STREAMS_PER_TEAM: "8",
      STREAMS_PER_INVITE: "2",
      STREAMS_PER_AGENT: "3",
    });
    try {
      const [first, second] = [await invite("guest"), await invite()];
      const firstHeld = [await stream(first), await stream(first)];
      expect(statuses(firstHeld)).toEqual([200, 200]);
      const refused = (await stream(first)) as SseReader & { error?: { error: string } };
      expect(refused.status).toBe(429);
      expect(refused.error?.error).toContain("STREAMS_PER_INVITE");
      // Another invite (even of the same room) has a budget of its own.
      expect(statuses([await stream(second), await stream(second)])).toEqual([200, 200]);
      // Two keys bound to one agent share that agent's budget; another agent has its own.
      const [bound, sameAgent, other] = [await boundKey("bot"), await boundKey("bot"), await boundKey("b2")];
      expect(statuses([await stream(bound), await stream(sameAgent), await stream(bound)])).toEqual([
        200, 200, 200,
      ]);
      const agentOver = (await stream(sameAgent)) as SseReader & { error?: { error: string } };
      expect(agentOver.status).toBe(429);
      expect(agentOver.error?.error).toContain("STREAMS_PER_AGENT");
      // 7 of the team's 8 are open: the team's own key takes the last, then the team is full for everyone.
      expect((await stream(TEAM_A.secret)).status).toBe(200);
      const teamFull = (await stream(other)) as SseReader & { error?: { error: string } };
      expect(teamFull.status).toBe(429);
      expect(teamFull.error?.error).toContain("STREAMS_PER_TEAM");
      // The first invite closes one of its streams: its place (and the team's) is free again.
      firstHeld[0]?.close();
      let again = await stream(first);
      for (let i = 0; i < 50 && again.status === 429; i++) {
        await Bun.sleep(20);
        again = await stream(first);
      }
      expect(again.status).toBe(200);
    } finally {
      for (const reader of open.splice(0)) reader.close();
      await (server as InProcessServer).stop();
    }
  });

  test("R2-7 the budgets are configuration: defaults 10 and 10, each at least 1", () => {
    const config = loadConfig({});
    expect([config.streamsPerInvite, config.streamsPerAgent]).toEqual([10, 10]);
    expect(() => loadConfig({ STREAMS_PER_INVITE: "0" })).toThrow(/STREAMS_PER_INVITE/);
    expect(() => loadConfig({ STREAMS_PER_AGENT: "x" })).toThrow(/STREAMS_PER_AGENT/);
  });
});
