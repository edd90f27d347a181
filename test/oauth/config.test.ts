/** OAUTH and OAUTH_ISSUER (docs/operations.md): on by default, `off` turns it off, the issuer is an origin only. */
import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config.ts";

describe("OAuth configuration", () => {
  test("on unless OAUTH=off; no issuer unless set", () => {
    expect(loadConfig({})).toMatchObject({ oauth: true });
    expect(loadConfig({}).oauthIssuer).toBeUndefined();
    expect(loadConfig({ OAUTH: "on" }).oauth).toBe(true);
    expect(loadConfig({ OAUTH: "off" }).oauth).toBe(false);
  });

  test("OAUTH_ISSUER is an origin (a trailing slash is dropped)", () => {
    expect(loadConfig({ OAUTH_ISSUER: "https://roomd.example" }).oauthIssuer).toBe("https://roomd.example");
    expect(loadConfig({ OAUTH_ISSUER: "https://roomd.example/" }).oauthIssuer).toBe("https://roomd.example");
    expect(loadConfig({ OAUTH_ISSUER: "http://127.0.0.1:3000" }).oauthIssuer).toBe("http://127.0.0.1:3000");
    expect(loadConfig({ OAUTH_ISSUER: "" }).oauthIssuer).toBeUndefined();
  });

  test("bad values stop start-up naming the variable", () => {
    expect(() => loadConfig({ OAUTH: "maybe" })).toThrow(/OAUTH: must be on or off/);
    for (const bad of [
      "https://roomd.example/mcp",
      "ftp://roomd.example",
      "roomd.example",
      "https://roomd.example?x=1",
    ])
      expect(() => loadConfig({ OAUTH_ISSUER: bad }), bad).toThrow(/OAUTH_ISSUER: must be an origin/);
  });
});
