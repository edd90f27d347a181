/**
 * Key scopes over real HTTP and through the official MCP SDK client, on every store
 * (docs/security.md#key-lifetime-and-scopes): a key scoped to some rooms reads every other room as missing — in
 * tools, room routes and streams — and lists and suggests only its rooms; a read-only key is
 * refused every write and lists only read tools; a scoped key uses only GET /admin/me of the admin API.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CATALOG } from "../../src/mcp/catalog.ts";
import { isMutating } from "../../src/mcp/tool.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { connect, errorText, type RoomClient } from "../support/mcp-client.ts";
import { OPERATOR, type RunningServer, startInProcess } from "../support/server.ts";
import { E2E_STORES } from "../support/stores.ts";

const DENIED = "Room not found or access denied";
const SCOPED_ADMIN = "This key is scoped (rooms or readOnly): of the admin API it may use only GET /admin/me";

for (const make of E2E_STORES) {
  describe(`key scopes (${make().name})`, () => {
    let store: RoomStore;
    let server: RunningServer;
    let http: ReturnType<typeof httpClient>;
    const base = `s${crypto.randomUUID().slice(0, 8)}`;
    // Close ids, so a typo of one is near all of them: the hint must still name only the key's rooms.
    const [mine, alsoMine, notMine] = [`${base}-aa`, `${base}-ab`, `${base}-ac`];
    let team: { teamId: string; secret: string };
    let scopedKey: string;
    let readOnlyKey: string;
    const clients: RoomClient[] = [];
    beforeAll(async () => {
      store = await make().open();
      server = startInProcess(store);
      http = httpClient(server.url);
      const teamId = `t-${crypto.randomUUID().slice(0, 8)}`;
      const made = await http.post("/admin/keys/provision", OPERATOR.secret, {
        teamId,
        kind: "human",
        humanId: "ada",
      });
      team = { teamId, secret: made.body.secret };
      for (const roomId of [mine, alsoMine, notMine]) {
        expect((await http.post("/admin/rooms", team.secret, { roomId })).status).toBe(201);
        await http.tool(team.secret, "add_task", { roomId, title: `task of ${roomId}` });
      }
      scopedKey = (await http.post("/admin/keys", team.secret, { rooms: [mine, alsoMine] })).body.secret;
      readOnlyKey = (await http.post("/admin/keys", team.secret, { readOnly: true })).body.secret;
    });
    afterAll(async () => {
      for (const client of clients) await client.close();
      await server.stop();
      await store.close();
    });
    const sdk = async (secret: string, profile?: "full" | "compact" | "agentroom") => {
      const client = await connect(server.url, secret, "json", profile ? { profile } : {});
      clients.push(client);
      return client;
    };

    test("a rooms-scoped key through the SDK: its rooms work, another reads as missing, list_rooms and hints show only its rooms", async () => {
      const client = await sdk(scopedKey);
      expect(await client.call("add_task", { roomId: mine, title: "mine" })).toMatchObject({ title: "mine" });
      const refused = await client.raw("read_plan", { roomId: notMine });
      const missing = await client.raw("read_plan", { roomId: `${base}-ad` });
      expect(refused.isError).toBe(true);
      expect(errorText(refused)).toStartWith(`Error: ${DENIED} (roomId "${notMine}" may be a typo; `);
      // Exactly as a room that does not exist reads (only the room named differs).
      expect(errorText(refused).replace(notMine, "X")).toBe(errorText(missing).replace(`${base}-ad`, "X"));
      expect(errorText(refused)).not.toContain(`"${notMine}",`);
      const hint = errorText(await client.raw("read_plan", { roomId: `${base}-ax` }));
      expect(hint).toContain(`"${mine}"`);
      expect(hint).not.toContain(notMine);
      const writes = await client.raw("add_task", { roomId: notMine, title: "sneak" });
      expect(errorText(writes)).toStartWith(`Error: ${DENIED}`);
      const listed = (await client.call<{ rooms: { roomId: string }[] }>("list_rooms", {})).rooms.map(
        (r) => r.roomId,
      );
      expect(listed.sort()).toEqual([mine, alsoMine].sort());
      expect(await client.call("whoami", {})).toMatchObject({ rooms: [mine, alsoMine] });
      // The room was not touched.
      const plan = await http.tool(team.secret, "read_plan", { roomId: notMine });
      expect(plan.text).not.toContain("sneak");
      // Resources list only its rooms too.
      const resources = (await client.client.listResources()).resources.map((r) => r.uri);
      expect(resources.some((uri) => uri.includes(notMine))).toBe(false);
      expect(resources.some((uri) => uri.includes(mine))).toBe(true);
    });

    test("a rooms-scoped key over HTTP: routes, the stream and the summary of another room read as missing", async () => {
      expect((await http.get(`/rooms/${mine}/events`, scopedKey)).status).toBe(200);
      // (The summary at /room/:roomId is public by default, ROOM_SUMMARY: it shows every room to anyone.)
      for (const path of [`/rooms/${notMine}/events`, `/rooms/${notMine}/driver`]) {
        const answer = await http.get(path, scopedKey);
        expect(answer.status, path).toBe(404);
        expect(answer.body, path).toEqual({ error: DENIED });
      }
      const stream = await fetch(`${server.url}/rooms/${notMine}/stream`, {
        headers: { Authorization: `Bearer ${scopedKey}` },
      });
      expect(stream.status).toBe(404);
      expect(await stream.json()).toEqual({ error: DENIED });
      expect((await http.get(`/room/${mine}`, scopedKey)).status).toBe(200);
      const message = await http.post(`/rooms/${notMine}/messages`, scopedKey, { text: "hi" });
      expect(message.status).toBe(404);
      // A fork is a new room: never one outside the key's rooms.
      const fork = await http.post(`/rooms/${mine}/fork`, scopedKey, { newRoomId: `${base}-fork` });
      expect(fork.status).toBe(403);
      expect(fork.body.error).toContain("This key reaches only its own rooms");
      expect((await http.post(`/rooms/${mine}/fork`, scopedKey, {})).status).toBe(403);
      expect((await http.tool(team.secret, "read_plan", { roomId: `${base}-fork` })).text).toContain(
        '"tasks":[]',
      );
    });

    test("a scoped key may use only GET /admin/me of the admin API", async () => {
      for (const key of [scopedKey, readOnlyKey]) {
        expect((await http.get("/admin/me", key)).status).toBe(200);
        for (const [method, path] of [
          ["GET", "/admin/keys"],
          ["POST", "/admin/keys"],
          ["GET", "/admin/rooms"],
          ["POST", "/admin/rooms"],
          ["POST", `/admin/rooms/${mine}/invite`],
        ] as const) {
          const answer = method === "GET" ? await http.get(path, key) : await http.post(path, key, {});
          expect(answer.status, `${method} ${path}`).toBe(403);
          expect(answer.body, `${method} ${path}`).toEqual({ error: SCOPED_ADMIN });
        }
      }
      // The dashboard's stream names every room of the team: refused to a scoped key too.
      for (const key of [scopedKey, readOnlyKey]) {
        const stream = await fetch(`${server.url}/dashboard/stream`, {
          headers: { Authorization: `Bearer ${key}` },
        });
        expect(stream.status).toBe(403);
        expect(await stream.json()).toEqual({ error: SCOPED_ADMIN });
      }
      expect((await http.get("/admin/me", readOnlyKey)).body).toMatchObject({ readOnly: true });
      expect((await http.get("/admin/me", scopedKey)).body).toMatchObject({ rooms: [mine, alsoMine] });
    });

    test("a read-only key through the SDK: tools/list shows only read tools, writes are refused, reads work", async () => {
      for (const profile of ["full", "compact", "agentroom"] as const) {
        const client = await sdk(readOnlyKey, profile);
        const tools = (await client.client.listTools()).tools;
        const reads = CATALOG.tools.filter((t) => t.profiles.includes(profile) && !isMutating(t));
        expect(tools.map((t) => t.name).sort()).toEqual(reads.map((t) => t.name).sort());
        expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
      }
      const client = await sdk(readOnlyKey);
      const refused = await client.raw("add_task", { roomId: mine, title: "no" });
      expect(errorText(refused)).toBe(
        "Error: This key is read-only: add_task writes, so it is refused; use a key without readOnly for writes",
      );
      // Refused before its arguments are looked at.
      expect(errorText(await client.raw("add_task", { bogus: true }))).toContain("This key is read-only");
      const plan = await client.call<{ tasks: { title: string }[] }>("read_plan", { roomId: mine });
      expect(plan.tasks.map((t) => t.title)).not.toContain("no");
      // An unscoped key still sees every tool.
      const full = await sdk(team.secret);
      expect((await full.client.listTools()).tools.some((t) => t.name === "add_task")).toBe(true);
    });

    test("a read-only key over HTTP: non-GET room routes are refused with 403, GET routes work", async () => {
      const refused = await http.post(`/rooms/${mine}/messages`, readOnlyKey, { text: "hi" });
      expect(refused).toMatchObject({
        status: 403,
        body: {
          error: `This key is read-only: POST /rooms/${mine}/messages writes, so it is refused; use a key without readOnly for writes`,
        },
      });
      expect((await http.post(`/rooms/${mine}/driver`, readOnlyKey, {})).status).toBe(403);
      expect((await http.get(`/rooms/${mine}/events`, readOnlyKey)).status).toBe(200);
      expect((await http.get(`/rooms/${mine}/driver`, readOnlyKey)).status).toBe(200);
    });

    test("a key scoped to one room, read-only: calls default to its room", async () => {
      const key = (await http.post("/admin/keys", team.secret, { rooms: [alsoMine], readOnly: true })).body
        .secret;
      const client = await sdk(key);
      const plan = await client.call<{ tasks: { title: string }[] }>("read_plan", {});
      expect(plan.tasks.map((t) => t.title)).toContain(`task of ${alsoMine}`);
      expect(errorText(await client.raw("add_task", { title: "x" }))).toContain("This key is read-only");
    });
  });
}
