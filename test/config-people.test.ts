/**
 * People in the configuration (docs/people.md#people-and-agents): operator keys name their person; the trusted
 * proxy's settings.
 */
import { describe, expect, test } from "bun:test";
import { loadConfig } from "../src/config.ts";

describe("OPERATOR_KEYS=teamId:secret[:humanId]", () => {
  test("an operator key is a person: named, or 'operator' by default; API_KEYS are agents' and keep colons in secrets", () => {
    const config = loadConfig({
      OPERATOR_KEYS: "ops:0123456789abcdef:alice@example.com, ops:fedcba9876543210",
      API_KEYS: "team-a:0123456789:abcdef",
    });
    expect(config.operatorKeys).toEqual([
      { teamId: "ops", secret: "0123456789abcdef", humanId: "alice@example.com" },
      { teamId: "ops", secret: "fedcba9876543210", humanId: "operator" },
    ]);
    expect(config.apiKeys).toEqual([{ teamId: "team-a", secret: "0123456789:abcdef" }]);
  });

  test("a bad humanId or a short secret is refused, naming the entry and never the secret", () => {
    let message = "";
    try {
      loadConfig({ OPERATOR_KEYS: "ops:0123456789abcdef:not valid!, ops:short:bob" });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("OPERATOR_KEYS: entry 1 must be teamId:secret[:humanId]");
    expect(message).toContain("OPERATOR_KEYS: entry 2 must be teamId:secret[:humanId]");
    expect(message).not.toContain("0123456789abcdef");
  });
});

describe("TRUSTED_PROXY_HEADER, TRUSTED_PROXY_TEAM, TRUSTED_PROXY_CIDRS", () => {
  test("off by default; set together they name the header (lowercase), the team and the peers", () => {
    expect(loadConfig({}).trustedProxy).toBeNull();
    const config = loadConfig({
      TRUSTED_PROXY_HEADER: "X-Auth-Request-Email",
      TRUSTED_PROXY_TEAM: "platform",
      TRUSTED_PROXY_CIDRS: "10.0.0.0/8, fd00::/8,127.0.0.1",
    });
    expect(config.trustedProxy?.header).toBe("x-auth-request-email");
    expect(config.trustedProxy?.teamId).toBe("platform");
    expect(config.trustedProxy?.cidrs.map((c) => [c.text, c.prefix])).toEqual([
      ["10.0.0.0/8", 8],
      ["fd00::/8", 8],
      ["127.0.0.1", 32],
    ]);
  });

  test("one without the others, a bad range, header or team: one message listing every problem", () => {
    expect(() => loadConfig({ TRUSTED_PROXY_HEADER: "X-Email" })).toThrow(
      /TRUSTED_PROXY_TEAM: required with TRUSTED_PROXY_HEADER.*\n.*TRUSTED_PROXY_CIDRS: required with TRUSTED_PROXY_HEADER/s,
    );
    expect(() => loadConfig({ TRUSTED_PROXY_CIDRS: "10.0.0.0/8" })).toThrow(
      /TRUSTED_PROXY_HEADER: required with TRUSTED_PROXY_TEAM and TRUSTED_PROXY_CIDRS/,
    );
    expect(() =>
      loadConfig({
        TRUSTED_PROXY_HEADER: "X Email",
        TRUSTED_PROXY_TEAM: "Bad_Team",
        TRUSTED_PROXY_CIDRS: "10.0.0.0/33",
      }),
    ).toThrow(
      /TRUSTED_PROXY_HEADER: must be an HTTP header name.*TRUSTED_PROXY_TEAM: must be a team id.*TRUSTED_PROXY_CIDRS: entry 1 must be/s,
    );
  });
});
