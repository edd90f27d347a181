/**
 * Naming a store in one string (the migration tool's --from and --to): one entry per driver, so a new driver is
 * one more entry here and in openStore — nothing else names drivers.
 *
 *   sqlite:///abs/path/roomd.sqlite   sqlite:./relative/roomd.sqlite
 *   redis://[user:password@]host:port[/db]   rediss://…   redis-cluster://host:port,host:port
 *   upstash+https://<endpoint>?token=<token>   (upstash+http:// for a local endpoint)
 *   postgres://[user[:password]@]host[:port]/database[?sslmode=…]   postgresql://…   (DATABASE_URL's forms)
 */
import type { StoreSettings } from "../config.ts";

export interface StoreSpec {
  /** The URL schemes of this driver (with the colon). */
  schemes: readonly string[];
  /** Settings from a spec of one of those schemes; throws an Error saying what is wrong (never echoing secrets). */
  settings(spec: string): StoreSettings;
  example: string;
}

export const STORE_SPECS: readonly StoreSpec[] = [
  {
    schemes: ["sqlite:"],
    example: "sqlite:///var/lib/roomd/roomd.sqlite",
    settings(spec) {
      let path = spec.slice("sqlite:".length);
      if (path.startsWith("//")) path = path.slice(2);
      if (path === "" || path.includes("?"))
        throw new Error("a sqlite: spec names a file: sqlite:///path/to/file.sqlite");
      return { store: "sqlite", sqlitePath: decodeURIComponent(path) };
    },
  },
  {
    schemes: ["redis:", "rediss:", "redis-cluster:"],
    example: "redis://:password@10.0.0.5:6379 or redis-cluster://10.0.0.5:7000,10.0.0.6:7000",
    settings(spec) {
      const cluster = spec.startsWith("redis-cluster:");
      if (!cluster && !URL.canParse(spec)) throw new Error("not a valid redis:// URL");
      return { store: "redis", redisUrl: spec, redisCluster: cluster };
    },
  },
  {
    schemes: ["upstash+https:", "upstash+http:"],
    example: "upstash+https://eu1-example.upstash.io?token=<REST token>",
    settings(spec) {
      const url = URL.canParse(spec.slice("upstash+".length)) ? new URL(spec.slice("upstash+".length)) : null;
      const token = url?.searchParams.get("token");
      if (!url || !token)
        throw new Error("an upstash+https:// spec needs the REST URL and ?token=<REST token>");
      url.searchParams.delete("token");
      const base = url.toString().replace(/\?$/, "").replace(/\/$/, "");
      return { store: "upstash", upstashUrl: base, upstashToken: token };
    },
  },
  {
    schemes: ["postgres:", "postgresql:"],
    example: "postgres://roomd:password@10.0.0.7:5432/roomd",
    settings(spec) {
      const url = URL.canParse(spec) ? new URL(spec) : null;
      if (!url?.hostname || url.pathname.length <= 1)
        throw new Error(
          "a postgres:// spec names a server and a database: postgres://user:password@host:5432/db",
        );
      // The pool of a roomd process by default (DATABASE_POOL_SIZE); the migration uses a few connections.
      return { store: "postgres", databaseUrl: spec, databasePoolSize: 10 };
    },
  },
];

/** The settings a spec names; throws an Error listing the forms roomd knows when none fits. */
export function settingsFromSpec(spec: string): StoreSettings {
  const entry = STORE_SPECS.find((s) => s.schemes.some((scheme) => spec.startsWith(scheme)));
  if (!entry) {
    throw new Error(
      `unknown store ${JSON.stringify(redactSpec(spec))}; use one of: ${STORE_SPECS.map((s) => s.example).join("; ")}`,
    );
  }
  return entry.settings(spec);
}

/** A spec safe to print: passwords and tokens replaced by "***". */
export function redactSpec(spec: string): string {
  return spec
    .replace(
      /\/\/([^@/]*)@/,
      (_, auth: string) => `//${auth.includes(":") ? `${auth.split(":")[0]}:***` : "***"}@`,
    )
    .replace(/([?&]token=)[^&]*/, "$1***");
}
