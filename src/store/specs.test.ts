import { describe, expect, test } from "bun:test";
import { redactSpec, settingsFromSpec } from "./specs.ts";

describe("store specs", () => {
  test("each driver's forms", () => {
    expect(settingsFromSpec("sqlite:///var/lib/roomd/roomd.sqlite")).toEqual({
      store: "sqlite",
      sqlitePath: "/var/lib/roomd/roomd.sqlite",
    });
    expect(settingsFromSpec("sqlite:./data/roomd.sqlite")).toEqual({
      store: "sqlite",
      sqlitePath: "./data/roomd.sqlite",
    });
    expect(settingsFromSpec("redis://:pw@10.0.0.5:6379/2")).toEqual({
      store: "redis",
      redisUrl: "redis://:pw@10.0.0.5:6379/2",
      redisCluster: false,
    });
    expect(settingsFromSpec("rediss://h:6380")).toMatchObject({ store: "redis", redisCluster: false });
    expect(settingsFromSpec("redis-cluster://a:7000,b:7000")).toEqual({
      store: "redis",
      redisUrl: "redis-cluster://a:7000,b:7000",
      redisCluster: true,
    });
    expect(settingsFromSpec("upstash+https://eu1.upstash.io?token=abc")).toEqual({
      store: "upstash",
      upstashUrl: "https://eu1.upstash.io",
      upstashToken: "abc",
    });
    expect(settingsFromSpec("postgres://roomd:pw@10.0.0.7:5432/roomd?sslmode=require")).toEqual({
      store: "postgres",
      databaseUrl: "postgres://roomd:pw@10.0.0.7:5432/roomd?sslmode=require",
      databasePoolSize: 10,
    });
    expect(settingsFromSpec("postgresql://db.internal/roomd")).toMatchObject({
      store: "postgres",
      databaseUrl: "postgresql://db.internal/roomd",
    });
  });

  test("what is wrong is said, never a secret", () => {
    expect(() => settingsFromSpec("upstash+https://eu1.upstash.io")).toThrow("?token=");
    expect(() => settingsFromSpec("sqlite:")).toThrow("names a file");
    expect(() => settingsFromSpec("postgres://admin:hunter2@db")).toThrow("names a server and a database");
    try {
      settingsFromSpec("postgres://admin:hunter2@db");
    } catch (error) {
      expect((error as Error).message).not.toContain("hunter2");
    }
    let message = "";
    try {
      settingsFromSpec("postgresx://admin:hunter2@db/x");
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("unknown store");
    expect(message).not.toContain("hunter2");
  });

  test("redaction hides passwords and tokens", () => {
    expect(redactSpec("redis://user:pw@h:1")).toBe("redis://user:***@h:1");
    expect(redactSpec("redis://:pw@h:1")).toBe("redis://:***@h:1");
    expect(redactSpec("upstash+https://x.io?token=abc&y=1")).toBe("upstash+https://x.io?token=***&y=1");
    expect(redactSpec("sqlite:///a/b.sqlite")).toBe("sqlite:///a/b.sqlite");
    expect(redactSpec("postgres://roomd:pw@db:5432/roomd")).toBe("postgres://roomd:***@db:5432/roomd");
  });
});
