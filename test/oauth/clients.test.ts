/**
 * Who an OAuth client is (src/http/oauth/clients.ts; docs/security.md#oauth): redirect URI rules, open registration
 * whose client_id is the registration itself (tampering yields a refused id), Client ID Metadata Document URLs
 * (https with a path only) and their documents' checks, and the SSRF guard refusing a document on an internal
 * address before any request is made.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CIMD_MAX_BYTES,
  checkDocument,
  isMetadataUrl,
  redirectUriProblem,
  register,
  resolveClient,
} from "../../src/http/oauth/clients.ts";
import type { Resolver } from "../../src/live/webhooks/pin.ts";

const DOC_URL = "https://client.example/oauth/client.json";

describe("redirect URIs", () => {
  test("https anywhere, http on loopback only; no fragment, no credentials", () => {
    for (const ok of [
      "https://app.example/cb",
      "http://127.0.0.1:8080/cb",
      "http://[::1]/cb",
      "http://localhost:3/cb",
    ])
      expect(redirectUriProblem(ok)).toBeNull();
    for (const bad of [
      "http://app.example/cb",
      "https://app.example/cb#frag",
      "https://user:pw@app.example/cb",
      "javascript:alert(1)",
      "/relative",
      `https://app.example/${"a".repeat(600)}`,
      42,
    ])
      expect(redirectUriProblem(bad)).not.toBeNull();
  });
});

describe("dynamic registration", () => {
  test("answers a public client whose id is its registration, and resolves it back", async () => {
    const made = register(
      { client_name: "Claude\u0000 <b>", redirect_uris: ["https://app.example/cb"] },
      1_700_000_000_000,
    );
    if (!made.ok) throw new Error(made.description);
    expect(made.answer).toMatchObject({
      client_id_issued_at: 1_700_000_000,
      client_name: "Claude <b>",
      redirect_uris: ["https://app.example/cb"],
      token_endpoint_auth_method: "none",
    });
    const clientId = made.answer.client_id as string;
    const found = await resolveClient(clientId);
    expect(found).toEqual({
      ok: true,
      client: {
        clientId,
        name: "Claude <b>",
        redirectUris: ["https://app.example/cb"],
      },
    });
  });

  test("refuses confidential clients, other grants, bad redirects; a tampered id names no client", async () => {
    const refusals: [unknown, string][] = [
      [
        { redirect_uris: ["https://a.example/cb"], token_endpoint_auth_method: "client_secret_basic" },
        "invalid_client_metadata",
      ],
      [
        { redirect_uris: ["https://a.example/cb"], grant_types: ["client_credentials"] },
        "invalid_client_metadata",
      ],
      [{ redirect_uris: ["https://a.example/cb"], response_types: ["token"] }, "invalid_client_metadata"],
      [{ redirect_uris: ["http://a.example/cb"] }, "invalid_redirect_uri"],
      [
        { redirect_uris: Array.from({ length: 6 }, (_, i) => `https://a.example/${i}`) },
        "invalid_redirect_uri",
      ],
      [
        { redirect_uris: Array.from({ length: 5 }, (_, i) => `https://a.example/${i}/${"p".repeat(400)}`) },
        "invalid_client_metadata",
      ],
      [[], "invalid_client_metadata"],
      [null, "invalid_client_metadata"],
    ];
    for (const [body, error] of refusals) expect(register(body, 0)).toMatchObject({ ok: false, error });
    const forged = `dcr_${Buffer.from(JSON.stringify({ n: "x", r: ["http://evil.example/cb"] })).toString("base64url")}`;
    expect((await resolveClient(forged)).ok).toBe(false);
    expect((await resolveClient("dcr_%%%")).ok).toBe(false);
    expect((await resolveClient(undefined)).ok).toBe(false);
  });
});

describe("Client ID Metadata Documents", () => {
  test("a client_id URL is https with a path; http, a bare origin or a fragment is not one", () => {
    expect(isMetadataUrl(DOC_URL)).toBe(true);
    for (const bad of [
      "http://client.example/c.json",
      "https://client.example/",
      "https://client.example/c#x",
      "nope",
    ])
      expect(isMetadataUrl(bad)).toBe(false);
  });

  test("the document must name the same client_id and list valid redirect URIs, within the size bound", () => {
    const doc = (extra: object) =>
      JSON.stringify({ client_id: DOC_URL, redirect_uris: ["https://client.example/cb"], ...extra });
    expect(checkDocument(DOC_URL, doc({ client_name: "Ex" }))).toEqual({
      ok: true,
      client: { clientId: DOC_URL, name: "Ex", redirectUris: ["https://client.example/cb"] },
    });
    expect(checkDocument(DOC_URL, doc({})).ok && checkDocument(DOC_URL, doc({}))).toMatchObject({
      client: { name: "client.example" },
    });
    for (const bad of [
      doc({ client_id: "https://other.example/c.json" }),
      doc({ redirect_uris: ["http://client.example/cb"] }),
      doc({ redirect_uris: [] }),
      doc({ token_endpoint_auth_method: "private_key_jwt" }),
      "not json",
      "[]",
      doc({ padding: "x".repeat(CIMD_MAX_BYTES) }),
    ])
      expect(checkDocument(DOC_URL, bad).ok).toBe(false);
  });

  test("a document on a loopback or private address is refused before any request", async () => {
    for (const url of [
      "https://127.0.0.1/client.json",
      "https://10.1.2.3/client.json",
      "https://[::1]/c.json",
    ]) {
      const found = await resolveClient(url);
      expect(found.ok).toBe(false);
      expect(found.ok ? "" : found.error).toContain("not reachable");
    }
  });
});

describe("a metadata document fetched over https", () => {
  const HOST = "client.example.test";
  let dir = "";
  let server: ReturnType<typeof Bun.serve>;
  let cert = "";
  let base = "";
  const bodies = new Map<string, { status?: number; text: string }>();
  const asked: string[] = [];
  // The name resolves to this machine; the tests allow that internal address explicitly (no setting exposes it).
  const loopback: Resolver = async (hostname) => {
    asked.push(hostname);
    return [{ address: "127.0.0.1", family: 4 }];
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "roomd-cimd-"));
    const args = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
    args.push("-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-days", "1");
    args.push("-subj", `/CN=${HOST}`, "-addext", `subjectAltName=DNS:${HOST}`);
    const made = Bun.spawnSync(["openssl", ...args], { stderr: "pipe" });
    if (made.exitCode !== 0) throw new Error(`openssl failed: ${made.stderr.toString()}`);
    cert = readFileSync(join(dir, "cert.pem"), "utf8");
    server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      tls: { key: readFileSync(join(dir, "key.pem"), "utf8"), cert },
      fetch(req) {
        const found = bodies.get(new URL(req.url).pathname);
        if (!found) return new Response("no", { status: 404 });
        if (found.status === 302)
          return new Response(null, { status: 302, headers: { location: "/other.json" } });
        return new Response(found.text, {
          status: found.status ?? 200,
          headers: { "content-type": "application/json" },
        });
      },
    });
    base = `https://${HOST}:${server.port}`;
  });
  afterAll(() => {
    server?.stop(true);
    rmSync(dir, { recursive: true, force: true });
  });

  const doc = (path: string, extra: object = {}) =>
    JSON.stringify({
      client_id: `${base}${path}`,
      client_name: "Docs client",
      redirect_uris: ["https://client.example/cb"],
      ...extra,
    });

  test("the document is fetched from the checked address, with the certificate checked for its name", async () => {
    bodies.set("/ok.json", { text: doc("/ok.json") });
    const found = await resolveClient(`${base}/ok.json`, { resolve: loopback, allowPrivate: true, ca: cert });
    expect(found).toEqual({
      ok: true,
      client: {
        clientId: `${base}/ok.json`,
        name: "Docs client",
        redirectUris: ["https://client.example/cb"],
      },
    });
    expect(asked).toContain(HOST);
    // Without trusting the test's certificate, the TLS check fails: nothing is accepted.
    expect((await resolveClient(`${base}/ok.json`, { resolve: loopback, allowPrivate: true })).ok).toBe(
      false,
    );
    // And without allowing the internal address, nothing is even requested.
    const refused = await resolveClient(`${base}/ok.json`, { resolve: loopback, ca: cert });
    expect(refused.ok ? "" : refused.error).toContain("not reachable");
  });

  test("refused: a redirect, an error status, an oversized body, another client_id", async () => {
    bodies.set("/redirect.json", { status: 302, text: "" });
    bodies.set("/gone.json", { status: 410, text: doc("/gone.json") });
    bodies.set("/big.json", { text: doc("/big.json", { pad: "x".repeat(CIMD_MAX_BYTES) }) });
    bodies.set("/other.json", { text: doc("/not-this-one.json") });
    for (const path of ["/redirect.json", "/gone.json", "/big.json", "/other.json", "/missing.json"]) {
      const found = await resolveClient(`${base}${path}`, {
        resolve: loopback,
        allowPrivate: true,
        ca: cert,
      });
      expect(found.ok).toBe(false);
    }
  });
});
