/**
 * Every tool of the catalog, on every store, through real HTTP: another team is denied like a missing room, an
 * invite for another room likewise, a bound key cannot act as anyone else, and bad arguments get a clear error
 * and change nothing. The tools come from the catalog and their arguments from their own examples, so a new
 * tool is covered without editing this file. A tool for people's acts (peopleOnly) runs its example with a
 * person's key of the team, and refuses the team's agent key, changing nothing. Both key scopes are checked for
 * every tool too: a read-only key is refused every write and allowed every read, a key scoped to other rooms reads
 * the room as missing. An agent suspended in the room is refused by every room tool, changing nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { z } from "zod";
import { CATALOG, type Catalog, createCatalog } from "../../src/mcp/catalog.ts";
import { defineTool, type ToolDefinition } from "../../src/mcp/tool.ts";
import { agentIdSchema } from "../../src/protocol/ids.ts";
import type { RoomStore } from "../../src/store/types.ts";
import {
  badCases,
  type CheckEnv,
  crossTeamProblems,
  foreignInviteProblems,
  impersonationProblems,
  prepared,
  send,
  snapshot,
  suspendedProblems,
} from "../support/catalog-check.ts";
import { httpClient } from "../support/http.ts";
import { readOnlyProblems, roomScopeProblems } from "../support/scope-check.ts";
import { OPERATOR, type RunningServer, startInProcess, TEAM_A, TEAM_B } from "../support/server.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";

/** A person of team A (an operator of the team: a person whose role needs no room to name it). */
const PERSON_A = { secret: "secret-person-a-0123456789", humanId: "pat" };
const OPERATORS = `${OPERATOR.teamId}:${OPERATOR.secret},${TEAM_A.teamId}:${PERSON_A.secret}:${PERSON_A.humanId}`;

/** The checks' environment for a server in this process on `store`: team A's rooms, team B the other team. */
const checkEnv = (server: RunningServer, store: RoomStore): CheckEnv => ({
  http: httpClient(server.url),
  teamKey: TEAM_A.secret,
  otherTeamKey: TEAM_B.secret,
  direct: { store, teamId: TEAM_A.teamId },
});

/** Runs `check` against a server in this process (with `catalog`, else the real one) on a store of its own. */
async function onServer(check: (env: CheckEnv) => Promise<void>, catalog?: Catalog): Promise<void> {
  const store = await (E2E_STORES[0] as (typeof E2E_STORES)[number])().open();
  const server = startInProcess(store, undefined, {}, Date.now, catalog);
  try {
    await check(checkEnv(server, store));
  } finally {
    await server.stop();
    await store.close();
  }
}

for (const make of E2E_STORES) {
  describe(`the catalog on ${make().name}`, () => {
    let store: RoomStore;
    let server: RunningServer;
    let env: CheckEnv;
    let boundToAlice: string;
    let foreignInvite: string;
    let readOnlyKey: string;
    let scoped: { key: string; rooms: string[] };
    beforeAll(async () => {
      store = await make().open();
      server = startInProcess(store, undefined, { OPERATOR_KEYS: OPERATORS });
      env = checkEnv(server, store);
      boundToAlice = (await env.http.post("/admin/keys", TEAM_A.secret, { boundAgentId: "alice" })).body
        .secret;
      const elsewhere = newRoomId();
      await env.http.post("/admin/rooms", TEAM_A.secret, { roomId: elsewhere });
      foreignInvite = (await env.http.post(`/admin/rooms/${elsewhere}/invite`, TEAM_A.secret, {})).body.token;
      readOnlyKey = (await env.http.post("/admin/keys", TEAM_A.secret, { readOnly: true })).body.secret;
      scoped = { key: "", rooms: [elsewhere] };
      scoped.key = (await env.http.post("/admin/keys", TEAM_A.secret, { rooms: scoped.rooms })).body.secret;
    });
    afterAll(async () => {
      await server.stop();
      await store.close();
    });

    for (const tool of CATALOG.tools) {
      describe(tool.name, () => {
        test.concurrent("another team is denied like a missing room, nothing changes", async () => {
          expect(await crossTeamProblems(tool, env, newRoomId())).toEqual([]);
        });
        test.concurrent("an invite for another room is denied like a missing room, nothing changes", async () => {
          expect(await foreignInviteProblems(tool, env, newRoomId(), foreignInvite)).toEqual([]);
        });
        test.concurrent("a read-only key: a write is refused before its arguments, a read is allowed", async () => {
          expect(await readOnlyProblems(tool, env, newRoomId(), readOnlyKey)).toEqual([]);
        });
        test.concurrent("a key scoped to other rooms reads the room as missing, nothing changes", async () => {
          expect(await roomScopeProblems(tool, env, newRoomId(), scoped)).toEqual([]);
        });
        test.concurrent("a key bound to alice cannot act as another agent", async () => {
          expect(await impersonationProblems(tool, env, newRoomId(), boundToAlice)).toEqual([]);
        });
        test.concurrent("an agent suspended in the room is refused (AGENT_SUSPENDED), nothing changes", async () => {
          expect(await suspendedProblems(tool, env, newRoomId(), boundToAlice)).toEqual([]);
        });
        test.concurrent("bad arguments: a clear error naming the field, nothing changes", async () => {
          const roomId = newRoomId();
          const valid = await prepared(tool, env, roomId);
          const before = await snapshot(env, roomId);
          for (const bad of badCases(tool, valid)) {
            const result = await send(env, TEAM_A.secret, tool, bad.args);
            expect(result.isError, `${bad.label}: ${result.text}`).toBe(true);
            expect(result.text, bad.label).toMatch(bad.expect);
          }
          expect(await snapshot(env, roomId)).toBe(before);
          // The example itself succeeds (a tool for people's acts, with a person's key).
          const ok = await send(env, tool.peopleOnly ? PERSON_A.secret : TEAM_A.secret, tool, valid);
          expect(ok.isError, ok.text).toBe(false);
        });
        if (tool.peopleOnly !== undefined) {
          test.concurrent("an agent's key is refused, nothing changes", async () => {
            const roomId = newRoomId();
            const valid = await prepared(tool, env, roomId);
            const before = await snapshot(env, roomId);
            for (const key of [TEAM_A.secret, boundToAlice]) {
              const result = await send(env, key, tool, valid);
              expect(result.text).toBe(`Error: Only people can ${tool.peopleOnly}`);
            }
            expect(await snapshot(env, roomId)).toBe(before);
          });
        }
      });
    }
  });
}

describe("the checks catch a tool that escapes identity enforcement", () => {
  // Declares its acting agent as a mere filter: the call path then neither forces nor refuses it.
  const rogue = defineTool({
    name: "rogue_post",
    title: "Rogue post",
    description: "A deliberately broken tool: posts an event as whatever agent the caller names.",
    returns: "Event",
    input: z.strictObject({
      roomId: z.string(),
      agentId: agentIdSchema.describe("The agent the event comes from."),
    }),
    effect: "write",
    filters: ["agentId"],
    example: async () => ({ agentId: "alice" }),
    handler: (a, call) =>
      call.store.postEvent(call.scope, { type: "rogue", from: a.agentId, to: "all", payload: {} }),
  });
  // Names its acting agent in an argument it does not declare at all.
  const undeclared = defineTool({
    name: "undeclared_post",
    title: "Undeclared post",
    description: "A deliberately broken tool: its agent argument is declared neither acting nor filter.",
    returns: "Event",
    input: z.strictObject({ roomId: z.string(), by: agentIdSchema.describe("Who posts.") }),
    effect: "write",
    example: async () => ({ by: "alice" }),
    handler: (a, call) =>
      call.store.postEvent(call.scope, { type: "rogue", from: a.by, to: "all", payload: {} }),
  });

  test("the scope checks fail when the key is not narrowed at all", () =>
    onServer(async (env) => {
      const addTask = CATALOG.get("add_task") as ToolDefinition;
      const unscoped = { key: TEAM_A.secret, rooms: [newRoomId()] };
      expect((await readOnlyProblems(addTask, env, newRoomId(), TEAM_A.secret)).join("\n")).toContain(
        "add_task: a read-only key got",
      );
      expect((await roomScopeProblems(addTask, env, newRoomId(), unscoped)).join("\n")).toContain(
        "add_task: a key scoped to other rooms got",
      );
    }));

  test("a snapshot read from the store changes with every kind of write", () =>
    onServer(async (env) => {
      const roomId = newRoomId();
      expect(await snapshot(env, roomId)).toContain('"room":null');
      await env.http.post("/admin/rooms", TEAM_A.secret, { roomId });
      const writes: [string, Record<string, unknown>][] = [
        ["set_shared_var", { key: "k", value: "v", agentId: "alice" }],
        ["post_event", { type: "note", from: "alice", payload: {} }],
        ["heartbeat", { agentId: "bob" }],
        ["acquire_lock", { resource: "db", agentId: "alice" }],
        ["get_unread_events", { agentId: "carol" }],
      ];
      let before = await snapshot(env, roomId);
      for (const [name, args] of writes) {
        const result = await env.http.tool(TEAM_A.secret, name, { roomId, ...args });
        expect(result.isError, `${name}: ${result.text}`).toBe(false);
        const after = await snapshot(env, roomId);
        expect(after, name).not.toBe(before);
        before = after;
      }
    }));

  test("the impersonation check fails both", () =>
    onServer(
      async (env) => {
        const bound = (await env.http.post("/admin/keys", TEAM_A.secret, { boundAgentId: "alice" })).body
          .secret;
        const found = await impersonationProblems(rogue, env, newRoomId(), bound);
        expect(found.join("\n")).toContain("filter agentId let a bound key act as mallory-impostor");
        const missing = await impersonationProblems(undeclared, env, newRoomId(), bound);
        expect(missing.join("\n")).toContain("agent argument by is not declared");
      },
      createCatalog([...CATALOG.tools, rogue, undeclared]),
    ));
});
