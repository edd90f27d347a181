import { expect, test } from "bun:test";
import { nodeUrl, parseClusterUrl } from "./url.ts";

test("redis-cluster:// seeds with and without credentials", () => {
  expect(parseClusterUrl("redis-cluster://10.0.0.1:7000,10.0.0.2:7001")).toEqual({
    seeds: ["10.0.0.1:7000", "10.0.0.2:7001"],
    username: undefined,
    password: undefined,
    tls: false,
  });
  const withAuth = parseClusterUrl("redis-cluster://app:p%40ss@redis-a:6379,[::1]:6380/");
  expect(withAuth).toEqual({
    seeds: ["redis-a:6379", "[::1]:6380"],
    username: "app",
    password: "p@ss",
    tls: false,
  });
  expect(nodeUrl("10.0.0.9:7002", withAuth)).toBe("redis://app:p%40ss@10.0.0.9:7002");
});

test("one redis:// or rediss:// seed (REDIS_CLUSTER=true) keeps TLS and the password for every node", () => {
  const seeds = parseClusterUrl("rediss://:secret@cache.example:6379/0");
  expect(seeds).toEqual({
    seeds: ["cache.example:6379"],
    username: undefined,
    password: "secret",
    tls: true,
  });
  expect(nodeUrl("10.1.2.3:6379", seeds)).toBe("rediss://:secret@10.1.2.3:6379");
});

test("refuses what is not a seed list", () => {
  expect(() => parseClusterUrl("http://h:1")).toThrow(/must start with/);
  expect(() => parseClusterUrl("redis-cluster://h")).toThrow(/host:port/);
  expect(() => parseClusterUrl("redis-cluster://h:1;g:2")).toThrow(/host:port/);
});
