import { describe, expect, test } from "bun:test";
import { loadConfig } from "../src/config.ts";

describe("loadConfig: PostgreSQL", () => {
  const KEYS = { API_KEYS: "team-a:0123456789abcdef" };
  const URL = "postgres://roomd:s3cret-pass@db.internal:5432/roomd?sslmode=verify-full";

  test("DATABASE_URL alone chooses postgres, with a pool of 10; STORE=postgres and the pool size are read", () => {
    expect(loadConfig({ ...KEYS, DATABASE_URL: URL })).toMatchObject({
      store: "postgres",
      databaseUrl: URL,
      databasePoolSize: 10,
    });
    expect(
      loadConfig({ ...KEYS, STORE: "postgres", DATABASE_URL: "postgresql://h/db", DATABASE_POOL_SIZE: "4" }),
    ).toMatchObject({ store: "postgres", databaseUrl: "postgresql://h/db", databasePoolSize: 4 });
    // A Redis URL set as well keeps the earlier default; STORE says which.
    expect(loadConfig({ ...KEYS, DATABASE_URL: URL, REDIS_URL: "redis://r:6379" }).store).toBe("redis");
    expect(
      loadConfig({ ...KEYS, DATABASE_URL: URL, REDIS_URL: "redis://r:6379", STORE: "postgres" }).store,
    ).toBe("postgres");
  });

  test("refused: no URL, another scheme, a pool outside 1–1000; the password is never echoed", () => {
    expect(() => loadConfig({ ...KEYS, STORE: "postgres" })).toThrow(
      /DATABASE_URL: required when STORE=postgres/,
    );
    // Keys may come from the store (a migrated operator key): checked once it is open (index.ts).
    expect(loadConfig({ DATABASE_URL: URL })).toMatchObject({ store: "postgres", apiKeys: [] });
    let message = "";
    try {
      loadConfig({ ...KEYS, DATABASE_URL: "mysql://roomd:s3cret-pass@h/db", DATABASE_POOL_SIZE: "0" });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("DATABASE_URL: must be a valid URL");
    expect(message).toContain("DATABASE_POOL_SIZE: must be at least 1");
    expect(message).not.toContain("s3cret");
  });
});
