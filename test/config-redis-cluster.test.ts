/** REDIS_CLUSTER and redis-cluster:// URLs in the configuration (kept apart from config.test.ts). */
import { expect, test } from "bun:test";
import { type Config, ConfigError, loadConfig } from "../src/config.ts";

const KEYS = { API_KEYS: "team-a:0123456789abcdef" };
/** The cluster flag of a configuration (only the Redis variant has one). */
const cluster = (env: Record<string, string>) => {
  const config: Config = loadConfig({ ...KEYS, ...env });
  return config.store === "redis" ? config.redisCluster : undefined;
};

test("a redis-cluster:// URL selects the Redis driver in cluster mode", () => {
  const config = loadConfig({ ...KEYS, REDIS_URL: "redis-cluster://10.0.0.1:7000,10.0.0.2:7000" });
  expect(config).toMatchObject({ store: "redis", redisCluster: true });
  expect(cluster({ REDIS_URL: "redis-cluster://:s3cret@10.0.0.1:7000" })).toBe(true);
});

test("REDIS_CLUSTER=true turns an ordinary URL into a cluster seed; the default is a single node", () => {
  expect(cluster({ REDIS_URL: "redis://10.0.0.1:7000", REDIS_CLUSTER: "true" })).toBe(true);
  expect(cluster({ REDIS_URL: "rediss://10.0.0.1:7000", REDIS_CLUSTER: "1" })).toBe(true);
  expect(cluster({ REDIS_URL: "redis://10.0.0.1:7000" })).toBe(false);
  // The embedded store has no cluster setting at all.
  expect(cluster({})).toBeUndefined();
});

test("bad values name the variable and never echo the URL's password", () => {
  for (const [env, name] of [
    [{ REDIS_URL: "redis-cluster://:hunter22@nohost" }, "REDIS_URL"],
    [{ REDIS_URL: "redis-cluster://10.0.0.1:7000;10.0.0.2:7000" }, "REDIS_URL"],
    [{ REDIS_URL: "redis://h:1", REDIS_CLUSTER: "yes" }, "REDIS_CLUSTER"],
  ] as const) {
    const err = (() => {
      try {
        loadConfig(env);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain(`${name}: must be`);
    expect((err as Error).message).not.toContain("hunter22");
  }
});
