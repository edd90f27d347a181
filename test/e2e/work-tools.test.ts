/**
 * The rest of the earlier server's tools through real HTTP on every store, where identity and the tool layer
 * matter: reviews decided only by the named reviewer (bound keys), tombstones by author or unbound key, templates
 * create what they list, diff_context against an independent JSON Patch apply on random payloads, list_rooms per
 * key, and search giving the same ranked ids on every store for the same data.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CATALOG } from "../../src/mcp/catalog.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { applyPatch } from "../support/json-patch-apply.ts";
import { connect } from "../support/mcp-client.ts";
import { prng } from "../support/prng.ts";
import { mutateJson, randomJson } from "../support/random-json.ts";
import { OPERATOR, type RunningServer, startInProcess } from "../support/server.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";

type Json = Record<string, any>;

/** Ranked ids per store and query, compared across stores at the end. */
const searched = new Map<string, Map<string, string[]>>();
const QUERIES = ["login", "token session", "cafe", "deploy staging 8080", "error", "Über naïve"];

for (const make of E2E_STORES) {
  const name = make().name;
  describe(`the remaining tools of the earlier server on ${name}`, () => {
    let store: RoomStore;
    let server: RunningServer;
    let http: ReturnType<typeof httpClient>;
    /** A fresh team (provisioned), so list_rooms sees only what this file makes. */
    let team: string;
    /** A person of the team, for the tools of people's acts. */
    let person: string;
    const keys: Record<string, string> = {};
    const call = async (key: string, tool: string, args: Json) => {
      const result = await http.tool(key, tool, args);
      return { ...result, json: result.isError ? null : (JSON.parse(result.text) as Json) };
    };
    const ok = async (key: string, tool: string, args: Json): Promise<any> => {
      const result = await call(key, tool, args);
      if (result.isError) throw new Error(`${tool}: ${result.text}`);
      return result.json;
    };

    beforeAll(async () => {
      store = await make().open();
      server = startInProcess(store);
      http = httpClient(server.url);
      const teamId = `wt-${crypto.randomUUID().slice(0, 8)}`;
      // The team starts with a person's key (pat), who makes the team's agent key.
      person = (
        await http.post("/admin/keys/provision", OPERATOR.secret, { teamId, kind: "human", humanId: "pat" })
      ).body.secret;
      team = (await http.post("/admin/keys", person, { note: "the team's agents" })).body.secret;
      for (const agent of ["alice", "bob"]) {
        keys[agent] = (await http.post("/admin/keys", team, { boundAgentId: agent })).body.secret;
      }
    });
    afterAll(async () => {
      await server.stop();
      await store.close();
    });

    test("reviews: only the named reviewer decides; a bound key cannot decide for another agent", async () => {
      const roomId = newRoomId();
      const review = await ok(keys.alice as string, "request_review", {
        roomId,
        reviewer: "bob",
        subject: "login handler",
      });
      expect(review).toMatchObject({ id: "rev-1", requester: "alice", reviewer: "bob", status: "pending" });
      // Alice's key cannot name bob; naming herself, she is not the reviewer.
      expect(
        (await call(keys.alice as string, "approve", { roomId, reviewId: review.id, agentId: "bob" })).text,
      ).toBe("Error: This key is bound to agent alice");
      expect((await call(keys.alice as string, "approve", { roomId, reviewId: review.id })).text).toBe(
        "Error: Review rev-1 names bob as its reviewer; only bob can approve or reject it",
      );
      expect(
        (await call(team, "reject", { roomId, reviewId: review.id, agentId: "carol", comment: "no" })).text,
      ).toBe("Error: Review rev-1 names bob as its reviewer; only bob can approve or reject it");
      expect(
        (await call(keys.alice as string, "request_review", { roomId, reviewer: "alice", subject: "me" }))
          .text,
      ).toBe("Error: Invalid arguments: reviewer: a review needs another agent than the requester");
      const decided = await ok(keys.bob as string, "reject", {
        roomId,
        reviewId: review.id,
        comment: "check lengths",
      });
      expect(decided).toMatchObject({ status: "rejected", comment: "check lengths" });
      expect((await call(keys.bob as string, "approve", { roomId, reviewId: review.id })).text).toMatch(
        /^Error: Review rev-1 was already rejected by bob at /,
      );
      const mine = await ok(keys.bob as string, "list_reviews", {
        roomId,
        reviewer: "bob",
        status: "rejected",
      });
      expect(mine.map((r: Json) => r.id)).toEqual(["rev-1"]);
      const unread = await ok(keys.alice as string, "get_unread_events", { roomId });
      expect(unread.events.map((e: Json) => [e.type, e.payload.review.status])).toEqual([
        ["review_decided", "rejected"],
      ]);
    });

    test("delete_event: by its author's bound key or an unbound team key; never by another bound key", async () => {
      const roomId = newRoomId();
      const posted = await ok(keys.alice as string, "post_event", {
        roomId,
        type: "oops",
        payload: { secret: "x" },
      });
      const other = await ok(keys.bob as string, "post_event", { roomId, type: "fine", payload: {} });
      expect((await call(keys.bob as string, "delete_event", { roomId, eventId: posted.id })).text).toBe(
        `Error: Event ${posted.id} was posted by alice; only its author or an unbound team key may delete it`,
      );
      const tomb = await ok(keys.alice as string, "delete_event", { roomId, eventId: posted.id });
      expect(tomb).toMatchObject({
        id: posted.id,
        seq: posted.seq,
        type: "oops",
        payload: {},
        deleted: { by: "alice" },
      });
      expect(
        (await ok(team, "delete_event", { roomId, eventId: other.id, agentId: "lead" })).deleted.by,
      ).toBe("lead");
      const log = await ok(team, "read_events", { roomId, limit: 100 });
      expect(log.map((e: Json) => e.seq)).toEqual([4, 3, 2, 1]);
      expect(JSON.stringify(log)).not.toContain('"secret"');
    });

    test("templates create exactly what list_templates lists", async () => {
      const { templates } = await ok(team, "list_templates", {});
      expect(templates.map((t: Json) => t.name)).toEqual(["api-handoff", "review-loop"]);
      for (const template of templates) {
        const roomId = newRoomId();
        const made = await ok(keys.alice as string, "create_room_from_template", {
          roomId,
          template: template.name,
        });
        const plan = await ok(team, "read_plan", { roomId });
        expect(plan.tasks).toEqual(made.tasks);
        expect(
          plan.tasks.map((t: Json) => ({
            id: t.id,
            title: t.title,
            description: t.description,
            depends_on: t.depends_on,
            priority: t.priority,
          })),
        ).toEqual(template.tasks);
        const contexts = await ok(team, "list_context", { roomId });
        expect(contexts).toEqual(made.contexts);
        expect(
          contexts.map((c: Json) => ({
            id: c.id,
            type: c.type,
            summary: c.summary,
            consuming_agents: c.consuming_agents,
            payload: c.payload,
          })),
        ).toEqual(template.contexts);
        expect(contexts.every((c: Json) => c.author === "alice")).toBe(true);
        const again = await call(team, "create_room_from_template", {
          roomId,
          template: template.name,
          agentId: "x",
        });
        expect(again.text).toBe(
          `Error: Room ${roomId} already has tasks, context or events; a template only fills a new or empty room, so choose a new roomId`,
        );
      }
      const bad = await call(team, "create_room_from_template", {
        roomId: newRoomId(),
        template: "api-handoff",
        params: { db: "postgres" },
        agentId: "x",
      });
      expect(bad.text).toBe(
        "Error: Invalid arguments: params.db: template api-handoff has no such parameter (it takes service, backend, frontend)",
      );
    });

    test("diff_context: applying the patch to version `from` gives version `to`, on random nested payloads", async () => {
      const random = prng(20_240_601);
      for (let round = 0; round < 4; round++) {
        const roomId = newRoomId();
        let data = randomJson(random, 4);
        const entry = await ok(team, "write_context", {
          roomId,
          type: "note",
          summary: "random",
          consuming_agents: [],
          payload: { text: "v", data },
          author: "alice",
        });
        for (let v = 0; v < 5; v++) {
          data = random() < 0.3 ? randomJson(random, 4) : mutateJson(random, data, 4);
          await ok(team, "update_context", {
            roomId,
            id: entry.id,
            author: "alice",
            payload: { text: `v${v}`, data },
          });
        }
        const { versions } = await ok(team, "get_context_history", { roomId, id: entry.id });
        expect(versions.map((v: Json) => v.version)).toEqual(["1.0", "1.1", "1.2", "1.3", "1.4", "1.5"]);
        for (const from of versions) {
          for (const to of versions) {
            const diff = await ok(team, "diff_context", {
              roomId,
              id: entry.id,
              from: from.version,
              to: to.version,
            });
            expect(applyPatch(from.payload, diff.patch)).toEqual(to.payload);
          }
        }
        const latest = await ok(team, "diff_context", { roomId, id: entry.id });
        expect([latest.from, latest.to]).toEqual(["1.4", "1.5"]);
        expect((await call(team, "diff_context", { roomId, id: entry.id, from: "1.9" })).text).toBe(
          `Error: Context entry ${entry.id} has no version 1.9; its versions are 1.0 to 1.5`,
        );
      }
    });

    test("list_rooms: the team's rooms for a team key, its one room for an invite", async () => {
      const first = newRoomId();
      const second = newRoomId();
      await ok(team, "add_task", { roomId: first, title: "one" });
      await ok(team, "add_task", { roomId: second, title: "two" });
      const listed = await ok(keys.bob as string, "list_rooms", {});
      for (const roomId of [first, second]) expect(listed.rooms.map((r: Json) => r.roomId)).toContain(roomId);
      expect(listed.count).toBe(listed.rooms.length);
      const invite = (await http.post(`/admin/rooms/${second}/invite`, team, {})).body.token;
      expect(await ok(invite, "list_rooms", {})).toEqual({
        rooms: [{ roomId: second, createdAt: expect.any(String) }],
        count: 1,
      });
    });

    test("every tool's example through the official SDK client, whose output schemas validate each result", async () => {
      const client = await connect(server.url, team);
      try {
        await client.client.listTools();
        for (const tool of CATALOG.tools) {
          const roomId = newRoomId();
          await http.post("/admin/rooms", team, { roomId });
          const args = await tool.example({ call: (name, a) => ok(team, name, { roomId, ...a }) });
          // Tools that take the room and agent only from the request (agentroom) get them as headers, listed in
          // their own profile so the client knows (and checks) their output schema.
          const own =
            tool.context === "context"
              ? await connect(server.url, team, "json", {
                  profile: tool.profiles[0] ?? "full",
                  headers: { "X-Roomd-Room": roomId, "X-Roomd-Agent": "alice" },
                })
              : tool.peopleOnly !== undefined
                ? await connect(server.url, person)
                : client;
          if (own !== client) await own.client.listTools();
          const result = await own.raw(
            tool.name,
            tool.room && tool.context !== "context" ? { roomId, ...args } : args,
          );
          if (own !== client) await own.close();
          expect({ tool: tool.name, isError: result.isError ?? false }).toEqual({
            tool: tool.name,
            isError: false,
          });
          if (tool.output) expect(result.structuredContent, tool.name).toBeDefined();
        }
      } finally {
        await client.close();
      }
    });

    test("search: a scripted corpus, ranked; results kept for the comparison across stores", async () => {
      const roomId = newRoomId();
      const words = [
        "login",
        "token",
        "session",
        "Café",
        "deploy",
        "staging",
        "8080",
        "error",
        "über",
        "naïve",
      ];
      for (let i = 0; i < 12; i++) {
        const pick = (n: number) =>
          Array.from({ length: n }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(" ");
        await ok(team, "add_task", { roomId, title: pick(3), description: pick(i % 5) });
        await ok(team, "write_context", {
          roomId,
          type: "note",
          summary: pick(2),
          consuming_agents: [],
          payload: { text: pick(i % 7) },
          author: "alice",
        });
        await ok(team, "post_event", {
          roomId,
          type: "note",
          from: "alice",
          payload: { m: pick((i % 4) + 1) },
        });
      }
      const results = new Map<string, string[]>();
      for (const query of QUERIES) {
        const answer = await ok(team, "search", { roomId, query, limit: 20 });
        expect(answer.count).toBe(answer.hits.length);
        results.set(
          query,
          answer.hits.map((h: Json) => h.id),
        );
      }
      expect((results.get("login") ?? []).length).toBeGreaterThan(0);
      searched.set(name, results);
    });
  });
}

test("search returns the same ranked ids on every store for the same data", () => {
  const stores = [...searched.keys()];
  expect(stores.length).toBe(E2E_STORES.length);
  const [first, ...rest] = stores;
  for (const other of rest)
    expect({ store: other, ids: searched.get(other) }).toEqual({
      store: other,
      ids: searched.get(first as string),
    });
});
