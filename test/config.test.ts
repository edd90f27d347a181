import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../src/config.ts";

describe("loadConfig", () => {
  test("defaults: SQLite on port 3000", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      store: "sqlite",
      sqlitePath: "./data/roomd.sqlite",
      rateLimitPerMinute: 600,
      rateLimitFailOpen: true,
      roomSummary: "public",
    });
  });

  const KEYS = { API_KEYS: "team-a:0123456789abcdef" };

  test("STORE follows the URL that is set, each driver with its own settings", () => {
    expect(loadConfig({ ...KEYS, REDIS_URL: "redis://127.0.0.1:6379" })).toMatchObject({
      store: "redis",
      redisUrl: "redis://127.0.0.1:6379",
    });
    expect(
      loadConfig({ ...KEYS, UPSTASH_REDIS_REST_URL: "https://x.upstash.io", UPSTASH_REDIS_REST_TOKEN: "t" }),
    ).toMatchObject({ store: "upstash", upstashUrl: "https://x.upstash.io", upstashToken: "t" });
    expect(loadConfig({})).not.toHaveProperty("redisUrl");
  });

  test("UPSTASH_POLL_MS: 200 ms by default, 100–10,000 accepted, anything else named at start-up", () => {
    const upstash = {
      ...KEYS,
      UPSTASH_REDIS_REST_URL: "https://x.upstash.io",
      UPSTASH_REDIS_REST_TOKEN: "t",
    };
    expect(loadConfig(upstash)).toMatchObject({ upstashPollMs: 200 });
    expect(loadConfig({ ...upstash, UPSTASH_POLL_MS: "100" })).toMatchObject({ upstashPollMs: 100 });
    for (const bad of ["99", "10001", "fast"])
      expect(() => loadConfig({ ...upstash, UPSTASH_POLL_MS: bad }), bad).toThrow(/UPSTASH_POLL_MS: /);
  });

  test("a shared store without keys in the environment is configured (the store may hold an operator key)", () => {
    expect(loadConfig({ REDIS_URL: "redis://127.0.0.1:6379" })).toMatchObject({
      store: "redis",
      apiKeys: [],
      operatorKeys: [],
    });
    expect(() => loadConfig({ REDIS_URL: "redis://127.0.0.1:6379", PORT: "x" })).toThrow(/PORT: /);
  });

  test("parses key lists", () => {
    const config = loadConfig({ API_KEYS: "team-a:0123456789abcdef, team-b:fedcba9876543210" });
    expect(config.apiKeys).toEqual([
      { teamId: "team-a", secret: "0123456789abcdef" },
      { teamId: "team-b", secret: "fedcba9876543210" },
    ]);
  });

  test("one message names every bad variable and never echoes a secret", () => {
    const secret = "short-secret";
    let message = "";
    try {
      loadConfig({
        PORT: "http",
        STORE: "mongo",
        API_KEYS: `Team A:${secret}`,
        ROOM_SUMMARY: "open",
        RATE_LIMIT_FAIL_OPEN: "maybe",
      });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as Error).message;
    }
    for (const name of ["PORT", "STORE", "API_KEYS", "ROOM_SUMMARY", "RATE_LIMIT_FAIL_OPEN"])
      expect(message).toContain(name);
    expect(message).not.toContain(secret);
  });

  test("a Redis store needs its URL", () => {
    expect(() => loadConfig({ STORE: "redis" })).toThrow(/REDIS_URL: required/);
    expect(() => loadConfig({ STORE: "upstash" })).toThrow(/UPSTASH_REDIS_REST_TOKEN: required/);
  });

  test("HOST defaults to loopback and takes an IP address or a hostname, nothing else", () => {
    expect(loadConfig({}).host).toBe("127.0.0.1");
    for (const host of ["0.0.0.0", "::", "::1", "10.0.0.5", "localhost", "roomd.internal"])
      expect(loadConfig({ HOST: host }).host).toBe(host);
    for (const host of ["http://0.0.0.0", "999.1.1.1", "two words", "[::1]", "0.0.0.0:3000"])
      expect(() => loadConfig({ HOST: host }), host).toThrow(/HOST: must be an IP address or a hostname/);
  });

  test("OPERATOR_NAME names the first-run person: local unless set, a person id or a named error", () => {
    expect(loadConfig({}).operatorName).toBe("local");
    expect(loadConfig({ OPERATOR_NAME: "" }).operatorName).toBe("local");
    expect(loadConfig({ OPERATOR_NAME: " ada.l@example " }).operatorName).toBe("ada.l@example");
    for (const name of ["two words", "x".repeat(65), "ada:lovelace"])
      expect(() => loadConfig({ OPERATOR_NAME: name }), name).toThrow(
        /OPERATOR_NAME: must be 1-64 characters/,
      );
  });

  test("ALLOWED_ORIGINS takes full origins, normalised as browsers send them", () => {
    expect(loadConfig({}).allowedOrigins).toEqual([]);
    expect(
      loadConfig({ ALLOWED_ORIGINS: "https://App.Example.com, http://localhost:5173/,https://x.example:443" })
        .allowedOrigins,
    ).toEqual(["https://app.example.com", "http://localhost:5173", "https://x.example"]);
    let message = "";
    try {
      loadConfig({ ALLOWED_ORIGINS: "https://ok.example,null,https://a.example/app,*,ftp://f.example" });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message.match(/ALLOWED_ORIGINS: entry \d+ must be a full origin/g)).toHaveLength(4);
    for (const n of [2, 3, 4, 5]) expect(message).toContain(`entry ${n} must`);
  });

  test("SUMMARY_RATE_LIMIT_PER_MINUTE defaults to 120 and must be a positive integer", () => {
    expect(loadConfig({}).summaryRateLimitPerMinute).toBe(120);
    expect(loadConfig({ SUMMARY_RATE_LIMIT_PER_MINUTE: "30" }).summaryRateLimitPerMinute).toBe(30);
    expect(() => loadConfig({ SUMMARY_RATE_LIMIT_PER_MINUTE: "0" })).toThrow(/SUMMARY_RATE_LIMIT_PER_MINUTE/);
  });

  test("AGENT_RATE_LIMIT_PER_MINUTE is off (0) by default and takes a whole number, nothing else", () => {
    expect(loadConfig({}).agentRateLimitPerMinute).toBe(0);
    expect(loadConfig({ AGENT_RATE_LIMIT_PER_MINUTE: "120" }).agentRateLimitPerMinute).toBe(120);
    for (const bad of ["-1", "1.5", "lots"])
      expect(() => loadConfig({ AGENT_RATE_LIMIT_PER_MINUTE: bad })).toThrow(/AGENT_RATE_LIMIT_PER_MINUTE/);
  });

  test("the new variables are reported with every other bad one, in one message", () => {
    expect(() => loadConfig({ PORT: "x", HOST: "not a host", ALLOWED_ORIGINS: "nope" })).toThrow(
      /PORT: .*\n.*HOST: .*\n.*ALLOWED_ORIGINS: /s,
    );
  });

  test("webhooks: the signing key is at least 32 chars and never echoed; the flags default to off; 10 per room", () => {
    expect(loadConfig({})).toMatchObject({
      webhookAllowHttp: false,
      webhookAllowPrivate: false,
      webhooksPerRoom: 10,
    });
    expect(loadConfig({})).not.toHaveProperty("webhookSigningKey");
    const key = "k".repeat(32);
    expect(
      loadConfig({
        WEBHOOK_SIGNING_KEY: key,
        WEBHOOK_ALLOW_HTTP: "true",
        WEBHOOK_ALLOW_PRIVATE: "1",
        WEBHOOKS_PER_ROOM: "3",
      }),
    ).toMatchObject({
      webhookSigningKey: key,
      webhookAllowHttp: true,
      webhookAllowPrivate: true,
      webhooksPerRoom: 3,
    });
    const short = "too-short-signing-key";
    let message = "";
    try {
      loadConfig({ WEBHOOK_SIGNING_KEY: short, WEBHOOK_ALLOW_HTTP: "yes", WEBHOOKS_PER_ROOM: "0" });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/WEBHOOK_SIGNING_KEY: must be at least 32 characters/);
    expect(message).toContain("WEBHOOK_ALLOW_HTTP: must be true or false");
    expect(message).toContain("WEBHOOKS_PER_ROOM: must be at least 1");
    expect(message).not.toContain(short);
  });

  test("watching: LOG_LEVEL defaults to info; METRICS_TOKEN is 16+ chars, optional, never echoed", () => {
    expect(loadConfig({})).toMatchObject({ logLevel: "info" });
    expect(loadConfig({})).not.toHaveProperty("metricsToken");
    const token = "metrics-0123456789abcdef";
    expect(loadConfig({ LOG_LEVEL: "warn", METRICS_TOKEN: token })).toMatchObject({
      logLevel: "warn",
      metricsToken: token,
    });
    const short = "tiny-token";
    let message = "";
    try {
      loadConfig({ LOG_LEVEL: "verbose", METRICS_TOKEN: short });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("LOG_LEVEL: must be debug, info, warn or error");
    expect(message).toContain("METRICS_TOKEN: must be 16-512 characters without spaces");
    expect(message).not.toContain(short);
  });
});
