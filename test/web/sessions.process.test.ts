/**
 * People's web sessions over HTTP (docs/web.md, docs/security.md "Web sessions"), on SQLite, Redis and PostgreSQL: the cookie
 * and its attributes, agents' keys refused, no session fixation, the session authenticating the pages' JSON routes
 * (not /mcp), CSRF on every cookie-authenticated state-changing request, sessions shared by processes and restarts
 * and ended everywhere by sign-out or by revoking the key, sliding expiry, digests only at rest, nothing secret in
 * logs, and sign-in through the trusted proxy.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import { silentLogger } from "../../src/log.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { OPERATOR, spawnServer, startInProcess, TEAM_A } from "../support/server.ts";
import { scanStoreForSecrets } from "../support/store-scan.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";
import { callTool, provisionWebTeam, type WebTeam } from "../support/web.ts";

setDefaultTimeout(60_000);

const STORES = E2E_STORES.filter((make) => ["sqlite", "redis", "postgres"].includes(make().name));
const ENV = { KEYS_PER_TEAM: "10000", RATE_LIMIT_PER_MINUTE: "1000000" };
const HOUR = 60 * 60 * 1000;

interface Signed {
  id: string;
  csrf: string;
  /** The Set-Cookie header of the sign-in answer. */
  setCookie: string;
  status: number;
  body: any;
}

const cookieValue = (setCookie: string | null, name: string) =>
  new RegExp(`(?:^|, )${name}=([^;]*)`).exec(setCookie ?? "")?.[1];

/** The sign-in form's nonce cookie and CSRF token, as a browser gets them from GET /login. */
async function loginForm(base: string): Promise<{ nonce: string; csrf: string }> {
  const res = await fetch(`${base}/login`, { headers: { Accept: "text/html" } });
  const html = await res.text();
  const nonce = cookieValue(res.headers.get("set-cookie"), "roomd_login") as string;
  const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(html)?.[1] as string;
  return { nonce, csrf };
}

/** POST /login as the page does; `cookie` adds a cookie the browser already had. */
async function signIn(base: string, key: string, cookie = ""): Promise<Signed> {
  const form = await loginForm(base);
  const res = await fetch(`${base}/login`, {
    method: "POST",
    headers: {
      Origin: base,
      "Content-Type": "application/json",
      "X-CSRF-Token": form.csrf,
      Cookie: `roomd_login=${form.nonce}${cookie ? `; ${cookie}` : ""}`,
    },
    body: JSON.stringify({ key }),
    redirect: "manual",
  });
  const setCookie = res.headers.get("set-cookie") ?? "";
  const id = cookieValue(setCookie, "roomd_session") ?? "";
  let csrf = "";
  if (id !== "") {
    const page = await fetch(`${base}/dashboard`, { headers: { Cookie: `roomd_session=${id}` } });
    csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(await page.text())?.[1] ?? "";
  }
  return { id, csrf, setCookie, status: res.status, body: await res.json() };
}

/** A request with the session cookie, as a page would send it (Origin and token unless told otherwise). */
function withSession(
  base: string,
  method: string,
  path: string,
  session: { id: string; csrf?: string },
  options: { body?: unknown; origin?: string | null; token?: string | null } = {},
) {
  const origin = options.origin === undefined ? base : options.origin;
  const token = options.token === undefined ? session.csrf : options.token;
  return fetch(`${base}${path}`, {
    method,
    headers: {
      Cookie: `roomd_session=${session.id}`,
      ...(origin !== null ? { Origin: origin } : {}),
      ...(token ? { "X-CSRF-Token": token } : {}),
      ...(options.body !== undefined ? { "Content-Type": "application/json" } : {}),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  }).then(async (res) => ({ status: res.status, body: (await res.json().catch(() => null)) as any, res }));
}

const sha256Hex = (text: string) => createHash("sha256").update(text).digest("hex");

for (const make of STORES) {
  const backing = make();
  describe(`web sessions on ${backing.name}`, () => {
    let store: RoomStore;
    let clock = Date.now();
    let server: ReturnType<typeof startInProcess>;
    let base: string;
    let team: WebTeam;

    beforeAll(async () => {
      store = await backing.open({ now: () => clock });
      server = startInProcess(store, silentLogger, ENV, () => clock);
      base = server.url;
      team = await provisionWebTeam(base, OPERATOR.secret);
    });
    afterAll(async () => {
      await server?.stop();
      await store?.close();
    });

    test("sign-in sets a fresh 256-bit session id in an HttpOnly, SameSite=Strict, Path=/ cookie; Secure with COOKIE_SECURE", async () => {
      const signed = await signIn(base, team.person);
      expect(signed.status).toBe(200);
      expect(signed.body).toMatchObject({
        ok: true,
        humanId: team.humanId,
        teamId: team.teamId,
        next: "/dashboard",
      });
      expect(signed.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const attributes =
        signed.setCookie.split(/, (?=roomd_)/).find((c) => c.startsWith("roomd_session=")) ?? "";
      expect(attributes).toContain("HttpOnly");
      expect(attributes).toContain("SameSite=Strict");
      expect(attributes).toContain("Path=/");
      expect(attributes).not.toContain("Secure");
      expect(attributes).not.toMatch(/Max-Age|Expires/);
      expect((await signIn(base, team.person)).id).not.toBe(signed.id);
      const secure = startInProcess(store, silentLogger, { ...ENV, COOKIE_SECURE: "true" }, () => clock);
      try {
        const viaProxy = await signIn(secure.url, team.person);
        expect(viaProxy.setCookie).toMatch(/roomd_session=[^;]+;[^,]*Secure/);
      } finally {
        await secure.stop();
      }
    });

    test("agents' keys cannot sign in (team keys, bound keys, agents' invites); unknown keys get 401; no cookie either way", async () => {
      const roomId = newRoomId();
      await callTool(base, team.agents, "add_task", { roomId, title: "t", agentId: "a" });
      const bound = (await httpClient(base).post("/admin/keys", team.person, { boundAgentId: "ci" })).body
        .secret;
      const invite = (await httpClient(base).post(`/admin/rooms/${roomId}/invite`, team.person, {})).body
        .token;
      for (const key of [TEAM_A.secret, team.agents, bound, invite]) {
        const signed = await signIn(base, key);
        expect({ status: signed.status, body: signed.body, id: signed.id }).toEqual({
          status: 403,
          body: { error: "This is an agent key; sign in with a person's key" },
          id: "",
        });
      }
      const unknown = await signIn(base, `rk_${team.teamId}_${"x".repeat(43)}`);
      expect({ status: unknown.status, body: unknown.body, id: unknown.id }).toEqual({
        status: 401,
        body: { error: "Unknown or revoked key" },
        id: "",
      });
      // A person's invite signs in to its one room.
      const personal = (
        await httpClient(base).post(`/admin/rooms/${roomId}/invite`, team.person, {
          kind: "human",
          humanId: "bob",
        })
      ).body.token;
      const bob = await signIn(base, personal);
      expect(bob.body).toMatchObject({ ok: true, humanId: "bob", next: `/room/${roomId}` });
    });

    test("sign-in refuses a request without the form's token or without Origin, before looking at the key", async () => {
      const form = await loginForm(base);
      const post = (headers: Record<string, string>) =>
        fetch(`${base}/login`, {
          method: "POST",
          headers: { "Content-Type": "application/json", ...headers },
          body: JSON.stringify({ key: team.person }),
        }).then(async (r) => ({ status: r.status, cookie: r.headers.get("set-cookie") }));
      const nonce = `roomd_login=${form.nonce}`;
      const attempts: Record<string, string>[] = [
        { Origin: base, Cookie: nonce },
        { Origin: base, Cookie: nonce, "X-CSRF-Token": "wrong" },
        { Origin: base, "X-CSRF-Token": form.csrf },
        { Cookie: nonce, "X-CSRF-Token": form.csrf },
        { Origin: "http://evil.example", Cookie: nonce, "X-CSRF-Token": form.csrf },
      ];
      for (const headers of attempts) {
        expect(await post(headers)).toEqual({ status: 403, cookie: null });
      }
    });

    test("session fixation: an id the browser brought before sign-in is never used, and a planted live session ends", async () => {
      const planted = "A".repeat(43);
      const signed = await signIn(base, team.person, `roomd_session=${planted}`);
      expect(signed.id).not.toBe(planted);
      expect((await withSession(base, "GET", "/admin/me", { id: planted })).status).toBe(401);
      // The attacker's own live session, planted in the victim's browser, is ended by the victim's sign-in.
      const attacker = await signIn(base, team.person);
      const victim = await signIn(base, team.person, `roomd_session=${attacker.id}`);
      expect(victim.id).not.toBe(attacker.id);
      expect((await withSession(base, "GET", "/admin/me", attacker)).status).toBe(401);
      expect((await withSession(base, "GET", "/admin/me", victim)).status).toBe(200);
    });

    test("the session authenticates the pages' JSON routes as its person (not /mcp)", async () => {
      const roomId = newRoomId();
      await callTool(base, team.agents, "add_task", { roomId, title: "t", agentId: "a" });
      const s = await signIn(base, team.person);
      expect((await withSession(base, "GET", "/admin/me", s)).body).toEqual({
        teamId: team.teamId,
        kind: "dynamic",
        type: "human",
        humanId: team.humanId,
        keyId: expect.stringMatching(/^k_/),
      });
      const posted = await withSession(base, "POST", `/rooms/${roomId}/messages`, s, {
        body: { to: "all", text: "hi" },
      });
      expect(posted.status).toBe(201);
      const view = await withSession(base, "GET", `/room/${roomId}/view`, s);
      expect(view.body.member).toBe(true);
      expect(view.body.events[0]).toMatchObject({ type: "human_message", from: `human:${team.humanId}` });
      const stream = await fetch(`${base}/rooms/${roomId}/stream`, {
        headers: { Cookie: `roomd_session=${s.id}` },
      });
      expect(stream.status).toBe(200);
      expect(stream.headers.get("content-type")).toBe("text/event-stream");
      await stream.body?.cancel();
      const mcp = await fetch(`${base}/mcp`, {
        method: "POST",
        headers: {
          Cookie: `roomd_session=${s.id}`,
          Origin: base,
          "X-CSRF-Token": s.csrf,
          "Content-Type": "application/json",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(mcp.status).toBe(401);
    });

    test("CSRF: a cookie-authenticated change needs the session's X-CSRF-Token and a same-origin Origin; bearers need neither", async () => {
      const roomId = newRoomId();
      await callTool(base, team.agents, "add_task", { roomId, title: "t", agentId: "a" });
      const s = await signIn(base, team.person);
      const other = await signIn(base, team.person);
      const body = { to: "all", text: "forged?" };
      const path = `/rooms/${roomId}/messages`;
      const refusals = [
        await withSession(base, "POST", path, s, { body, token: null }),
        await withSession(base, "POST", path, s, { body, token: "not-the-token" }),
        await withSession(base, "POST", path, s, { body, token: other.csrf }),
        await withSession(base, "POST", path, s, { body, origin: null }),
        await withSession(base, "POST", path, s, { body, origin: "http://evil.example" }),
        await withSession(base, "DELETE", `/admin/rooms/${roomId}`, s, { token: null }),
        await withSession(base, "POST", "/admin/keys", s, { body: { note: "x" }, token: null }),
      ];
      expect(refusals.map((r) => r.status)).toEqual([403, 403, 403, 403, 403, 403, 403]);
      const log = await callTool(base, team.agents, "read_events", { roomId, limit: 50 });
      expect(JSON.stringify(log)).not.toContain("forged?");
      expect((await withSession(base, "POST", path, s, { body })).status).toBe(201);
      // A bearer request (a CLI, an agent) carries no cookie and needs no token or Origin.
      expect(
        (await httpClient(base).post(path, team.person, { to: "all", text: "from a script" })).status,
      ).toBe(201);
    });

    test("revoking the key a session was opened with ends the session at once", async () => {
      const key = (
        await httpClient(base).post("/admin/keys", team.person, { kind: "human", humanId: "carol" })
      ).body;
      const s = await signIn(base, key.secret);
      expect((await withSession(base, "GET", "/admin/me", s)).body.humanId).toBe("carol");
      expect((await httpClient(base).del(`/admin/keys/${key.keyId}`, team.person)).status).toBe(200);
      expect((await withSession(base, "GET", "/admin/me", s)).status).toBe(401);
    });

    test("a session ends 12 hours after its last use, and use keeps it alive", async () => {
      const s = await signIn(base, team.person);
      for (let i = 0; i < 3; i++) {
        clock += 11 * HOUR;
        expect((await withSession(base, "GET", "/admin/me", s)).status).toBe(200);
      }
      clock += 12 * HOUR + 1000;
      const ended = await withSession(base, "GET", "/admin/me", s);
      expect(ended).toMatchObject({
        status: 401,
        body: { error: "Session expired or signed out; sign in again at /login" },
      });
    });

    test("the store holds session ids only as SHA-256 digests (and never the CSRF token)", async () => {
      const s = await signIn(base, team.person);
      const found = await scanStoreForSecrets(backing, [s.id, s.csrf, sha256Hex(s.id)]);
      expect(found).toEqual([sha256Hex(s.id)]);
    });

    test("sign-in through the trusted proxy needs no form; a browser's change through it needs the session's token", async () => {
      const header = "X-Auth-Request-Email";
      const proxied = startInProcess(
        store,
        silentLogger,
        {
          ...ENV,
          TRUSTED_PROXY_HEADER: header,
          TRUSTED_PROXY_TEAM: team.teamId,
          TRUSTED_PROXY_CIDRS: "127.0.0.1/32, ::1",
        },
        () => clock,
      );
      try {
        const roomId = newRoomId();
        await callTool(proxied.url, team.agents, "add_task", { roomId, title: "t", agentId: "a" });
        const login = await fetch(`${proxied.url}/login`, {
          headers: { [header]: "dana@example.com" },
          redirect: "manual",
        });
        expect(login.status).toBe(303);
        expect(login.headers.get("location")).toBe("/dashboard");
        const id = cookieValue(login.headers.get("set-cookie"), "roomd_session") as string;
        expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
        const page = await fetch(`${proxied.url}/dashboard`, {
          headers: { [header]: "dana@example.com", Cookie: `roomd_session=${id}` },
        });
        const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(await page.text())?.[1] as string;
        const post = (headers: Record<string, string>) =>
          fetch(`${proxied.url}/rooms/${roomId}/messages`, {
            method: "POST",
            headers: { [header]: "dana@example.com", "Content-Type": "application/json", ...headers },
            body: JSON.stringify({ to: "all", text: "via the proxy" }),
          }).then((r) => r.status);
        expect(await post({ Origin: proxied.url })).toBe(403);
        expect(
          await post({ Origin: proxied.url, Cookie: `roomd_session=${id}`, "X-CSRF-Token": "wrong" }),
        ).toBe(403);
        expect(await post({ Origin: proxied.url, Cookie: `roomd_session=${id}`, "X-CSRF-Token": csrf })).toBe(
          201,
        );
        // Another person's session token does not do for dana.
        const other = await fetch(`${proxied.url}/login`, {
          headers: { [header]: "eve@example.com" },
          redirect: "manual",
        });
        const eve = cookieValue(other.headers.get("set-cookie"), "roomd_session") as string;
        expect(
          await post({ Origin: proxied.url, Cookie: `roomd_session=${eve}`, "X-CSRF-Token": csrf }),
        ).toBe(403);
        // Scripts behind the proxy (no Origin) are not browsers: unchanged.
        expect(await post({})).toBe(201);
        // The cookie of a session opened through the proxy is nothing without the proxy's word.
        const around = await fetch(`${proxied.url}/admin/me`, { headers: { Cookie: `roomd_session=${id}` } });
        expect(around.status).toBe(401);
        const asEve = await fetch(`${proxied.url}/dashboard`, {
          headers: { [header]: "eve@example.com", Cookie: `roomd_session=${id}` },
          redirect: "manual",
        });
        expect(await asEve.text()).not.toContain("dana@example.com");
      } finally {
        await proxied.stop();
      }
    });
  });

  describe(`web sessions across roomd processes on ${backing.name}`, () => {
    test("another process accepts a session, a restart keeps it, sign-out on one process ends it on every other; nothing secret in the logs", async () => {
      const env = {
        ...(await backing.env()),
        ...ENV,
        OPERATOR_KEYS: `${OPERATOR.teamId}:${OPERATOR.secret}`,
      };
      const a = await spawnServer(env);
      let b = await spawnServer(env);
      const servers = [a, b];
      try {
        const team = await provisionWebTeam(a.url, OPERATOR.secret);
        const s = await signIn(a.url, team.person);
        expect((await withSession(b.url, "GET", "/admin/me", s)).body.humanId).toBe(team.humanId);
        await b.stop();
        b = await spawnServer(env);
        servers.push(b);
        expect((await withSession(b.url, "GET", "/admin/me", s)).status).toBe(200);
        // Refusals and failures along the way, which a careless log would record with their secrets.
        const refused = await signIn(b.url, `rk_${team.teamId}_${"y".repeat(43)}`);
        expect(refused.status).toBe(401);
        await withSession(b.url, "POST", "/rooms/r-nowhere/messages", s, {
          body: { to: "all", text: "x" },
          token: "bad",
        });
        const out = await withSession(b.url, "POST", "/logout", s);
        expect(out.status).toBe(200);
        expect(out.res.headers.get("set-cookie")).toMatch(/roomd_session=;.*Max-Age=0/);
        expect((await withSession(a.url, "GET", "/admin/me", s)).status).toBe(401);
        expect((await withSession(b.url, "GET", "/admin/me", s)).status).toBe(401);
        const logs = servers.map((server) => server.output()).join("\n");
        for (const secret of [team.person, s.id, s.csrf, OPERATOR.secret]) expect(logs).not.toContain(secret);
      } finally {
        for (const server of servers) await server.stop();
      }
    });
  });
}
