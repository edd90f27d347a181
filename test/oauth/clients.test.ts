/**
 * Who an OAuth client is (src/http/oauth/clients.ts; docs/security.md#oauth): redirect URI rules, open registration
 * whose client_id is the registration itself (tampering yields a refused id), Client ID Metadata Document URLs
 * (https with a path only) and their documents' checks, and the SSRF guard refusing a document on an internal
 * address before any request is made.
 */
import { describe, expect, test } from "bun:test";
import {
  CIMD_MAX_BYTES,
  checkDocument,
  isMetadataUrl,
  redirectUriProblem,
  register,
  resolveClient,
} from "../../src/http/oauth/clients.ts";

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
    const found = await resolveClient(made.answer.client_id as string);
    expect(found).toEqual({
      ok: true,
      client: {
        clientId: made.answer.client_id,
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
