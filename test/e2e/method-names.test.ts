/**
 * Names a client sends are looked up among roomd's own names only: a JSON-RPC method or tool named after a member
 * every JavaScript object inherits (`constructor`, `__proto__`, `toString`, …) is an unknown name — `-32601` for a
 * method, a tool error for a tool — never a 500, with a key or without one, alone or in a batch. Through real HTTP
 * on the embedded store (the lookup happens before any store work).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RoomStore } from "../../src/store/types.ts";
import { type RunningServer, startInProcess, TEAM_A } from "../support/server.ts";
import { sqliteE2e } from "../support/stores.ts";

/** Members of Object.prototype (and the accessor names) a plain-object lookup would find. */
const INHERITED = [
  "constructor",
  "__proto__",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "toLocaleString",
  "__defineGetter__",
  "__lookupSetter__",
];

describe("method and tool names", () => {
  let store: RoomStore;
  let server: RunningServer;
  beforeAll(async () => {
    store = await sqliteE2e().open();
    server = startInProcess(store);
  });
  afterAll(async () => {
    await server.stop();
    await store.close();
  });

  const post = (body: unknown, secret?: string) =>
    fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        ...(secret ? { Authorization: `Bearer ${secret}` } : {}),
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify(body),
    });

  test("R2-5 a method named after an Object.prototype member answers -32601 with a key, 401 without", async () => {
    for (const method of INHERITED) {
      for (const params of [undefined, {}, { name: "read_plan" }]) {
        const message = { jsonrpc: "2.0", id: 1, method, ...(params ? { params } : {}) };
        const keyed = await post(message, TEAM_A.secret);
        expect({ method, params, status: keyed.status }).toEqual({ method, params, status: 200 });
        expect(await keyed.json()).toEqual({
          jsonrpc: "2.0",
          id: 1,
          error: { code: -32601, message: "Method not found" },
        });
        // Without a key: refused for the key, before (and whatever) the method is.
        const anonymous = await post(message);
        expect({ method, status: anonymous.status }).toEqual({ method, status: 401 });
        await anonymous.body?.cancel();
      }
    }
  });

  test("R2-5 the same names as a notification, inside a batch, and as a tool name are unknown, never a 500", async () => {
    for (const name of INHERITED) {
      const note = await post({ jsonrpc: "2.0", method: name }, TEAM_A.secret);
      expect({ name, status: note.status }).toEqual({ name, status: 202 });
      await note.body?.cancel();
      const batch = await post(
        [
          { jsonrpc: "2.0", id: 1, method: name },
          { jsonrpc: "2.0", id: 2, method: "ping" },
        ],
        TEAM_A.secret,
      );
      expect({ name, status: batch.status }).toEqual({ name, status: 200 });
      const answers = (await batch.json()) as { id: number; error?: { code: number } }[];
      expect(answers.find((a) => a.id === 1)?.error?.code).toBe(-32601);
      const tool = await post(
        { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name, arguments: {} } },
        TEAM_A.secret,
      );
      expect({ name, status: tool.status }).toEqual({ name, status: 200 });
      const result = ((await tool.json()) as { result: { isError: boolean; content: { text: string }[] } })
        .result;
      expect(result.isError).toBe(true);
      expect(result.content[0]?.text).toStartWith("Error: Unknown tool");
    }
  });

  test("R2-5 __proto__ as an id, as a message's key and as an argument's key is plain data, never a 500", async () => {
    const cases: [unknown, number][] = [
      [{ jsonrpc: "2.0", id: "__proto__", method: "ping" }, 200],
      [JSON.parse('{"jsonrpc":"2.0","id":1,"method":"tools/list","__proto__":{"x":1}}'), 400],
      [
        JSON.parse(
          '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_plan","arguments":{"__proto__":{"roomId":"r-x"}}}}',
        ),
        200,
      ],
      [
        JSON.parse(
          '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"__proto__":{"name":"read_plan"}}}',
        ),
        400,
      ],
    ];
    for (const [body, status] of cases) {
      const res = await post(body, TEAM_A.secret);
      expect({ body, status: res.status }).toEqual({ body, status });
      await res.body?.cancel();
    }
  });
});
