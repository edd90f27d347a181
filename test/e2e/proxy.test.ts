/**
 * Single sign-on through an authenticating proxy (docs/operations.md#single-sign-on-through-a-proxy): the identity
 * header from an allowed peer makes a person of the proxy's team; from any other peer it is ignored (the bearer, if
 * any, decides).
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { UNAUTHORIZED } from "../../src/http/auth.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { type RunningServer, startInProcess, TEAM_A } from "../support/server.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";

const HEADER = "X-Auth-Request-Email";
const proxyEnv = (cidrs: string) => ({
  TRUSTED_PROXY_HEADER: HEADER,
  TRUSTED_PROXY_TEAM: TEAM_A.teamId,
  TRUSTED_PROXY_CIDRS: cidrs,
  RATE_LIMIT_PER_MINUTE: "1000000",
  // The shared Redis keeps every test file's keys of a team: the default 50 would run out.
  KEYS_PER_TEAM: "10000",
});

/** A request as the proxy forwards it: the person's header, optionally a bearer. */
function forwarded(
  base: string,
  method: string,
  path: string,
  email: string | null,
  body?: unknown,
  bearer?: string,
) {
  return fetch(`${base}${path}`, {
    method,
    headers: {
      ...(email !== null ? { [HEADER]: email } : {}),
      ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}),
      ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
}

const make = E2E_STORES[0] as (typeof E2E_STORES)[number];

describe(`trusted proxy on ${make().name}`, () => {
  let store: RoomStore;
  let trusted: RunningServer;
  let untrusted: RunningServer;
  beforeAll(async () => {
    store = await make().open();
    // The in-process servers listen on 127.0.0.1: one trusts that peer, the other only 10.0.0.0/8.
    trusted = startInProcess(store, undefined, proxyEnv("127.0.0.1/32, ::1"));
    untrusted = startInProcess(store, undefined, proxyEnv("10.0.0.0/8"));
  });
  afterAll(async () => {
    await trusted.stop();
    await untrusted.stop();
    await store.close();
  });

  test("from an allowed peer the header is a person of the proxy's team, on routes and tools", async () => {
    const me = await forwarded(trusted.url, "GET", "/admin/me", "alice@example.com");
    expect(me).toEqual({
      status: 200,
      body: { teamId: TEAM_A.teamId, kind: "proxy", type: "human", humanId: "alice@example.com" },
    });
    const rpc = await fetch(`${trusted.url}/mcp`, {
      method: "POST",
      headers: {
        [HEADER]: "alice@example.com",
        "Content-Type": "application/json",
        Accept: "application/json",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "whoami", arguments: {} },
      }),
    }).then((r) => r.json() as Promise<any>);
    expect(JSON.parse(rpc.result.content[0].text)).toMatchObject({
      kind: "proxy",
      type: "human",
      humanId: "alice@example.com",
    });

    const roomId = newRoomId();
    const http = httpClient(trusted.url);
    await http.tool(TEAM_A.secret, "request_approval", { roomId, agentId: "bot", action: "deploy" });
    const decided = await forwarded(
      trusted.url,
      "POST",
      `/rooms/${roomId}/approvals/apr-1`,
      "alice@example.com",
      {
        decision: "approve",
      },
    );
    expect(decided.body).toMatchObject({ status: "approved", decidedBy: "human:alice@example.com" });
    // The header wins over a bearer the proxy passes along: the request is the signed-in person's.
    const both = await forwarded(
      trusted.url,
      "GET",
      "/admin/me",
      "bob@example.com",
      undefined,
      TEAM_A.secret,
    );
    expect(both.body).toMatchObject({ kind: "proxy", humanId: "bob@example.com" });
    const bad = await forwarded(trusted.url, "GET", "/admin/me", "not an id!");
    expect(bad.status).toBe(403);
    expect(bad.body.error).toContain("x-auth-request-email header does not carry a person's id");
  });

  test("from any other peer the header is ignored: no bearer → 401; an agent's bearer stays an agent", async () => {
    expect(await forwarded(untrusted.url, "GET", "/admin/me", "alice@example.com")).toEqual({
      status: 401,
      body: { error: UNAUTHORIZED },
    });
    const agent = await forwarded(
      untrusted.url,
      "GET",
      "/admin/me",
      "alice@example.com",
      undefined,
      TEAM_A.secret,
    );
    expect(agent.body).toEqual({ teamId: TEAM_A.teamId, kind: "static", type: "agent" });
    const roomId = newRoomId();
    await httpClient(untrusted.url).tool(TEAM_A.secret, "request_approval", {
      roomId,
      agentId: "bot",
      action: "x",
    });
    const refused = await forwarded(
      untrusted.url,
      "POST",
      `/rooms/${roomId}/approvals/apr-1`,
      "alice@example.com",
      { decision: "approve" },
      TEAM_A.secret,
    );
    expect(refused).toEqual({ status: 403, body: { error: "Only people can decide approvals" } });
  });
});
