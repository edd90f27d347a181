/**
 * The pages and the JSON routes behind them over HTTP (docs/web.md): the security headers of every page, the
 * assets (content-hashed names, immutable, bundled from the client modules), where each page sends a person who is
 * or is not signed in, the room view's JSON for members and for the public (no payloads), the public stream, the
 * dashboard's routes, and ROOM_SUMMARY=private.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { silentLogger } from "../../src/log.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { dashboardBody, roomBody } from "../../src/web/page-bodies.ts";
import { httpClient } from "../support/http.ts";
import { OPERATOR, startInProcess } from "../support/server.ts";
import { openSse } from "../support/sse.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";
import { callTool, provisionWebTeam, type WebTeam } from "../support/web.ts";

setDefaultTimeout(30_000);

const make = E2E_STORES[0] as (typeof E2E_STORES)[number];
const ENV = { KEYS_PER_TEAM: "10000", RATE_LIMIT_PER_MINUTE: "1000000" };
const HTML = { Accept: "text/html,application/xhtml+xml,*/*;q=0.8" };
const SECRET_PAYLOAD = "payload-only-for-members-7f3a";

/** A session for a person, through the sign-in form's own steps. */
async function session(base: string, key: string): Promise<{ cookie: string; csrf: string }> {
  const form = await fetch(`${base}/login`, { headers: HTML });
  const nonce = /roomd_login=([^;]+)/.exec(form.headers.get("set-cookie") ?? "")?.[1];
  const token = /<meta name="csrf-token" content="([^"]+)">/.exec(await form.text())?.[1] as string;
  const res = await fetch(`${base}/login`, {
    method: "POST",
    headers: {
      Origin: base,
      "X-CSRF-Token": token,
      Cookie: `roomd_login=${nonce}`,
      "Content-Type": "application/json",
    },
    body: JSON.stringify({ key }),
  });
  const cookie = `roomd_session=${/roomd_session=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1]}`;
  const page = await fetch(`${base}/dashboard`, { headers: { Cookie: cookie } });
  return {
    cookie,
    csrf: /<meta name="csrf-token" content="([^"]+)">/.exec(await page.text())?.[1] as string,
  };
}

function expectPageHeaders(res: Response): void {
  expect(res.headers.get("content-type")).toStartWith("text/html");
  expect(res.headers.get("content-security-policy")).toBe(
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  expect(res.headers.get("referrer-policy")).toBe("no-referrer");
  expect(res.headers.get("cross-origin-opener-policy")).toBe("same-origin");
  expect(res.headers.get("cache-control")).toBe("no-store");
}

describe(`pages and their routes on ${make().name}`, () => {
  let store: RoomStore;
  let server: ReturnType<typeof startInProcess>;
  let base: string;
  let team: WebTeam;
  let roomId: string;

  beforeAll(async () => {
    store = await make().open();
    server = startInProcess(store, silentLogger, ENV);
    base = server.url;
    team = await provisionWebTeam(base, OPERATOR.secret);
    roomId = newRoomId();
    const tool = (name: string, args: Record<string, unknown>) =>
      callTool(base, team.agents, name, { roomId, ...args });
    await tool("add_task", { title: "Visible title", description: `desc ${SECRET_PAYLOAD}`, agentId: "a" });
    await tool("post_event", { type: "note", from: "a", payload: { secret: SECRET_PAYLOAD } });
    await tool("write_context", {
      type: "note",
      summary: "Visible summary",
      consuming_agents: [],
      author: "a",
      payload: { text: SECRET_PAYLOAD },
    });
    await tool("request_approval", {
      agentId: "a",
      action: "Visible action",
      details: { d: SECRET_PAYLOAD },
    });
    await tool("record_verdict", {
      agentId: "r",
      verdict: "pass",
      summary: "Visible verdict",
      details: SECRET_PAYLOAD,
    });
    await tool("offer_handoff", { from: "a", to: "b", taskIds: ["task-1"], note: `note ${SECRET_PAYLOAD}` });
    await tool("claim_files", { agentId: "a", paths: ["src/x.ts"], reason: `why ${SECRET_PAYLOAD}` });
  });
  afterAll(async () => {
    await server?.stop();
    await store?.close();
  });

  test("every page carries the security headers, and its only script and style are roomd's own assets", async () => {
    const signed = await session(base, team.person);
    const pages = [
      await fetch(`${base}/`, { headers: HTML }),
      await fetch(`${base}/login`, { headers: HTML }),
      await fetch(`${base}/dashboard`, { headers: { ...HTML, Cookie: signed.cookie } }),
      await fetch(`${base}/room/${roomId}`, { headers: HTML }),
      await fetch(`${base}/room/${roomId}`, { headers: { ...HTML, Cookie: signed.cookie } }),
      await fetch(`${base}/room/${newRoomId()}`, { headers: HTML }),
    ];
    expect(pages.map((p) => p.status)).toEqual([200, 200, 200, 200, 200, 404]);
    for (const page of pages) {
      expectPageHeaders(page);
      const html = await page.text();
      expect(html).not.toMatch(/<script(?! type="module" src="\/assets\/[0-9a-f]{20}\.js"><\/script>)/);
      expect(html).not.toMatch(/ style=| on[a-z]+=|<style/);
      expect(html).toMatch(/<link rel="stylesheet" href="\/assets\/[0-9a-f]{20}\.css">/);
    }
  });

  test("every form field's pattern compiles as browsers compile it (the v flag), or the browser checks nothing", async () => {
    const signed = await session(base, team.person);
    const html = [
      await (await fetch(`${base}/login`, { headers: HTML })).text(),
      await (await fetch(`${base}/dashboard`, { headers: { ...HTML, Cookie: signed.cookie } })).text(),
      await (await fetch(`${base}/room/${roomId}`, { headers: { ...HTML, Cookie: signed.cookie } })).text(),
      // What only operators and members are shown.
      dashboardBody({ teamId: "t", operator: true }),
      roomBody({ roomId: "r", member: true }),
    ].join("\n");
    const patterns = [...html.matchAll(/ pattern="([^"]*)"/g)].map((m) => m[1] as string);
    expect(patterns.length).toBeGreaterThanOrEqual(9);
    for (const pattern of patterns) expect(() => new RegExp(`^(?:${pattern})$`, "v"), pattern).not.toThrow();
  });

  test("assets: content-hashed names, immutable caching, the bundles built from the client modules", async () => {
    const html = await (await fetch(`${base}/login`, { headers: HTML })).text();
    const script = /src="(\/assets\/[0-9a-f]{20}\.js)"/.exec(html)?.[1] as string;
    const style = /href="(\/assets\/[0-9a-f]{20}\.css)"/.exec(html)?.[1] as string;
    for (const [path, type] of [
      [script, "text/javascript; charset=utf-8"],
      [style, "text/css; charset=utf-8"],
    ] as const) {
      const res = await fetch(`${base}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe(type);
      expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      const body = new Uint8Array(await res.arrayBuffer());
      const hash = new Bun.CryptoHasher("sha256").update(body).digest("hex").slice(0, 20);
      expect(path).toContain(hash);
    }
    expect(await (await fetch(`${base}${script}`)).text()).not.toContain("innerHTML");
    expect((await fetch(`${base}/assets/0000000000.js`)).status).toBe(404);
  });

  test("where pages send people: signed out to the sign-in page, signed in to the dashboard", async () => {
    const signed = await session(base, team.person);
    const get = (path: string, cookie?: string) =>
      fetch(`${base}${path}`, {
        headers: { ...HTML, ...(cookie ? { Cookie: cookie } : {}) },
        redirect: "manual",
      });
    expect((await get("/dashboard")).headers.get("location")).toBe("/login?next=/dashboard");
    const root = await get("/", signed.cookie);
    expect([root.status, root.headers.get("location")]).toEqual([303, "/dashboard"]);
    const login = await get("/login?next=/room/abc", signed.cookie);
    expect([login.status, login.headers.get("location")]).toEqual([303, "/room/abc"]);
    // Only local pages: another site is never a destination.
    const elsewhere = await get("/login?next=//evil.example/x", signed.cookie);
    expect(elsewhere.headers.get("location")).toBe("/dashboard");
    const watch = await get(`/login?room=${roomId}`);
    expect([watch.status, watch.headers.get("location")]).toEqual([303, `/room/${roomId}`]);
    // The public "watch a room" form is there in public mode.
    expect(await (await get("/login")).text()).toContain('id="open-room"');
  });

  test("GET /room/:roomId keeps its JSON summary for every client that does not prefer HTML", async () => {
    const json = await httpClient(base).get(`/room/${roomId}`);
    expect(json.status).toBe(200);
    expect(json.body).toMatchObject({ roomId, taskCount: 1 });
  });

  test("the room view's JSON: members get payloads; the public the same view without any", async () => {
    const member = await httpClient(base).get(`/room/${roomId}/view`, team.person);
    expect(member.status).toBe(200);
    expect(member.body.member).toBe(true);
    expect(JSON.stringify(member.body)).toContain(SECRET_PAYLOAD);
    expect(Object.keys(member.body).sort()).toEqual(
      [
        "approvals",
        "claims",
        "context",
        "events",
        "handoffs",
        "head",
        "info",
        "locks",
        "member",
        "presence",
        "roomId",
        "suspended",
        "tasks",
        "verdicts",
      ].sort(),
    );
    const anonymous = await httpClient(base).get(`/room/${roomId}/view`);
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.member).toBe(false);
    const text = JSON.stringify(anonymous.body);
    expect(text).not.toContain(SECRET_PAYLOAD);
    for (const shown of [
      "Visible title",
      "Visible summary",
      "Visible action",
      "Visible verdict",
      "src/x.ts",
    ]) {
      expect(text).toContain(shown);
    }
    expect(anonymous.body.events.every((e: object) => !("payload" in e) && !("read_by" in e))).toBe(true);
    expect(anonymous.body.head).toBe(member.body.head);
    // A wrong credential is refused, not served the public view; another team's key finds nothing.
    expect((await httpClient(base).get(`/room/${roomId}/view`, "rk_nope_x")).status).toBe(401);
    const stranger = await provisionWebTeam(base, OPERATOR.secret, "zed");
    expect((await httpClient(base).get(`/room/${roomId}/view`, stranger.person)).status).toBe(404);
    expect((await httpClient(base).get(`/room/${newRoomId()}/view`)).status).toBe(404);
  });

  test("the public stream: the room's events without payloads, resuming after a seq", async () => {
    const head = (await httpClient(base).get(`/room/${roomId}/view`)).body.head as number;
    const sse = await openSse({ url: `${base}/room/${roomId}/stream?after=${head - 2}` });
    expect(sse.status).toBe(200);
    expect(sse.headers.get("content-type")).toBe("text/event-stream");
    const first = await sse.message(0);
    const second = await sse.message(1);
    await callTool(base, team.agents, "post_event", {
      roomId,
      type: "live_one",
      from: "a",
      payload: { secret: SECRET_PAYLOAD },
    });
    const third = await sse.message(2);
    sse.close();
    const seqs = [first, second, third].map((m) => m?.id);
    expect(seqs).toEqual([String(head - 1), String(head), String(head + 1)]);
    for (const message of [first, second, third]) {
      expect(message?.data).not.toContain(SECRET_PAYLOAD);
      expect(JSON.parse(message?.data ?? "{}")).not.toHaveProperty("payload");
    }
    expect(JSON.parse(third?.data ?? "{}")).toMatchObject({ type: "live_one", from: "a" });
    expect((await fetch(`${base}/room/${roomId}/stream?after=x`)).status).toBe(400);
    expect((await fetch(`${base}/room/${newRoomId()}/stream`)).status).toBe(404);
  });

  test("members' reads: a context entry with its history, older events, the overview and the connect panel", async () => {
    const http = httpClient(base);
    const entry = await http.get(`/rooms/${roomId}/context/ctx-1`, team.person);
    expect(entry.status).toBe(200);
    expect(entry.body.entry).toMatchObject({ id: "ctx-1", payload: { text: SECRET_PAYLOAD } });
    expect(entry.body.history).toEqual([]);
    expect((await http.get(`/rooms/${roomId}/context/ctx-99`, team.person)).status).toBe(404);
    const older = await http.get(`/rooms/${roomId}/events?before=3&limit=5`, team.person);
    expect(older.body.events.map((e: { seq: number }) => e.seq)).toEqual([2, 1]);
    expect((await http.get(`/rooms/${roomId}/events?before=abc`, team.person)).status).toBe(400);
    // The search box: the search tool's answer, over every kind or the ones asked for; bad input is a 400.
    const found = await http.get(`/rooms/${roomId}/search?q=visible`, team.person);
    expect(found.status).toBe(200);
    expect(found.body.terms).toEqual(["visible"]);
    expect(found.body.hits.map((h: { id: string }) => h.id).sort()).toEqual(["ctx-1", "task-1"]);
    const events = await http.get(`/rooms/${roomId}/search?q=${SECRET_PAYLOAD}&types=event`, team.person);
    expect(events.body.hits).toContainEqual(expect.objectContaining({ type: "event", id: "evt-2" }));
    expect(events.body.hits.every((h: { type: string }) => h.type === "event")).toBe(true);
    for (const query of ["", "q=", "q=%21%21", "q=a&types=task,nope", "q=a&limit=0", "q=a&limit=51"])
      expect((await http.get(`/rooms/${roomId}/search?${query}`, team.person)).status).toBe(400);
    expect((await http.get(`/rooms/${newRoomId()}/search?q=a`, team.person)).body.hits).toEqual([]);
    expect((await fetch(`${base}/rooms/${roomId}/search?q=visible`)).status).toBe(401);
    const overview = await http.get("/admin/overview", team.person);
    expect(overview.body.rooms).toEqual([
      expect.objectContaining({
        roomId,
        taskCount: 1,
        agents: expect.any(Array),
        driver: expect.any(Object),
      }),
    ]);
    expect((await http.get(`/admin/overview/${roomId}`, team.person)).body.roomId).toBe(roomId);
    expect((await http.get(`/admin/overview/${newRoomId()}`, team.person)).status).toBe(404);
    const connect = await http.get(`/dashboard/connect?roomId=${roomId}&agentId=backend-claude`, team.person);
    expect(connect.status).toBe(200);
    expect(connect.body.clients.map((c: { name: string }) => c.name)).toEqual([
      "Claude Code",
      "Cursor",
      "Codex CLI",
      "Gemini CLI",
    ]);
    expect(connect.body.hooks.text).toContain("roomctl hook PostToolUse");
    expect(JSON.stringify(connect.body)).not.toContain(team.person);
    expect(
      (await http.get(`/dashboard/connect?roomId=${roomId}&agentId=backend-claude`, team.agents)).status,
    ).toBe(403);
    expect((await http.get(`/dashboard/connect?roomId=Bad!&agentId=x`, team.person)).status).toBe(400);
  });

  test("teams: operators see the environment's teams and the store's, and no one else does", async () => {
    const http = httpClient(base);
    const teams = await http.get("/admin/teams", OPERATOR.secret);
    expect(teams.status).toBe(200);
    expect(teams.body.teams).toContainEqual({ teamId: OPERATOR.teamId, source: "environment" });
    expect(teams.body.teams).toContainEqual({ teamId: team.teamId, source: "store" });
    expect((await http.get("/admin/teams", team.person)).status).toBe(403);
  });

  test("the dashboard stream says which room changed", async () => {
    const sse = await openSse({ url: `${base}/dashboard/stream`, secret: team.person });
    expect(sse.status).toBe(200);
    await callTool(base, team.agents, "heartbeat", { roomId, agentId: "pinger" });
    const message = await sse.message(0);
    sse.close();
    expect(message).toMatchObject({ event: "room" });
    expect(JSON.parse(message?.data ?? "{}")).toEqual({ roomId });
    expect((await fetch(`${base}/dashboard/stream`)).status).toBe(401);
  });

  test("R2-8 a room deleted under the dashboard stream leaves its list; the stream goes on for the others", async () => {
    const http = httpClient(base);
    const doomed = newRoomId();
    expect((await http.post("/admin/rooms", team.person, { roomId: doomed })).status).toBe(201);
    const sse = await openSse({ url: `${base}/dashboard/stream`, secret: team.person });
    try {
      await Bun.sleep(200);
      const seen = sse.messages.length;
      expect((await http.del(`/admin/rooms/${doomed}`, team.person)).status).toBe(200);
      await sse.until((r) => r.messages.slice(seen).some((m) => m.event === "rooms"));
      await Bun.sleep(1100);
      await callTool(base, team.agents, "heartbeat", { roomId, agentId: "pinger" });
      await sse.until((r) =>
        r.messages.slice(seen).some((m) => m.event === "room" && m.data.includes(roomId)),
      );
      expect(sse.ended).toBe(false);
    } finally {
      sse.close();
    }
  });

  test("ROOM_SUMMARY=private: no public view or stream; the page sends a signed-out person to sign in", async () => {
    const priv = startInProcess(store, silentLogger, { ...ENV, ROOM_SUMMARY: "private" });
    try {
      expect((await fetch(`${priv.url}/room/${roomId}/view`)).status).toBe(401);
      expect((await fetch(`${priv.url}/room/${roomId}/stream`)).status).toBe(401);
      const page = await fetch(`${priv.url}/room/${roomId}`, { headers: HTML, redirect: "manual" });
      expect([page.status, page.headers.get("location")]).toEqual([303, `/login?next=/room/${roomId}`]);
      expect(await (await fetch(`${priv.url}/login`, { headers: HTML })).text()).not.toContain(
        'id="open-room"',
      );
      const signed = await session(priv.url, team.person);
      const member = await fetch(`${priv.url}/room/${roomId}`, {
        headers: { ...HTML, Cookie: signed.cookie },
      });
      expect(member.status).toBe(200);
      expect(await member.text()).toContain('data-member="1"');
      expect((await httpClient(priv.url).get(`/room/${roomId}/view`, team.person)).body.member).toBe(true);
    } finally {
      await priv.stop();
    }
  });
});
