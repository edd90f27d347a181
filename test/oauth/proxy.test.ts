/**
 * Consent through the trusted proxy's single sign-on (docs/security.md#oauth): a person the proxy vouches for goes
 * from the authorization request through /login (no form: the proxy's header signs them in) back to the consent
 * page, and their grant, having no stored key, lives until revoked.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { type RunningServer, startInProcess, TEAM_A } from "../support/server.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";
import { authorizeUrl, pkcePair, REDIRECT, registerClient, token, whoami } from "./flow.ts";

const HEADER = "X-Auth-Request-Email";
const make = E2E_STORES[0] as (typeof E2E_STORES)[number];

describe(`OAuth consent through the trusted proxy on ${make().name}`, () => {
  let store: RoomStore;
  let server: RunningServer;
  let roomId: string;
  beforeAll(async () => {
    store = await make().open();
    server = startInProcess(store, undefined, {
      TRUSTED_PROXY_HEADER: HEADER,
      TRUSTED_PROXY_TEAM: TEAM_A.teamId,
      TRUSTED_PROXY_CIDRS: "127.0.0.1/32, ::1",
      SUMMARY_RATE_LIMIT_PER_MINUTE: "1000000",
    });
    roomId = newRoomId();
    expect((await httpClient(server.url).post("/admin/rooms", TEAM_A.secret, { roomId })).status).toBe(201);
  });
  afterAll(async () => {
    await server.stop();
    await store.close();
  });

  test("the proxy's person signs in without a form, consents, and the token acts as the chosen agent", async () => {
    const base = server.url;
    const person = { [HEADER]: "grace@example.com" };
    const clientId = await registerClient(base);
    const pkce = pkcePair();
    const start = await fetch(authorizeUrl(base, { clientId, challenge: pkce.challenge }), {
      headers: person,
      redirect: "manual",
    });
    expect(start.headers.get("location")).toBe("/login?next=/oauth/authorize");
    const pending = /roomd_oauth=([^;]*)/.exec(start.headers.get("set-cookie") ?? "")?.[1] as string;
    const login = await fetch(`${base}/login?next=/oauth/authorize`, { headers: person, redirect: "manual" });
    expect(login.headers.get("location")).toBe("/oauth/authorize");
    const session = /roomd_session=([^;]*)/.exec(login.headers.get("set-cookie") ?? "")?.[1] as string;
    const cookie = `roomd_session=${session}; roomd_oauth=${pending}`;
    const page = await fetch(`${base}/oauth/authorize`, { headers: { ...person, Cookie: cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    const fields: Record<string, string> = {};
    for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
      fields[m[1] as string] = (m[2] as string).replaceAll("&amp;", "&");
    const done = await fetch(`${base}/oauth/authorize`, {
      method: "POST",
      headers: {
        ...person,
        Cookie: `roomd_session=${session}`,
        Origin: base,
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ ...fields, room: roomId, agent: "proxied-agent", decision: "allow" }),
      redirect: "manual",
    });
    expect(done.status).toBe(303);
    const code = new URL(done.headers.get("location") as string).searchParams.get("code") as string;
    const tokens = await token(base, {
      grant_type: "authorization_code",
      code,
      code_verifier: pkce.verifier,
      redirect_uri: REDIRECT,
      client_id: clientId,
    });
    expect(tokens.status).toBe(200);
    expect((await whoami(base, tokens.body.access_token)).me).toMatchObject({
      teamId: TEAM_A.teamId,
      kind: "oauth",
      boundAgentId: "proxied-agent",
      allowedRoomId: roomId,
    });
    const grant = (await store.listOAuthGrants(TEAM_A.teamId)).find((g) => g.agentId === "proxied-agent");
    expect(grant).toMatchObject({ humanId: "grace@example.com" });
    expect(grant?.keyId).toBeUndefined();
  });
});
