/**
 * A mistyped room: "Room not found or access denied" says the id may be a typo and names the caller's own rooms
 * with the closest ids — never another team's, identically for a missing room and another team's, and for an
 * invite only its room. The rooms are read only on that refusal.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { type InProcessServer, startInProcess, TEAM_A, TEAM_B } from "../support/server.ts";
import { newRoomId, sqliteE2e } from "../support/stores.ts";

let store: RoomStore;
let server: InProcessServer;
let http: ReturnType<typeof httpClient>;
/** usableRooms calls so far: the hint's only store read. */
let roomReads = 0;
// Team A's rooms and team B's one room, under a prefix of this file's own.
const p = newRoomId();
const A = { backend: `${p}-backend`, backend2: `${p}-backend-2`, frontend: `${p}-frontend` };
const B = { backendx: `${p}-backendx` };
const DENIED = "Error: Room not found or access denied";

beforeAll(async () => {
  store = await sqliteE2e().open();
  // The store as it is, with usableRooms counted (a wrapper, like the round-trip counters of test/round-trips).
  const counted = new Proxy(store, {
    get(target, key, receiver) {
      if (key === "usableRooms")
        return (teamId: string) => {
          roomReads++;
          return target.usableRooms(teamId);
        };
      const value = Reflect.get(target, key, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  server = startInProcess(counted);
  http = httpClient(server.url);
  for (const roomId of Object.values(A)) await http.post("/admin/rooms", TEAM_A.secret, { roomId });
  await http.post("/admin/rooms", TEAM_B.secret, { roomId: B.backendx });
});
afterAll(async () => {
  await server.stop();
  await store.close();
});

const typo = (closest: string) => `if the id is a typo, your rooms with the closest ids: ${closest}`;

test("a mistyped room that has no state names the caller's rooms with the closest ids, closest first", async () => {
  const asked = `${p}-bakend`;
  const beat = await http.tool(TEAM_A.secret, "heartbeat", { roomId: asked, agentId: "alice" });
  const answer = JSON.parse(beat.text);
  expect(answer.roomExists).toBe(false);
  expect(answer.hint).toEndWith(
    `has no state yet: it is created by the first add_task, write_context, post_event or POST /admin/rooms; ${typo(`"${A.backend}", "${A.backend2}"`)}`,
  );
  // Team B's backendx is as close as backend-2, and never named to team A.
  expect(beat.text).not.toContain(B.backendx);
});

test("another team's room: denied like a missing room, with only the caller's own rooms named", async () => {
  const taken = await http.tool(TEAM_B.secret, "read_plan", { roomId: A.backend });
  expect(taken.text).toBe(
    `${DENIED} (roomId "${A.backend}" may be a typo; your rooms with the closest ids: "${B.backendx}")`,
  );
  const missing = JSON.parse(
    (await http.tool(TEAM_B.secret, "get_my_summary", { roomId: `${p}-backenf`, agentId: "bob" })).text,
  );
  expect(missing.hint).toEndWith(typo(`"${B.backendx}"`));
  for (const room of [A.backend2, A.frontend]) expect(`${taken.text}${missing.hint}`).not.toContain(room);
});

test("no room close: the answer points at list_rooms", async () => {
  const refused = await http.tool(TEAM_B.secret, "read_plan", { roomId: A.frontend });
  expect(refused.text).toBe(
    `${DENIED} (roomId "${A.frontend}" may be a typo; list_rooms lists the rooms you can use)`,
  );
});

test("an invite sees only its room, never the team's others", async () => {
  const invite = await http.post(`/admin/rooms/${A.backend}/invite`, TEAM_A.secret, {});
  const token = invite.body.token as string;
  const near = await http.tool(token, "read_plan", { roomId: A.backend2 });
  expect(near.text).toBe(
    `${DENIED} (roomId "${A.backend2}" may be a typo; your rooms with the closest ids: "${A.backend}")`,
  );
  const far = await http.tool(token, "read_plan", { roomId: `${p}-backend-3` });
  expect(far.text).toBe(
    `${DENIED} (roomId "${p}-backend-3" may be a typo; your rooms with the closest ids: "${A.backend}")`,
  );
  expect(`${near.text}${far.text}`).not.toContain(A.frontend);
});

test("the rooms are read only when no room was found: a successful call reads none", async () => {
  const before = roomReads;
  const ok = await http.tool(TEAM_A.secret, "heartbeat", { roomId: A.backend, agentId: "alice" });
  expect(JSON.parse(ok.text).roomExists).toBe(true);
  await http.tool(TEAM_A.secret, "read_plan", { roomId: A.backend });
  expect(roomReads).toBe(before);
  await http.tool(TEAM_B.secret, "read_plan", { roomId: A.backend });
  expect(roomReads).toBe(before + 1);
  // An invite's one room needs no read.
  const invite = await http.post(`/admin/rooms/${A.backend}/invite`, TEAM_A.secret, {});
  await http.tool(invite.body.token as string, "read_plan", { roomId: A.backend2 });
  expect(roomReads).toBe(before + 1);
});
