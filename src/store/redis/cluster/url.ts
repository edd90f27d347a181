/**
 * The seed list of a cluster URL: `redis-cluster://[user:password@]host:port[,host:port…]`, or an ordinary
 * `redis://` / `rediss://` URL naming one seed (REDIS_CLUSTER=true). The seeds only bootstrap: the client asks
 * them for the slot map and then talks to whichever nodes the map names, with the same credentials and TLS.
 */

/** Where to start and how to talk to every node. */
export interface ClusterSeeds {
  /** "host:port" of each seed, in the order given. */
  seeds: string[];
  username?: string;
  password?: string;
  tls: boolean;
}

const SCHEME = /^(redis-cluster|redis|rediss):\/\/(.*)$/;
const ADDRESS = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+):(\d{1,5})$/;

/** Parses a cluster URL; throws naming what is wrong (config validation has already run, so this is a guard). */
export function parseClusterUrl(url: string): ClusterSeeds {
  const match = SCHEME.exec(url.trim());
  if (!match) throw new Error("a Redis Cluster URL must start with redis-cluster://, redis:// or rediss://");
  const [, scheme, rest = ""] = match;
  const at = rest.lastIndexOf("@");
  const auth = at === -1 ? "" : rest.slice(0, at);
  const hosts = (at === -1 ? rest : rest.slice(at + 1)).replace(/\/\d*$/, "");
  const seeds = hosts.split(",").map((h) => h.trim());
  if (seeds.length === 0 || !seeds.every((s) => ADDRESS.test(s))) {
    throw new Error("a Redis Cluster URL needs host:port seeds separated by commas");
  }
  const colon = auth.indexOf(":");
  const decode = (s: string) => (s === "" ? undefined : decodeURIComponent(s));
  return {
    seeds,
    username: colon === -1 ? undefined : decode(auth.slice(0, colon)),
    password: decode(colon === -1 ? auth : auth.slice(colon + 1)),
    tls: scheme === "rediss",
  };
}

/** The redis:// URL of one node (Bun's RedisClient takes the credentials from it). */
export function nodeUrl(address: string, seeds: ClusterSeeds): string {
  const user = seeds.username ? encodeURIComponent(seeds.username) : "";
  const auth = seeds.password !== undefined ? `${user}:${encodeURIComponent(seeds.password)}@` : "";
  return `${seeds.tls ? "rediss" : "redis"}://${auth}${address}`;
}
