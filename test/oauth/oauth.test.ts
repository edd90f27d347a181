/**
 * OAuth 2.1 for MCP clients over HTTP, in process on every store (docs/security.md#oauth): the metadata documents, the 401
 * challenge, registration, the consent page and the token endpoint, the whole flow ending in /mcp calls made as the
 * chosen agent in the chosen room, and every refusal — a token for another resource, an expired, revoked or reused
 * one, a reused code, a missing or wrong PKCE verifier, an unregistered redirect and an open redirect attempt.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import type { RoomStore } from "../../src/store/types.ts";
import { roomctl } from "../cli/support.ts";
import { httpClient } from "../support/http.ts";
import { OPERATOR, type RunningServer, startInProcess } from "../support/server.ts";
import { scanStoreForSecrets } from "../support/store-scan.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";
import { provisionWebTeam, type WebTeam } from "../support/web.ts";
import {
  authorizeUrl,
  consent,
  consentForm,
  personSession,
  pkcePair,
  REDIRECT,
  registerClient,
  token,
  whoami,
} from "./flow.ts";

const hex = (secret: string) => createHash("sha256").update(secret).digest("hex");
const HOUR = 60 * 60 * 1000;

for (const make of E2E_STORES) {
  const backing = make();
  describe(`OAuth on ${backing.name}`, () => {
    let store: RoomStore;
    let server: RunningServer;
    let off: RunningServer;
    let base: string;
    let team: WebTeam;
    let session: string;
    let roomId: string;
    let clock = Date.now();

    beforeAll(async () => {
      store = await backing.open({ now: () => clock });
      server = startInProcess(
        store,
        undefined,
        { KEYS_PER_TEAM: "10000", SUMMARY_RATE_LIMIT_PER_MINUTE: "1000000" },
        () => clock,
      );
      off = startInProcess(store, undefined, { OAUTH: "off" });
      base = server.url;
      team = await provisionWebTeam(base, OPERATOR.secret, "ada");
      roomId = newRoomId();
      const made = await httpClient(base).post("/admin/rooms", team.person, { roomId });
      expect(made.status).toBe(201);
      session = await personSession(base, team.person);
    });
    afterAll(async () => {
      await server.stop();
      await off.stop();
      await store.close();
    });

    /** Registration, consent and the code exchange: the token answer and what was used. */
    async function connect(agent = "oauth-agent", narrow: { rooms?: string[]; readOnly?: boolean } = {}) {
      const clientId = await registerClient(base);
      const pkce = pkcePair();
      const form = await consentForm(authorizeUrl(base, { clientId, challenge: pkce.challenge }), session);
      expect(form.status).toBe(200);
      const done = await consent(base, session, form.fields, {
        room: narrow.rooms ?? roomId,
        agent,
        ...(narrow.readOnly ? { readOnly: "on" } : {}),
      });
      const code = done.url?.searchParams.get("code") as string;
      const tokens = await token(base, {
        grant_type: "authorization_code",
        code,
        code_verifier: pkce.verifier,
        redirect_uri: REDIRECT,
        client_id: clientId,
        resource: `${base}/mcp`,
      });
      return { clientId, pkce, code, tokens, done };
    }

    test("metadata: protected resource (both paths), authorization server, and the 401 names it", async () => {
      for (const path of [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
      ]) {
        const res = await fetch(`${base}${path}`);
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({ resource: `${base}/mcp`, authorization_servers: [base] });
      }
      const as = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as any;
      expect(as).toMatchObject({
        issuer: base,
        authorization_endpoint: `${base}/oauth/authorize`,
        token_endpoint: `${base}/oauth/token`,
        registration_endpoint: `${base}/oauth/register`,
        revocation_endpoint: `${base}/oauth/revoke`,
        code_challenge_methods_supported: ["S256"],
        client_id_metadata_document_supported: true,
        authorization_response_iss_parameter_supported: true,
      });
      const res = await fetch(`${base}/mcp`, {
        method: "POST",
        body: "{}",
        headers: { "Content-Type": "application/json" },
      });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe(
        `Bearer realm="roomd", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
      );
    });

    test("registration and the authorization endpoint spend the public per-address budget", async () => {
      const tight = startInProcess(store, undefined, { SUMMARY_RATE_LIMIT_PER_MINUTE: "3" });
      try {
        const statuses: number[] = [];
        for (let i = 0; i < 3; i++) {
          const res = await fetch(`${tight.url}/oauth/register`, {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify({ redirect_uris: [REDIRECT] }),
          });
          statuses.push(res.status);
        }
        statuses.push(
          (await fetch(`${tight.url}/oauth/authorize?client_id=x`, { redirect: "manual" })).status,
        );
        expect(statuses).toEqual([201, 201, 201, 429]);
      } finally {
        await tight.stop();
      }
    });

    test("OAUTH=off: no metadata, no /oauth routes, the plain challenge", async () => {
      expect((await fetch(`${off.url}/.well-known/oauth-protected-resource/mcp`)).status).toBe(404);
      expect((await fetch(`${off.url}/.well-known/oauth-authorization-server`)).status).toBe(404);
      expect((await fetch(`${off.url}/oauth/token`, { method: "POST" })).status).toBe(404);
      const res = await fetch(`${off.url}/mcp`, {
        method: "POST",
        body: "{}",
        headers: { "Content-Type": "application/json" },
      });
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="roomd"');
    });

    test("the flow: consent gives a code with state and iss; the token acts as the chosen agent in the chosen room", async () => {
      const { done, tokens } = await connect("claude-7");
      expect(done.status).toBe(303);
      expect(`${done.url?.origin}${done.url?.pathname}`).toBe(REDIRECT);
      expect(done.url?.searchParams.get("state")).toBe("st-1");
      expect(done.url?.searchParams.get("iss")).toBe(base);
      expect(tokens.status).toBe(200);
      expect(tokens.body).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "rooms" });
      const me = await whoami(base, tokens.body.access_token);
      expect(me.me).toMatchObject({
        teamId: team.teamId,
        kind: "oauth",
        type: "agent",
        boundAgentId: "claude-7",
        allowedRoomId: roomId,
      });
      // Static keys keep working beside it.
      expect((await whoami(base, team.agents)).status).toBe(200);
      // Listed for the team, with no secret in it.
      const grants = await store.listOAuthGrants(team.teamId);
      const mine = grants.find((g) => g.agentId === "claude-7");
      expect(mine).toMatchObject({
        humanId: "ada",
        roomId,
        clientName: "Test client",
        redirectUri: REDIRECT,
      });
      expect(JSON.stringify(grants)).not.toContain(tokens.body.access_token);
    });

    test("a read-only grant: its token reads, and is refused every write before its arguments are checked", async () => {
      const { tokens } = await connect("reader-1", { readOnly: true });
      expect(tokens.status).toBe(200);
      const http = httpClient(base);
      const read = await http.tool(tokens.body.access_token, "read_plan", {});
      expect(read.status).toBe(200);
      expect(read.isError).toBe(false);
      const write = await http.tool(tokens.body.access_token, "add_task", { title: "sneak" });
      expect(write.isError).toBe(true);
      expect(write.text).toBe(
        'Error: This connection is read-only (its person granted reads only): add_task writes, so it is refused; for writes, connect again without "Read only" checked',
      );
      expect((await whoami(base, tokens.body.access_token)).me).toMatchObject({
        kind: "oauth",
        boundAgentId: "reader-1",
        allowedRoomId: roomId,
        readOnly: true,
      });
      const plan = await http.tool(team.person, "read_plan", { roomId });
      expect(plan.text).not.toContain("sneak");
      const listed = (await store.listOAuthGrants(team.teamId)).find((g) => g.agentId === "reader-1");
      expect(listed).toMatchObject({ roomId, readOnly: true });
      expect(listed).not.toHaveProperty("rooms");
    });

    test("a grant for rooms A and B: both work, room C reads as missing exactly like a room that does not exist", async () => {
      const http = httpClient(base);
      const [a, b, c] = [newRoomId(), newRoomId(), newRoomId()];
      for (const id of [a, b, c])
        expect((await http.post("/admin/rooms", team.person, { roomId: id })).status).toBe(201);
      // The consent page offers each of the team's rooms as a box of its own.
      const clientId = await registerClient(base);
      const page = await consentForm(
        authorizeUrl(base, { clientId, challenge: pkcePair().challenge }),
        session,
      );
      for (const id of [a, b, c]) expect(page.body).toContain(`name="room" value="${id}"`);
      expect(page.body).toContain('id="consent-readonly"');

      const { tokens } = await connect("two-rooms", { rooms: [b, a] });
      expect(tokens.status).toBe(200);
      const bearer = tokens.body.access_token;
      expect(await whoami(base, bearer).then((w) => w.me)).toMatchObject({
        kind: "oauth",
        boundAgentId: "two-rooms",
      });
      const me = (await whoami(base, bearer)).me;
      expect(me.allowedRoomId).toBeUndefined();
      expect([...me.rooms].sort()).toEqual([a, b].sort());
      for (const id of [a, b]) {
        const added = await http.tool(bearer, "add_task", { roomId: id, title: `in ${id}` });
        expect(added.isError).toBe(false);
      }
      const inC = await http.tool(bearer, "read_plan", { roomId: c });
      const nowhere = await http.tool(bearer, "read_plan", { roomId: `${c}-x` });
      expect(inC.isError).toBe(true);
      expect(inC.text).toStartWith("Error: Room not found or access denied");
      expect(inC.text.replace(c, "X")).toBe(nowhere.text.replace(`${c}-x`, "X"));
      expect((await http.tool(bearer, "add_task", { roomId: c, title: "sneak" })).text).toStartWith(
        "Error: Room not found or access denied",
      );
      // Listed with its rooms, in the page's order, the first as its roomId.
      const listed = await http.get("/admin/oauth/grants", team.person);
      const grant = (listed.body.grants as { agentId: string; roomId: string; rooms: string[] }[]).find(
        (g) => g.agentId === "two-rooms",
      );
      expect(grant?.rooms?.sort()).toEqual([a, b].sort());
      expect([a, b]).toContain(grant?.roomId as string);
      expect(grant).not.toHaveProperty("readOnly");
      const env = { ROOMD_URL: base, ROOMD_KEY: team.person };
      const table = await roomctl(["oauth"], { env });
      expect(table.code).toBe(0);
      const line = table.stdout.split("\n").find((l) => l.includes("two-rooms")) as string;
      expect(line).toContain(`${grant?.rooms?.join(",")}`);
    });

    test("a person signed in with a scoped, read-only key gives a client no more: only their rooms, only reads", async () => {
      const http = httpClient(base);
      const [mine, other] = [newRoomId(), newRoomId()];
      for (const id of [mine, other])
        expect((await http.post("/admin/rooms", team.person, { roomId: id })).status).toBe(201);
      const narrow = await http.post("/admin/keys", team.person, {
        kind: "human",
        humanId: "ada",
        rooms: [mine],
        readOnly: true,
      });
      expect(narrow.status).toBe(201);
      const narrowSession = await personSession(base, narrow.body.secret);
      const clientId = await registerClient(base);
      const pkce = pkcePair();
      const form = await consentForm(
        authorizeUrl(base, { clientId, challenge: pkce.challenge }),
        narrowSession,
      );
      expect(form.status).toBe(200);
      expect(form.body).toContain(`name="room" value="${mine}"`);
      expect(form.body).not.toContain(other);
      expect(form.body).toMatch(/id="consent-readonly"[^>]* checked disabled/);
      // Another room of the team is refused; the box left unticked still makes a read-only grant.
      expect(
        (await consent(base, narrowSession, form.fields, { room: other, agent: "narrow-1" })).status,
      ).toBe(400);
      const done = await consent(base, narrowSession, form.fields, { room: mine, agent: "narrow-1" });
      expect(done.status).toBe(303);
      const tokens = await token(base, {
        grant_type: "authorization_code",
        code: done.url?.searchParams.get("code") as string,
        code_verifier: pkce.verifier,
        redirect_uri: REDIRECT,
        client_id: clientId,
        resource: `${base}/mcp`,
      });
      expect(tokens.status).toBe(200);
      expect((await whoami(base, tokens.body.access_token)).me).toMatchObject({
        allowedRoomId: mine,
        readOnly: true,
      });
      const write = await http.tool(tokens.body.access_token, "add_task", { title: "sneak" });
      expect(write.text).toContain("read-only");
    });

    test("at rest: codes and tokens only as SHA-256 digests", async () => {
      const { code, tokens } = await connect();
      const { access_token: access, refresh_token: refresh } = tokens.body;
      const found = await scanStoreForSecrets(backing, [
        code,
        access,
        refresh,
        hex(code),
        hex(access),
        hex(refresh),
      ]);
      expect(found.sort()).toEqual([hex(code), hex(access), hex(refresh)].sort());
    });

    test("the consent page: strict CSP that allows only the redirect's origin as a form target, values escaped", async () => {
      const clientId = await registerClient(base);
      const form = await consentForm(
        authorizeUrl(base, {
          clientId,
          challenge: pkcePair().challenge,
          state: '"><script>alert(1)</script>',
        }),
        session,
      );
      expect(form.status).toBe(200);
      expect(form.csp).toContain("form-action 'self' http://127.0.0.1:5999;");
      expect(form.csp).toContain("script-src 'self';");
      expect(form.body).not.toContain("<script>alert(1)</script>");
      expect(form.fields.state).toBe('"><script>alert(1)</script>');
    });

    test("not signed in: on to /login and back to the same request", async () => {
      const clientId = await registerClient(base);
      const res = await fetch(authorizeUrl(base, { clientId, challenge: pkcePair().challenge }), {
        redirect: "manual",
      });
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe("/login?next=/oauth/authorize");
      const pending = /roomd_oauth=([^;]*)/.exec(res.headers.get("set-cookie") ?? "")?.[1] as string;
      const back = await fetch(`${base}/oauth/authorize`, {
        headers: { Cookie: `roomd_oauth=${pending}; roomd_session=${session}` },
      });
      expect(back.status).toBe(200);
      expect(await back.text()).toContain(`value="${clientId}"`);
    });

    test("refusals that are pages, never redirects: unknown client, unregistered redirect", async () => {
      const clientId = await registerClient(base);
      const challenge = pkcePair().challenge;
      for (const url of [
        authorizeUrl(base, { clientId, challenge, redirectUri: "https://evil.example/cb" }),
        authorizeUrl(base, { clientId, challenge, redirectUri: `${REDIRECT}/more` }),
        authorizeUrl(base, { clientId: "nobody", challenge }),
        authorizeUrl(base, { clientId: "dcr_bm90IGpzb24", challenge }),
      ]) {
        const res = await consentForm(url, session);
        expect(res.status).toBe(400);
        expect(res.location).toBeNull();
      }
      // Registration refuses what could become an open redirect.
      for (const uris of [
        ["http://evil.example/cb"],
        ["https://a.example/cb#x"],
        ["javascript:alert(1)"],
        [],
      ]) {
        const res = await fetch(`${base}/oauth/register`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ redirect_uris: uris }),
        });
        expect(res.status).toBe(400);
      }
    });

    test("refusals by redirect: no PKCE, plain PKCE, another response type, another resource, denied", async () => {
      const clientId = await registerClient(base);
      const challenge = pkcePair().challenge;
      const cases: [Parameters<typeof authorizeUrl>[1], string][] = [
        [{ clientId, challenge: "" }, "invalid_request"],
        [{ clientId, challenge, extra: { code_challenge_method: "plain" } }, "invalid_request"],
        [{ clientId, challenge, extra: { response_type: "token" } }, "unsupported_response_type"],
        [{ clientId, challenge, resource: "https://other.example/mcp" }, "invalid_target"],
        [{ clientId, challenge, resource: "" }, "invalid_target"],
      ];
      for (const [req, error] of cases) {
        const res = await consentForm(authorizeUrl(base, req), session);
        expect(res.status).toBe(302);
        const url = new URL(res.location as string);
        expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
        expect(url.searchParams.get("error")).toBe(error);
        expect(url.searchParams.get("iss")).toBe(base);
      }
      const form = await consentForm(authorizeUrl(base, { clientId, challenge }), session);
      const denied = await consent(base, session, form.fields, {
        room: roomId,
        agent: "a",
        decision: "deny",
      });
      expect(denied.url?.searchParams.get("error")).toBe("access_denied");
      expect(denied.url?.searchParams.get("code")).toBeNull();
    });

    test("the consent form: without its CSRF token or Origin, another team's room, a bad agent id — refused", async () => {
      const clientId = await registerClient(base);
      const form = await consentForm(
        authorizeUrl(base, { clientId, challenge: pkcePair().challenge }),
        session,
      );
      const { csrf: _csrf, ...noCsrf } = form.fields;
      expect((await consent(base, session, noCsrf, { room: roomId, agent: "a" })).status).toBe(403);
      const noOrigin = await fetch(`${base}/oauth/authorize`, {
        method: "POST",
        headers: { Cookie: `roomd_session=${session}`, "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ ...form.fields, room: roomId, agent: "a", decision: "allow" }),
        redirect: "manual",
      });
      expect(noOrigin.status).toBe(403);
      expect((await consent(base, session, form.fields, { room: newRoomId(), agent: "a" })).status).toBe(400);
      expect((await consent(base, session, form.fields, { room: roomId, agent: "human:ada" })).status).toBe(
        400,
      );
      // No room ticked, one room of the team beside one that is not, a read-only box with another value.
      expect((await consent(base, session, form.fields, { room: [], agent: "a" })).status).toBe(400);
      expect(
        (await consent(base, session, form.fields, { room: [roomId, newRoomId()], agent: "a" })).status,
      ).toBe(400);
      expect(
        (await consent(base, session, form.fields, { room: roomId, agent: "a", readOnly: "yes" })).status,
      ).toBe(400);
      expect((await store.listOAuthGrants(team.teamId)).filter((g) => g.agentId === "a")).toEqual([]);
    });

    test("the token endpoint: a reused code revokes what it gave; a missing or wrong verifier revokes the grant", async () => {
      const first = await connect();
      expect(first.tokens.status).toBe(200);
      const again = await token(base, {
        grant_type: "authorization_code",
        code: first.code,
        code_verifier: first.pkce.verifier,
        redirect_uri: REDIRECT,
        client_id: first.clientId,
      });
      expect(again).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
      expect((await whoami(base, first.tokens.body.access_token)).status).toBe(401);

      for (const verifier of [undefined, pkcePair().verifier]) {
        const clientId = await registerClient(base);
        const pkce = pkcePair();
        const form = await consentForm(authorizeUrl(base, { clientId, challenge: pkce.challenge }), session);
        const done = await consent(base, session, form.fields, { room: roomId, agent: "x" });
        const code = done.url?.searchParams.get("code") as string;
        const bad = await token(base, {
          grant_type: "authorization_code",
          code,
          ...(verifier ? { code_verifier: verifier } : {}),
          redirect_uri: REDIRECT,
          client_id: clientId,
        });
        expect(bad).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
        // The code is spent and its grant gone: the right verifier is too late now.
        const late = await token(base, {
          grant_type: "authorization_code",
          code,
          code_verifier: pkce.verifier,
          redirect_uri: REDIRECT,
          client_id: clientId,
        });
        expect(late.status).toBe(400);
      }
    });

    test("refresh rotates; a reused refresh token revokes the family; revocation (RFC 7009) ends it", async () => {
      const { tokens, clientId } = await connect();
      const r1 = tokens.body.refresh_token;
      const next = await token(base, { grant_type: "refresh_token", refresh_token: r1, client_id: clientId });
      expect(next.status).toBe(200);
      expect(next.body.refresh_token).not.toBe(r1);
      expect((await whoami(base, tokens.body.access_token)).status).toBe(401);
      expect((await whoami(base, next.body.access_token)).status).toBe(200);
      const replay = await token(base, {
        grant_type: "refresh_token",
        refresh_token: r1,
        client_id: clientId,
      });
      expect(replay.body.error).toBe("invalid_grant");
      expect((await whoami(base, next.body.access_token)).status).toBe(401);

      const other = await connect();
      const revoked = await fetch(`${base}/oauth/revoke`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: other.tokens.body.refresh_token }),
      });
      expect(revoked.status).toBe(200);
      expect((await whoami(base, other.tokens.body.access_token)).status).toBe(401);
    });

    test("a token is refused for another resource, on other routes, and after its hour", async () => {
      const { tokens } = await connect();
      const access = tokens.body.access_token;
      // Same roomd reached under another name: another resource.
      const other = base.replace("127.0.0.1", "localhost");
      const elsewhere = await whoami(other, access);
      expect(elsewhere.status).toBe(401);
      expect(elsewhere.header).toContain('error="invalid_token"');
      expect((await httpClient(base).get("/admin/me", access)).status).toBe(401);
      expect((await whoami(base, access)).status).toBe(200);
      clock += HOUR;
      expect((await whoami(base, access)).status).toBe(401);
      clock -= HOUR;
    });

    test("a person's tokens die with their key", async () => {
      const person = await httpClient(base).post("/admin/keys", team.person, {
        kind: "human",
        humanId: "bo",
      });
      expect(person.status).toBe(201);
      const saved = session;
      session = await personSession(base, person.body.secret);
      const { tokens } = await connect();
      session = saved;
      expect((await whoami(base, tokens.body.access_token)).status).toBe(200);
      const removed = await fetch(`${base}/admin/keys/${person.body.keyId}`, {
        method: "DELETE",
        headers: { Authorization: `Bearer ${team.person}` },
      });
      expect(removed.status).toBeLessThan(300);
      expect((await whoami(base, tokens.body.access_token)).status).toBe(401);
    });

    test("listed and revoked through the admin API and roomctl", async () => {
      const a = await connect("listed-a");
      const b = await connect("listed-b");
      const listed = await httpClient(base).get("/admin/oauth/grants", team.person);
      expect(listed.status).toBe(200);
      const ids = (listed.body.grants as { grantId: string; agentId: string }[]).filter((g) =>
        ["listed-a", "listed-b"].includes(g.agentId),
      );
      expect(ids).toHaveLength(2);
      expect(JSON.stringify(listed.body)).not.toContain(a.tokens.body.refresh_token);
      const grantA = ids.find((g) => g.agentId === "listed-a")?.grantId as string;
      const grantB = ids.find((g) => g.agentId === "listed-b")?.grantId as string;
      // Another team's key finds nothing to revoke.
      const other = await provisionWebTeam(base, OPERATOR.secret, "eve");
      const foreign = await fetch(`${base}/admin/oauth/grants/${grantA}`, {
        method: "DELETE",
        headers: { Authorization: `Bearer ${other.person}` },
      });
      expect(foreign.status).toBe(404);
      expect((await whoami(base, a.tokens.body.access_token)).status).toBe(200);
      const removed = await fetch(`${base}/admin/oauth/grants/${grantA}`, {
        method: "DELETE",
        headers: { Authorization: `Bearer ${team.person}` },
      });
      expect(await removed.json()).toEqual({ ok: true, grantId: grantA });
      expect((await whoami(base, a.tokens.body.access_token)).status).toBe(401);

      const env = { ROOMD_URL: base, ROOMD_KEY: team.person };
      const list = await roomctl(["oauth", "--json"], { env });
      expect(list.code).toBe(0);
      expect((JSON.parse(list.stdout) as { grantId: string }[]).map((g) => g.grantId)).toContain(grantB);
      const revoke = await roomctl(["oauth", "revoke", grantB], { env });
      expect(revoke.code).toBe(0);
      expect((await whoami(base, b.tokens.body.access_token)).status).toBe(401);
    });
  });
}
