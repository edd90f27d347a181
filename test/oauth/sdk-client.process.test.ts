/**
 * Process tier: OAuth end to end against a real roomd process on SQLite (docs/security.md#oauth).
 *
 * - The official MCP SDK client's own OAuth flow (its `authProvider` on the streamable HTTP transport): discovery from
 *   the 401, dynamic registration, PKCE, then chromium — as the person — signing in through roomd's sign-in and
 *   allowing the client on the consent page by keyboard at 390 px, with no console error or CSP violation; the SDK
 *   exchanges the code and its session's calls act as the chosen agent in the chosen room. A refresh rotates; the
 *   dashboard lists the grant and its Revoke button ends it.
 * - The official conformance suite's authorization-server scenarios (`conformance authorization`): the metadata
 *   endpoint, and the authorization code grant with chromium allowing the suite's client on the consent page.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type OAuthClientProvider, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Browser, Page } from "playwright-core";
import { httpClient } from "../support/http.ts";
import { freePort } from "../support/redis-server.ts";
import { OPERATOR, type SpawnedServer, spawnServer } from "../support/server.ts";
import { newRoomId } from "../support/stores.ts";
import { launchBrowser, openPage, provisionWebTeam, tabTo, type WebTeam } from "../support/web.ts";
import { registerClient } from "./flow.ts";

setDefaultTimeout(120_000);

const SUITE = join(
  import.meta.dir,
  "..",
  "..",
  "node_modules",
  "@modelcontextprotocol",
  "conformance",
  "dist",
  "index.js",
);

/** The SDK's client side, kept in memory as a client application would keep it. */
class MemoryProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;
  constructor(readonly redirectUrl: string) {}
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "SDK test client",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** A loopback callback server: the URL each authorization response came back with. */
function callbackServer(port: number) {
  const seen: string[] = [];
  const server = Bun.serve({
    port,
    hostname: "127.0.0.1",
    fetch(req) {
      seen.push(req.url);
      return new Response("OK. You can close this page.");
    },
  });
  return { seen, stop: () => server.stop(true) };
}

let server: SpawnedServer;
let browser: Browser;
let team: WebTeam;
let roomId: string;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "roomd-oauth-"));
  server = await spawnServer({
    STORE: "sqlite",
    SQLITE_PATH: join(dir, "roomd.sqlite"),
    OPERATOR_KEYS: `${OPERATOR.teamId}:${OPERATOR.secret}`,
    RATE_LIMIT_PER_MINUTE: "100000",
  });
  team = await provisionWebTeam(server.url, OPERATOR.secret, "ada");
  roomId = newRoomId();
  expect((await httpClient(server.url).post("/admin/rooms", team.person, { roomId })).status).toBe(201);
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** Chromium, as the person: sign in if asked, then allow on the consent page by keyboard as `agent`. */
async function allow(page: Page, url: string, agent: string): Promise<void> {
  await page.goto(url);
  if (new URL(page.url()).pathname === "/login") {
    await page.fill("#key", team.person);
    await Promise.all([
      page.waitForURL((u) => u.pathname === "/oauth/authorize"),
      page.press("#key", "Enter"),
    ]);
  }
  await page.waitForSelector("#consent-form");
  // The team has one room: its box comes ticked.
  expect(await page.isChecked(`input[name="room"][value="${roomId}"]`)).toBe(true);
  await tabTo(page, "#consent-agent");
  await page.keyboard.press("Control+A");
  await page.keyboard.type(agent);
  await tabTo(page, 'button[value="allow"]');
  await Promise.all([page.waitForURL((u) => u.pathname === "/callback"), page.keyboard.press("Enter")]);
}

describe("OAuth, end to end", () => {
  test("the SDK client's authProvider flow, consent in chromium at 390 px, ends in a session acting as the chosen agent", async () => {
    const port = await freePort();
    const callback = callbackServer(port);
    const provider = new MemoryProvider(`http://127.0.0.1:${port}/callback`);
    const watched = await openPage(browser, { width: 390, height: 800 });
    try {
      const mcpUrl = new URL(`${server.url}/mcp`);
      const first = new Client({ name: "sdk-oauth-test", version: "1.0.0" });
      await expect(
        first.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider })),
      ).rejects.toThrow(UnauthorizedError);
      const authUrl = provider.authorizationUrl as URL;
      expect(authUrl.origin + authUrl.pathname).toBe(`${server.url}/oauth/authorize`);
      expect(authUrl.searchParams.get("resource")).toBe(`${server.url}/mcp`);
      expect(authUrl.searchParams.get("code_challenge_method")).toBe("S256");

      await allow(watched.page, authUrl.toString(), "sdk-agent");
      const back = new URL(callback.seen.find((u) => new URL(u).pathname === "/callback") as string);
      expect(back.searchParams.get("iss")).toBe(server.url);
      const code = back.searchParams.get("code") as string;

      const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
      await transport.finishAuth(code);
      const client = new Client({ name: "sdk-oauth-test", version: "1.0.0" });
      await client.connect(transport);
      const me = await client.callTool({ name: "whoami", arguments: {} });
      expect(JSON.parse((me.content as { text: string }[])[0]?.text ?? "{}")).toMatchObject({
        teamId: team.teamId,
        kind: "oauth",
        type: "agent",
        boundAgentId: "sdk-agent",
        allowedRoomId: roomId,
      });
      const beat = await client.callTool({ name: "heartbeat", arguments: { statusText: "via OAuth" } });
      expect(beat.isError).toBeFalsy();
      const presence = await client.callTool({ name: "get_presence", arguments: {} });
      expect((presence.content as { text: string }[])[0]?.text).toContain("sdk-agent");
      // Acting as another agent is refused, as for a bound key.
      const other = await client.callTool({ name: "heartbeat", arguments: { agentId: "someone-else" } });
      expect(other.isError).toBe(true);
      await client.close();

      // The refresh token rotates: the old access token ends, the new one works.
      const before = provider.saved as OAuthTokens;
      const refreshed = await fetch(`${server.url}/oauth/token`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "refresh_token",
          refresh_token: before.refresh_token as string,
          client_id: provider.info?.client_id as string,
        }),
      });
      expect(refreshed.status).toBe(200);
      const after = (await refreshed.json()) as OAuthTokens;
      expect(after.refresh_token).not.toBe(before.refresh_token);
      const oldCall = await fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: { Authorization: `Bearer ${before.access_token}`, "Content-Type": "application/json" },
        body: "{}",
      });
      expect(oldCall.status).toBe(401);

      // The dashboard lists the grant; its Revoke button ends the new tokens too.
      const call = (token: string) =>
        fetch(`${server.url}/mcp`, {
          method: "POST",
          headers: {
            Authorization: `Bearer ${token}`,
            "Content-Type": "application/json",
            Accept: "application/json, text/event-stream",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
        });
      expect((await call(after.access_token)).status).toBe(200);
      await watched.page.goto(`${server.url}/dashboard`);
      const row = watched.page.locator("#oauth-grants tbody tr", { hasText: "sdk-agent" });
      await row.waitFor();
      expect(await row.textContent()).toContain("SDK test client");
      // Its room is shown; the grant is not read-only.
      expect(await row.textContent()).toContain(roomId);
      expect(await row.textContent()).not.toContain("read-only");
      await row.locator("button").click();
      await watched.page
        .locator("#oauth-grants tbody tr", { hasText: "sdk-agent" })
        .waitFor({ state: "detached" });
      expect((await call(after.access_token)).status).toBe(401);
      expect(watched.problems).toEqual([]);
    } finally {
      await watched.close();
      callback.stop();
    }
  });

  test("the consent page fits 390 px and is reachable by keyboard", async () => {
    const port = await freePort();
    const clientId = await registerClient(server.url, [`http://127.0.0.1:${port}/callback`]);
    const watched = await openPage(browser, { width: 390, height: 800 });
    try {
      const url = new URL(`${server.url}/oauth/authorize`);
      for (const [k, v] of Object.entries({
        response_type: "code",
        client_id: clientId,
        redirect_uri: `http://127.0.0.1:${port}/callback`,
        state: "s",
        code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        code_challenge_method: "S256",
        resource: `${server.url}/mcp`,
      }))
        url.searchParams.set(k, v);
      await watched.page.goto(url.toString());
      await watched.page.fill("#key", team.person);
      await Promise.all([
        watched.page.waitForURL((u) => u.pathname === "/oauth/authorize"),
        watched.page.press("#key", "Enter"),
      ]);
      await watched.page.waitForSelector("#consent-form");
      const width = (await watched.page.evaluate("document.scrollingElement.scrollWidth")) as number;
      expect(width).toBeLessThanOrEqual(390);
      await tabTo(watched.page, "#consent-room");
      await tabTo(watched.page, "#consent-readonly");
      await tabTo(watched.page, 'button[value="deny"]');
      expect(watched.problems).toEqual([]);
    } finally {
      await watched.close();
    }
  });

  test("the official conformance suite's authorization-server scenarios pass against roomd", async () => {
    const port = await freePort();
    const clientId = await registerClient(server.url, [`http://127.0.0.1:${port}/callback`]);
    const watched = await openPage(browser);
    try {
      const proc = Bun.spawn(
        [
          "bun",
          SUITE,
          "authorization",
          "--url",
          server.url,
          "--client-id",
          clientId,
          "--resource",
          `${server.url}/mcp`,
          "--port",
          String(port),
          "-o",
          mkdtempSync(join(tmpdir(), "roomd-oauth-conformance-")),
        ],
        { stdout: "pipe", stderr: "pipe" },
      );
      let output = "";
      const decoder = new TextDecoder();
      const reader = proc.stdout.getReader();
      let authorizeUrl: string | undefined;
      while (authorizeUrl === undefined) {
        const { value, done } = await reader.read();
        if (done) break;
        output += decoder.decode(value);
        authorizeUrl = /^(http\S+\/oauth\/authorize\?\S+)$/m.exec(output)?.[1];
      }
      if (authorizeUrl === undefined) throw new Error(`the suite printed no authorization URL:\n${output}`);
      await allow(watched.page, authorizeUrl, "conformance-agent");
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        output += decoder.decode(value);
      }
      output += await new Response(proc.stderr).text();
      const code = await proc.exited;
      const lines = [
        ...output.matchAll(/^.*(authorization-server-metadata-endpoint|authorization-code-grant).*$/gm),
      ].map((m) => m[0]);
      console.log(lines.join("\n"));
      expect(output).not.toMatch(/✗|FAILURE/);
      expect(output).toMatch(/authorization-server-metadata-endpoint/);
      expect(output).toMatch(/authorization-code-grant/);
      expect(code).toBe(0);
      // The suite's callback server closes once it has the code, so chromium's later requests to it are refused.
      expect(watched.problems.filter((p) => !p.includes("ERR_CONNECTION_REFUSED"))).toEqual([]);
    } finally {
      await watched.close();
    }
  });
});
