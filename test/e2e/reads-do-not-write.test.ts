/**
 * Looking at a room is not using it, on every store: an export (what `bun run migrate` reads too), the dashboard's
 * overview, the room page's views (a member's and the public one), the public summary and the room's streams leave
 * every stored byte of the room as it was — its last activity (and so its expiry) included. The clock is moved past
 * the minute after which a use of the room would be recorded, so any write would show.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { silentLogger } from "../../src/log.ts";
import { exportDigest } from "../../src/moving/export.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { fillRoom } from "../support/rich-room.ts";
import { type RunningServer, startInProcess, TEAM_A } from "../support/server.ts";
import { openSse } from "../support/sse.ts";
import { roomBytes } from "../support/store-scan.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";

for (const make of E2E_STORES) {
  describe(`reads do not write on ${make().name}`, () => {
    const backing = make();
    let t = Date.now();
    let store: RoomStore;
    let server: RunningServer;
    const get = (path: string, secret?: string) =>
      fetch(`${server.url}${path}`, { headers: secret ? { Authorization: `Bearer ${secret}` } : {} });

    beforeAll(async () => {
      store = await backing.open({ now: () => t });
      server = startInProcess(store, silentLogger, {}, () => t);
    });
    afterAll(async () => {
      await server.stop();
      await store.close();
    });

    test("R2-12 an export, the dashboard, the room's views and streams leave the room's bytes unchanged", async () => {
      const roomId = newRoomId();
      const scope = { roomId, teamId: TEAM_A.teamId };
      await fillRoom(store, scope);
      t += 10 * 60_000;
      const before = await roomBytes(backing, roomId);

      const exported = await get(`/rooms/${roomId}/export`, TEAM_A.secret);
      expect(exported.status).toBe(200);
      expect((await exported.text()).length).toBeGreaterThan(1000);
      expect(await roomBytes(backing, roomId)).toBe(before);

      // What migrate reads of each room on both sides.
      expect(await exportDigest(store, scope, t)).not.toBeNull();
      for (const [path, secret] of [
        ["/admin/overview", TEAM_A.secret],
        [`/admin/overview/${roomId}`, TEAM_A.secret],
        [`/room/${roomId}/view`, TEAM_A.secret],
        [`/room/${roomId}/view`, undefined],
        [`/room/${roomId}`, undefined],
      ] as const) {
        const res = await get(path, secret);
        expect({ path, secret: secret !== undefined, status: res.status }).toEqual({
          path,
          secret: secret !== undefined,
          status: 200,
        });
        await res.text();
      }
      for (const [path, secret] of [
        [`/rooms/${roomId}/stream`, TEAM_A.secret],
        [`/room/${roomId}/stream`, undefined],
      ] as const) {
        const stream = await openSse({
          url: `${server.url}${path}`,
          secret,
          headers: { "Last-Event-ID": "0" },
        });
        expect(stream.status).toBe(200);
        await stream.message(0, 10_000);
        stream.close();
      }
      expect(await roomBytes(backing, roomId)).toBe(before);
    });
  });
}
