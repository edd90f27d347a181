/**
 * JSON-RPC batches on POST /mcp, on every store (the rate windows live in the store): a batch is refused where the
 * protocol revision has none (2025-06-18 and later, by the MCP-Protocol-Version header or the batch's own
 * initialize), holds at most MAX_BATCH messages, and each of its messages is one unit of the caller's budget — a
 * batch of 100 tools/list neither costs one unit nor answers 11.7 MB.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { startInProcess } from "../support/server.ts";
import { E2E_STORES } from "../support/stores.ts";

type Message = { jsonrpc: "2.0"; id?: number; method: string; params?: Record<string, unknown> };

/** The documented cap on a batch's messages (docs/http.md). */
const MAX_BATCH = 10;

const list = (id: number): Message => ({ jsonrpc: "2.0", id, method: "tools/list" });

for (const make of E2E_STORES) {
  describe(`batches on ${make().name}`, () => {
    let store: RoomStore;
    beforeAll(async () => {
      store = await make().open();
    });
    afterAll(async () => {
      await store.close();
    });

    /**
     * A server whose team and operator are fresh (their windows start empty on the shared stores, which other
     * files' operators charge within the same minute) with a tools limit.
     */
    const serve = (limit: number) => {
      const team = {
        teamId: `bt-${crypto.randomUUID().slice(0, 8)}`,
        secret: `secret-${crypto.randomUUID()}`,
      };
      const operator = {
        teamId: `bo-${crypto.randomUUID().slice(0, 8)}`,
        secret: `op-${crypto.randomUUID()}`,
      };
      const server = startInProcess(store, undefined, {
        API_KEYS: `${team.teamId}:${team.secret}`,
        OPERATOR_KEYS: `${operator.teamId}:${operator.secret}`,
        RATE_LIMIT_PER_MINUTE: String(limit),
      });
      const post = (body: unknown, secret: string, headers: Record<string, string> = {}) =>
        fetch(`${server.url}/mcp`, {
          method: "POST",
          headers: {
            Authorization: `Bearer ${secret}`,
            "Content-Type": "application/json",
            Accept: "application/json, text/event-stream",
            ...headers,
          },
          body: JSON.stringify(body),
        });
      return { server, team, operator, post };
    };

    test("R2-4 a batch of 100 tools/list is refused whole: -32600 naming the cap, a small answer, nothing run", async () => {
      const { server, team, post } = serve(1000);
      try {
        const res = await post(
          Array.from({ length: 100 }, (_, i) => list(i)),
          team.secret,
        );
        const text = await res.text();
        expect(res.status).toBe(400);
        expect(text.length).toBeLessThan(500);
        expect(JSON.parse(text)).toEqual({
          jsonrpc: "2.0",
          id: null,
          error: { code: -32600, message: `Invalid Request: a batch holds at most ${MAX_BATCH} messages` },
        });
        // Nothing was charged: the next request sees the whole meta window (ten times the tools limit).
        const next = await post(list(1), team.secret);
        expect(next.headers.get("ratelimit-remaining")).toBe(String(10_000 - 1));
        await next.body?.cancel();
      } finally {
        await server.stop();
      }
    });

    test("R2-4 each message of a batch is one unit: batches of MAX_BATCH tools/list use the meta window up", async () => {
      // A tools limit of 3: the meta ceiling is 30, so three full batches empty it.
      const { server, team, post } = serve(3);
      try {
        const batch = Array.from({ length: MAX_BATCH }, (_, i) => list(i));
        for (const left of [20, 10, 0]) {
          const res = await post(batch, team.secret);
          expect(res.status).toBe(200);
          expect(res.headers.get("ratelimit-remaining")).toBe(String(left));
          expect(((await res.json()) as unknown[]).length).toBe(MAX_BATCH);
        }
        const refused = await post(batch, team.secret);
        expect(refused.status).toBe(429);
        expect(await refused.json()).toEqual({ error: "Rate limit exceeded" });
        const single = await post(list(1), team.secret);
        expect(single.status).toBe(429);
        await single.body?.cancel();
      } finally {
        await server.stop();
      }
    });

    test("R2-4 a batch with a tool call charges the call to the tools window and every other message to meta", async () => {
      const { server, team, operator, post } = serve(5);
      try {
        // A dynamic key of a team of its own too: its windows are charged through the store's key lookup.
        const provisioned = await httpClient(server.url).post("/admin/keys/provision", operator.secret, {
          teamId: `bp-${crypto.randomUUID().slice(0, 8)}`,
        });
        expect(provisioned.status).toBe(201);
        for (const secret of [team.secret, provisioned.body.secret as string]) {
          const res = await post(
            [
              {
                jsonrpc: "2.0",
                id: 1,
                method: "tools/call",
                params: { name: "read_plan", arguments: { roomId: "r-batch" } },
              },
              list(2),
              { jsonrpc: "2.0", id: 3, method: "ping" },
              { jsonrpc: "2.0", method: "notifications/initialized" },
            ],
            secret,
            { "MCP-Protocol-Version": "2025-03-26" },
          );
          expect(res.status).toBe(200);
          const answers = (await res.json()) as { id: number; result?: unknown }[];
          expect(answers.map((a) => a.id).sort()).toEqual([1, 2, 3]);
          // The tool call took one of 5 tools units; the three other messages three of 50 meta units.
          const call = await post(
            {
              jsonrpc: "2.0",
              id: 4,
              method: "tools/call",
              params: { name: "read_plan", arguments: { roomId: "r-batch" } },
            },
            secret,
          );
          expect(call.headers.get("ratelimit-remaining")).toBe("3");
          await call.body?.cancel();
          const meta = await post(list(5), secret);
          expect(meta.headers.get("ratelimit-remaining")).toBe(String(50 - 4));
          await meta.body?.cancel();
        }
      } finally {
        await server.stop();
      }
    });

    test("R2-4 protocol revisions without batching (2025-06-18 and later) refuse any batch", async () => {
      const { server, team, post } = serve(1000);
      try {
        for (const version of ["2025-06-18", "2025-11-25"]) {
          const res = await post([list(1), list(2)], team.secret, { "MCP-Protocol-Version": version });
          expect(res.status).toBe(400);
          expect(await res.json()).toEqual({
            jsonrpc: "2.0",
            id: null,
            error: {
              code: -32600,
              message: `Invalid Request: MCP ${version} has no JSON-RPC batches; send one message per request`,
            },
          });
        }
        // Without the header, the version a batch's initialize asks for decides.
        const init = {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "t", version: "1" },
          },
        };
        const asked = await post([init, list(2)], team.secret);
        expect(asked.status).toBe(400);
        expect(((await asked.json()) as { error: { message: string } }).error.message).toContain(
          "MCP 2025-06-18 has no JSON-RPC batches",
        );
        // A single message is never a batch, whatever the version.
        const one = await post(list(3), team.secret, { "MCP-Protocol-Version": "2025-06-18" });
        expect(one.status).toBe(200);
        await one.body?.cancel();
      } finally {
        await server.stop();
      }
    });
  });
}
