/**
 * DNS rebinding and cross-site protection (docs/http.md#conventions, Origin): real HTTP requests with and without
 * `Origin` against /mcp, /admin, /room and routes not written yet; the server's own origin, ALLOWED_ORIGINS, `null`,
 * a rebinding Host, and forwarded headers that must not be trusted.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RoomStore } from "../../src/store/types.ts";
import { type RunningServer, startInProcess, TEAM_A } from "../support/server.ts";
import { newRoomId, sqliteE2e } from "../support/stores.ts";

type Json = Record<string, any>;
const LISTED = "https://app.example.com";

let store: RoomStore;
let server: RunningServer;
const roomId = newRoomId();

beforeAll(async () => {
  store = await sqliteE2e().open();
  server = startInProcess(store, undefined, { ALLOWED_ORIGINS: `${LISTED}, http://localhost:5173` });
  // A room with state, so the summary route answers 200 when it is reached.
  await send("POST", "/admin/rooms", {}, { roomId });
});
afterAll(async () => {
  await server.stop();
  await store.close();
});

async function send(method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${TEAM_A.secret}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: Json | undefined;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, body: json, headers: res.headers };
}

const listTools = { jsonrpc: "2.0", id: 1, method: "tools/list" };

/** One request to each kind of route: MCP, admin read and write, the room summary (JSON and HTML). */
const routes = (origin?: Record<string, string>) => [
  send("POST", "/mcp", origin, listTools),
  send("GET", "/admin/me", origin),
  send("POST", "/admin/keys", origin, { note: "from a page" }),
  send("GET", `/room/${roomId}`, origin),
  send("GET", `/room/${roomId}`, { ...origin, Accept: "text/html" }),
];

describe("Origin check", () => {
  test("requests without Origin (CLIs, agents) are unaffected", async () => {
    const answers = await Promise.all(routes());
    expect(answers.map((a) => a.status)).toEqual([200, 200, 201, 200, 200]);
  });

  test("a foreign Origin gets 403 on /mcp, /admin and /room, before authentication", async () => {
    const evil = "http://evil.example";
    const answers = await Promise.all(routes({ Origin: evil }));
    for (const answer of answers) {
      expect(answer.status).toBe(403);
      expect(answer.body).toEqual({ error: `Origin not allowed: ${evil}` });
      expect(answer.headers.get("x-request-id")).toMatch(/^[0-9a-f]{8}$/);
    }
    // No bearer at all: still 403, not 401 — the check runs before any key is looked at.
    const anonymous = await fetch(`${server.url}/admin/me`, { headers: { Origin: evil } });
    expect(anonymous.status).toBe(403);
    // The room stream too (EventSource sends Origin); without Origin the same request opens the stream.
    expect((await send("GET", `/rooms/${roomId}/stream`, { Origin: evil })).status).toBe(403);
    const stream = await fetch(`${server.url}/rooms/${roomId}/stream`, {
      headers: { Authorization: `Bearer ${TEAM_A.secret}` },
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toBe("text/event-stream");
    await stream.body?.cancel();
  });

  test("the server's own origin and ALLOWED_ORIGINS are allowed; near misses and null are not", async () => {
    const own = server.url; // http://127.0.0.1:<port>
    const port = new URL(own).port;
    for (const origin of [
      own,
      `http://localhost:${port}`,
      LISTED,
      "http://localhost:5173",
      "HTTPS://APP.example.com",
    ]) {
      // localhost:<port> is our own origin when the request addresses us by that name.
      const headers: Record<string, string> =
        origin.includes("localhost:") && origin.endsWith(port) ? { Host: `localhost:${port}` } : {};
      const answers = await Promise.all(routes({ Origin: origin, ...headers }));
      expect(
        answers.map((a) => a.status),
        origin,
      ).toEqual([200, 200, 201, 200, 200]);
    }
    for (const origin of [
      "null",
      `https://127.0.0.1:${port}`, // another scheme
      "http://127.0.0.1:1", // another port
      `http://localhost:${port}`, // another host than the request's
      "https://app.example.com.evil.example",
      "http://localhost:5174",
      "not an origin",
    ]) {
      const answer = await send("POST", "/mcp", { Origin: origin }, listTools);
      expect(answer.status, origin).toBe(403);
      expect(answer.body, origin).toEqual({ error: `Origin not allowed: ${origin}` });
    }
  });

  test("a DNS-rebinding page (attacker's name for 127.0.0.1) is refused on a loopback-bound server", async () => {
    const port = new URL(server.url).port;
    const rebinding = { Host: `attacker.example:${port}`, Origin: `http://attacker.example:${port}` };
    for (const answer of await Promise.all(routes(rebinding))) expect(answer.status).toBe(403);
    // Bound to every interface, the Host is whatever name the network uses for the server, and is taken as ours.
    const exposed = startInProcess(store, undefined, { HOST: "0.0.0.0" });
    try {
      const p = new URL(exposed.url).port;
      const res = await fetch(`${exposed.url}/admin/me`, {
        headers: {
          Authorization: `Bearer ${TEAM_A.secret}`,
          Host: `roomd.internal:${p}`,
          Origin: `http://roomd.internal:${p}`,
        },
      });
      expect(res.status).toBe(200);
      const foreign = await fetch(`${exposed.url}/admin/me`, {
        headers: { Authorization: `Bearer ${TEAM_A.secret}`, Origin: "http://evil.example" },
      });
      expect(foreign.status).toBe(403);
    } finally {
      await exposed.stop();
    }
  });

  test("X-Forwarded-Proto / X-Forwarded-Host are not trusted to name the server's origin", async () => {
    const answer = await send(
      "POST",
      "/mcp",
      {
        Origin: "https://roomd.example.com",
        "X-Forwarded-Proto": "https",
        "X-Forwarded-Host": "roomd.example.com",
      },
      listTools,
    );
    expect(answer.status).toBe(403);
  });

  test("GET /health stays open to any origin", async () => {
    const res = await fetch(`${server.url}/health`, { headers: { Origin: "http://evil.example" } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).ok).toBe(true);
  });
});
