/**
 * Export and import through real HTTP on every store: GET /rooms/:roomId/export streams a room that
 * POST /admin/rooms/:roomId/import recreates exactly (same lines but the header, same hashes); a file edited in
 * any way — a payload, a removed or swapped line, the end line, a state line — is refused naming the line, and
 * creates nothing; who may export; bad input (another team's room, a taken id, malformed NDJSON, an oversized
 * body) answered clearly with nothing changed. The rooms belong to the operator's team, whose key is a person's:
 * a room holding people's acts is imported only by a person.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { fillRoom } from "../support/rich-room.ts";
import { OPERATOR, type RunningServer, startInProcess, TEAM_B } from "../support/server.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";

const lines = (text: string) => text.split("\n").filter((l) => l !== "");

for (const make of E2E_STORES) {
  describe(`export and import over HTTP on ${make().name}`, () => {
    let store: RoomStore;
    let server: RunningServer;
    let http: ReturnType<typeof httpClient>;
    let source: string;
    let exported: string;

    const exportOf = (roomId: string, secret = OPERATOR.secret) =>
      fetch(`${server.url}/rooms/${roomId}/export`, { headers: { Authorization: `Bearer ${secret}` } });
    const importInto = (
      roomId: string,
      body: string | ReadableStream<Uint8Array>,
      secret = OPERATOR.secret,
    ) =>
      fetch(`${server.url}/admin/rooms/${roomId}/import`, {
        method: "POST",
        headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/x-ndjson" },
        body,
      });
    /** The room does not exist for its team: no info, no export. */
    const absent = async (roomId: string) => {
      expect((await store.roomInfo({ roomId, teamId: OPERATOR.teamId })).exists).toBe(false);
      expect((await exportOf(roomId)).status).toBe(404);
    };
    /** Imports `text` into a new room: refused with 400 naming `line` and matching `message`, nothing created. */
    const refusedAt = async (text: string, line: number, message: RegExp) => {
      const target = newRoomId();
      const res = await importInto(target, text);
      expect(res.status).toBe(400);
      const { error } = (await res.json()) as { error: string };
      expect(error).toStartWith(`line ${line}: `);
      expect(error).toMatch(message);
      await absent(target);
    };

    beforeAll(async () => {
      store = await make().open();
      server = startInProcess(store, undefined, { IMPORT_MAX_BYTES: String(1024 * 1024) });
      http = httpClient(server.url);
      source = newRoomId();
      await fillRoom(store, { roomId: source, teamId: OPERATOR.teamId });
      const res = await exportOf(source);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/x-ndjson");
      exported = await res.text();
    });
    afterAll(async () => {
      await server.stop();
      await store.close();
    });

    test("export → import under a new id → export gives the same lines and hashes", async () => {
      const copy = newRoomId();
      const res = await importInto(copy, exported);
      expect(res.status).toBe(201);
      const made = (await res.json()) as { roomId: string; headHash: string; counts: Record<string, number> };
      const end = JSON.parse(lines(exported).at(-1) as string);
      expect(made).toMatchObject({ roomId: copy, headHash: end.headHash, counts: end.counts });
      const again = await (await exportOf(copy)).text();
      expect(lines(again).slice(1)).toEqual(lines(exported).slice(1));
      const [h1, h2] = [JSON.parse(lines(exported)[0] as string), JSON.parse(lines(again)[0] as string)];
      expect({ ...h2, roomId: h1.roomId, exportedAt: h1.exportedAt }).toEqual(h1);
      // The copy works like any room: tools read it.
      const plan = await http.tool(OPERATOR.secret, "read_plan", { roomId: copy });
      expect(JSON.parse(plan.text).tasks).toHaveLength(3);
    });

    const edits: [string, (ls: string[]) => { text: string; line: number; message: RegExp }][] = [
      [
        "an event's payload changed",
        (ls) => {
          const i = ls.findIndex((l) => l.includes('"type":"question"'));
          const out = [...ls];
          out[i] = (ls[i] as string).replace("Which", "Whose");
          return { text: out.join("\n"), line: i + 1, message: /does not continue the chain/ };
        },
      ],
      [
        "an event line removed",
        (ls) => {
          const i = ls.findIndex((l) => l.startsWith('{"kind":"event"')) + 2;
          return {
            text: [...ls.slice(0, i), ...ls.slice(i + 1)].join("\n"),
            line: i + 1,
            message: /does not continue the chain/,
          };
        },
      ],
      [
        "two events swapped",
        (ls) => {
          const i = ls.findIndex((l) => l.startsWith('{"kind":"event"')) + 3;
          const out = [...ls];
          [out[i], out[i + 1]] = [ls[i + 1] as string, ls[i] as string];
          return { text: out.join("\n"), line: i + 1, message: /does not continue the chain/ };
        },
      ],
      [
        "the end line's headHash changed",
        (ls) => {
          const end = JSON.parse(ls.at(-1) as string);
          const text = [...ls.slice(0, -1), JSON.stringify({ ...end, headHash: "0".repeat(64) })].join("\n");
          return { text, line: ls.length, message: /headHash does not match/ };
        },
      ],
      [
        "a state line edited (a task's title)",
        (ls) => {
          const i = ls.findIndex((l) => l.startsWith('{"kind":"task"'));
          const out = [...ls];
          out[i] = (ls[i] as string).replace("Design", "Redesign");
          const first = ls.findIndex((l) => l.startsWith('{"kind":"event"'));
          return { text: out.join("\n"), line: first + 1, message: /a state line was edited/ };
        },
      ],
      [
        "the log cut short (no end line)",
        (ls) => ({ text: ls.slice(0, -1).join("\n"), line: ls.length, message: /without its end line/ }),
      ],
    ];
    for (const [name, edit] of edits) {
      test(`an import with ${name} is refused naming the line, and creates nothing`, async () => {
        const { text, line, message } = edit(lines(exported));
        await refusedAt(text, line, message);
      });
    }

    test("malformed NDJSON is refused naming the line; nothing is created", async () => {
      const ls = lines(exported);
      const cases: [string, number, RegExp][] = [
        [[ls[0], "{not json", ...ls.slice(2)].join("\n"), 2, /not JSON/],
        [[ls[0], '{"kind":"nonsense"}', ...ls.slice(1)].join("\n"), 2, /kind/],
        [['{"kind":"roomd-export","version":2}', ...ls.slice(1)].join("\n"), 1, /version/],
        ["", 1, /empty/],
        [[ls[0], "", ...ls.slice(1)].join("\n"), 2, /empty line/],
      ];
      for (const [text, line, message] of cases) await refusedAt(text, line, message);
    });

    test("an oversized body is refused with 413, declared or streamed, and creates nothing", async () => {
      const big = `${exported}${" ".repeat(1024 * 1024)}`;
      const target = newRoomId();
      const declared = await importInto(target, big);
      expect(declared.status).toBe(413);
      expect(((await declared.json()) as { error: string }).error).toBe(
        `Request body too large (max ${1024 * 1024} bytes)`,
      );
      // Chunked, without a length: refused once the cap is passed while reading.
      const chunks = [exported, " ".repeat(600_000), " ".repeat(600_000)];
      const streamed = await importInto(
        target,
        new ReadableStream({
          pull(controller) {
            const next = chunks.shift();
            if (next === undefined) controller.close();
            else controller.enqueue(new TextEncoder().encode(next));
          },
        }),
      );
      expect(streamed.status).toBe(413);
      await absent(target);
    });

    test("import into a taken id: the team's own → 409, another team's → 404; nothing changes", async () => {
      const before = await (await exportOf(source)).text();
      const own = await importInto(source, exported);
      expect(own.status).toBe(409);
      expect(((await own.json()) as { error: string }).error).toBe(
        `Room ${source} already exists; import into a new room id`,
      );
      const foreign = await importInto(source, exported, TEAM_B.secret);
      expect(foreign.status).toBe(404);
      expect(lines(await (await exportOf(source)).text()).slice(1)).toEqual(lines(before).slice(1));
    });

    test("a room holding people's acts is imported by a person only; an agent's key may import one without", async () => {
      const agent = await http.post("/admin/keys", OPERATOR.secret, { note: "an agent's unbound key" });
      const refused = await importInto(newRoomId(), exported, agent.body.secret);
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: string }).error).toStartWith(
        "This room holds people's acts",
      );
      const plain = newRoomId();
      await store.addTask(
        { roomId: plain, teamId: OPERATOR.teamId },
        { title: "t", description: "", depends_on: [], priority: null, agentId: "bot" },
      );
      await store.postEvent(
        { roomId: plain, teamId: OPERATOR.teamId },
        { type: "note", from: "bot", to: "all", payload: {} },
      );
      const file = await (await exportOf(plain)).text();
      const copy = newRoomId();
      expect((await importInto(copy, file, agent.body.secret)).status).toBe(201);
      expect(lines(await (await exportOf(copy)).text()).slice(1)).toEqual(lines(file).slice(1));
    });

    test("export: another team's room or an unknown one → 404; an invite → 403; a bound key of the team may", async () => {
      expect((await exportOf(source, TEAM_B.secret)).status).toBe(404);
      expect((await exportOf(newRoomId())).status).toBe(404);
      expect((await exportOf("Not_A_Room!")).status).toBe(404);
      const invite = await http.post(`/admin/rooms/${source}/invite`, OPERATOR.secret, { agentId: "guest" });
      const asGuest = await exportOf(source, invite.body.token);
      expect(asGuest.status).toBe(403);
      const bound = await http.post("/admin/keys", OPERATOR.secret, { boundAgentId: "bob" });
      const asBob = await exportOf(source, bound.body.secret);
      expect(asBob.status).toBe(200);
      expect(lines(await asBob.text()).slice(1)).toEqual(lines(exported).slice(1));
      // Importing is administration: invites and bound keys are refused.
      expect((await importInto(newRoomId(), exported, invite.body.token)).status).toBe(403);
      expect((await importInto(newRoomId(), exported, bound.body.secret)).status).toBe(403);
    });
  });
}
