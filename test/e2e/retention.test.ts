/**
 * Event retention through real HTTP on every store (EVENT_RETENTION_MAX): the tools say trimmedBefore where a
 * result reached below the oldest kept event (read_events beside its list), cursors carry on exactly once, and the
 * room stream replays from the oldest kept event for an older `after` / Last-Event-ID, then goes live.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { type RunningServer, startInProcess, TEAM_A } from "../support/server.ts";
import { openSse } from "../support/sse.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";

const KEEP = 5;

for (const make of E2E_STORES) {
  describe(`event retention over HTTP on ${make().name}`, () => {
    let store: RoomStore;
    let server: RunningServer;
    let http: ReturnType<typeof httpClient>;
    const post = (roomId: string, n: number, to = "all") =>
      http.tool(TEAM_A.secret, "post_event", { roomId, type: "note", from: "alice", to, payload: { n } });

    beforeAll(async () => {
      store = await make().open({ retention: { maxEvents: KEEP, maxAgeMs: 0 } });
      server = startInProcess(store, undefined, { EVENT_RETENTION_MAX: String(KEEP) });
      http = httpClient(server.url);
    });
    afterAll(async () => {
      await server.stop();
      await store.close();
    });

    test("tools say trimmedBefore; each kept event reaches a cursor left behind exactly once", async () => {
      const roomId = newRoomId();
      for (let n = 1; n <= 9; n++) await post(roomId, n, n % 3 === 0 ? "carol" : "all");
      const read = await http.tool(TEAM_A.secret, "read_events", { roomId, limit: 100 });
      expect(JSON.parse(read.text).map((e: { seq: number }) => e.seq)).toEqual([9, 8, 7, 6, 5]);
      expect(JSON.parse(read.body.result.content[1].text)).toEqual({ trimmedBefore: 5 });
      const later = await http.tool(TEAM_A.secret, "read_events", { roomId, since: 6, limit: 100 });
      expect(later.body.result.content).toHaveLength(1);

      const context = { "X-Roomd-Room": roomId, "X-Roomd-Agent": "zed" };
      const since = await http.tool(TEAM_A.secret, "room_read", { since: 1 }, context);
      expect(JSON.parse(since.text)).toMatchObject({ more: false, trimmedBefore: 5 });
      expect(JSON.parse(since.text).events.map((e: { seq: number }) => e.seq)).toEqual([5, 6, 7, 8, 9]);

      const bob = await http.tool(TEAM_A.secret, "get_unread_events", { roomId, agentId: "bob", limit: 2 });
      expect(bob.body.result.structuredContent).toMatchObject({
        cursor: 7,
        count: 2,
        remaining: 1,
        trimmedBefore: 5,
      });
      const next = await http.tool(TEAM_A.secret, "wait_for_events", {
        roomId,
        agentId: "bob",
        timeoutSeconds: 0,
      });
      const batch = next.body.result.structuredContent;
      expect(batch.events.map((e: { seq: number }) => e.seq)).toEqual([8]);
      expect(batch.trimmedBefore).toBeUndefined();

      const summary = await http.tool(TEAM_A.secret, "get_my_summary", { roomId, agentId: "carol" });
      const unread = summary.body.result.structuredContent.unreadEvents;
      expect({
        seqs: unread.events.map((e: { seq: number }) => e.seq),
        trimmedBefore: unread.trimmedBefore,
      }).toEqual({
        seqs: [5, 6, 7, 8, 9],
        trimmedBefore: 5,
      });
    });

    test("the stream replays from the oldest kept event for an older after or Last-Event-ID, then goes live", async () => {
      const roomId = newRoomId();
      for (let n = 1; n <= 8; n++) await post(roomId, n);
      const url = `${server.url}/rooms/${roomId}/stream`;
      for (const start of [{ query: "?after=1" }, { headers: { "Last-Event-ID": "2" } }]) {
        const sse = await openSse({
          url: `${url}${start.query ?? ""}`,
          secret: TEAM_A.secret,
          headers: start.headers,
        });
        try {
          expect(sse.status).toBe(200);
          await sse.until((r) => r.messages.filter((m) => m.id).length >= KEEP, 5000);
          expect(sse.messages.filter((m) => m.id).map((m) => Number(m.id))).toEqual([4, 5, 6, 7, 8]);
        } finally {
          sse.close();
        }
      }
      const live = await openSse({ url: `${url}?after=0`, secret: TEAM_A.secret });
      try {
        await live.until((r) => r.messages.filter((m) => m.id).length >= KEEP, 5000);
        await post(roomId, 9);
        await live.until((r) => r.messages.some((m) => m.id === "9"), 5000);
        expect(live.messages.filter((m) => m.id).map((m) => Number(m.id))).toEqual([4, 5, 6, 7, 8, 9]);
      } finally {
        live.close();
      }
    });
  });
}
