/**
 * Process tier (slow): real MCP clients of both eras against two real roomd processes per store (SQLite, Redis),
 * with keys bound to their agents — SDK 1.x's Client + StreamableHTTPClientTransport (2025-11-25, initialize) and
 * SDK 2.x's client pinned to 2026-07-28 — each running the canonical agent session: summary, plan, claim, context,
 * events, wait, leave. A 2.x client listening to a room's plan resource on one process receives the update of a
 * change made through the other process within one second.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type SpawnedServer, spawnServer, TEAM_A } from "../support/server.ts";
import { type E2eStore, newRoomId, redisE2e, sqliteE2e } from "../support/stores.ts";

/** What both clients do: call a tool and get its JSON answer (throwing on a tool error). */
interface Caller {
  call<T = Record<string, unknown>>(name: string, args: Record<string, unknown>): Promise<T>;
  close(): Promise<void>;
}

const textOf = (answer: unknown) => {
  const result = answer as { content?: unknown; isError?: unknown };
  const first = (result.content as { type: string; text?: string }[] | undefined)?.[0];
  if (result.isError) throw new Error(first?.text ?? "tool error");
  return JSON.parse(first?.text ?? "null");
};

async function v1(url: string, key: string): Promise<Caller> {
  const client = new ClientV1({ name: "sdk1", version: "1.0.0" });
  await client.connect(
    new TransportV1(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }),
  );
  expect(client.getServerVersion()?.name).toBe("roomd");
  return {
    call: async (name, args) => textOf(await client.callTool({ name, arguments: args })),
    close: () => client.close(),
  };
}

async function v2(url: string, key: string): Promise<{ caller: Caller; client: ClientV2 }> {
  const client = new ClientV2(
    { name: "sdk2", version: "2.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(
    new TransportV2(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }),
  );
  return {
    client,
    caller: {
      call: async (name, args) => textOf((await client.callTool({ name, arguments: args })) as never),
      close: () => client.close(),
    },
  };
}

async function boundKey(url: string, agent: string): Promise<string> {
  const res = await fetch(`${url}/admin/keys`, {
    method: "POST",
    headers: { Authorization: `Bearer ${TEAM_A.secret}`, "Content-Type": "application/json" },
    body: JSON.stringify({ boundAgentId: agent }),
  });
  return ((await res.json()) as { secret: string }).secret;
}

/** The canonical session of one agent (its key is bound: no agentId is passed). */
async function session(c: Caller, roomId: string, lead: Caller): Promise<void> {
  const summary = await c.call<{ tasks?: unknown }>("get_my_summary", { roomId });
  expect(summary).toBeDefined();
  const task = await lead.call<{ id: string }>("add_task", { roomId, title: "ship it" });
  const plan = await c.call<{ tasks: { id: string }[] }>("read_plan", { roomId });
  expect(plan.tasks.map((t) => t.id)).toContain(task.id);
  const claimed = await c.call<{ owner: string }>("claim_task", { roomId, taskId: task.id });
  expect(claimed.owner).toMatch(/^agent-/);
  await c.call("write_context", {
    roomId,
    type: "note",
    summary: "use JSON",
    payload: { text: "simple" },
    consuming_agents: [],
  });
  await lead.call("post_event", { roomId, type: "note", to: "all", payload: { hi: 1 } });
  const unread = await c.call<unknown[]>("get_unread_events", { roomId });
  expect(Array.isArray(unread) || typeof unread === "object").toBe(true);
  const waited = await c.call<{ events?: unknown[] }>("wait_for_events", { roomId, timeoutSeconds: 1 });
  expect(waited).toBeDefined();
  await c.call("leave_room", { roomId });
  const after = await lead.call<{ tasks: { id: string; owner: string | null }[] }>("read_plan", { roomId });
  expect(after.tasks.find((t) => t.id === task.id)?.owner ?? null).toBeNull();
}

for (const backing of [sqliteE2e, redisE2e]) {
  describe(`MCP clients of both eras (${backing().name})`, () => {
    let store: E2eStore;
    let one: SpawnedServer;
    let two: SpawnedServer;
    beforeAll(async () => {
      store = backing();
      const env = {
        ...(await store.env()),
        API_KEYS: `${TEAM_A.teamId}:${TEAM_A.secret}`,
        RATE_LIMIT_PER_MINUTE: "100000",
      };
      one = await spawnServer(env);
      two = await spawnServer(env);
    });
    afterAll(async () => {
      await one?.stop();
      await two?.stop();
    });

    test("SDK 1.x (2025-11-25) and SDK 2.x (2026-07-28) each run the canonical session with bound keys", async () => {
      for (const [era, connect] of [
        ["1.x", (url: string, key: string) => v1(url, key)],
        ["2.x", async (url: string, key: string) => (await v2(url, key)).caller],
      ] as const) {
        const roomId = newRoomId();
        const agent = await connect(one.url, await boundKey(one.url, `agent-${era.replace(".", "")}`));
        const lead = await connect(two.url, await boundKey(two.url, "lead"));
        try {
          await session(agent, roomId, lead);
        } finally {
          await agent.close();
          await lead.close();
        }
      }
    }, 60_000);

    test("a 2.x listen on a room's plan gets the update of a change made through the other process within 1 s", async () => {
      const roomId = newRoomId();
      const { client, caller } = await v2(one.url, await boundKey(one.url, "watcher"));
      const writer = (await v2(two.url, await boundKey(two.url, "writer"))).caller;
      try {
        await writer.call("add_task", { roomId, title: "exists" });
        const uri = `roomd://rooms/${roomId}/plan`;
        let resolveUpdate: (at: number) => void = () => {};
        const updated = new Promise<number>((resolve) => {
          resolveUpdate = resolve;
        });
        client.setNotificationHandler("notifications/resources/updated", (n) => {
          if (n.params.uri === uri) resolveUpdate(performance.now());
        });
        const listening = await client.listen({ resourceSubscriptions: [uri] });
        const started = performance.now();
        await writer.call("add_task", { roomId, title: "seen elsewhere" });
        const arrived = await Promise.race([updated, Bun.sleep(5000).then(() => Number.NaN)]);
        expect(arrived - started).toBeLessThan(1000);
        const read = await client.readResource({ uri });
        expect(JSON.stringify(read.contents)).toContain("seen elsewhere");
        await listening.close();
      } finally {
        await caller.close();
        await writer.close();
      }
    }, 60_000);
  });
}
