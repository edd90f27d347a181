/**
 * The import graph of src/: layers only import downwards (http → mcp → protocol / store contract), only
 * store/index.ts picks a driver, the SQL drivers' shared bodies (store/sql/) depend on no driver, and no module
 * imports itself through a cycle. Checked from the source text, so a violation fails here rather than in a code
 * review.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../src");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return path.endsWith(".ts") && !path.endsWith(".test.ts") ? [path] : [];
  });
}

/** Module → the src modules it imports (type-only imports included: they couple layers too). */
const graph = new Map<string, string[]>();
/** Module → the packages it imports (bare specifiers: "bun", "bun:sqlite", "node:fs", "hono", …). */
const packages = new Map<string, string[]>();
for (const file of files(SRC)) {
  const text = readFileSync(file, "utf8");
  packages.set(
    relative(SRC, file),
    [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+["']([^."'][^"']*)["']/g)].map(
      (m) => m[1] as string,
    ),
  );
  const targets = [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+["'](\.[^"']+)["']/g)].map(
    (m) => relative(SRC, resolve(dirname(file), m[1] as string)),
  );
  graph.set(relative(SRC, file), targets);
}

const layer = (module: string) => module.split("/")[0] as string;

/** Which top-level areas each area may import (besides itself). */
const ALLOWED: Record<string, string[]> = {
  protocol: [],
  store: ["protocol", "config.ts", "files.ts"],
  access: ["protocol", "store", "config.ts", "files.ts"],
  // The join_room prompt gives the same coordination instructions roomd prints at first start (clients.ts).
  mcp: ["protocol", "store", "live", "log.ts", "config.ts", "clients.ts"],
  live: ["protocol", "store", "log.ts", "config.ts", "files.ts"],
  http: ["protocol", "store", "mcp", "access", "live", "moving", "log.ts", "config.ts"],
  // The dashboard's connect panel prints the clients' configuration and the bridge's hooks block (clients.ts, cli/).
  web: ["protocol", "store", "http", "mcp", "live", "access", "log.ts", "config.ts", "clients.ts", "cli"],
  cli: ["protocol", "mcp", "log.ts", "clients.ts", "files.ts"],
  moving: ["protocol", "store", "config.ts", "log.ts", "files.ts"],
  // Tracing's settings (telemetry/settings.ts, zod only) are read with every other variable.
  "config.ts": ["protocol", "store", "telemetry"],
  // Tracing: spans around the MCP path's operations and the store's work; loaded by index.ts only when configured.
  telemetry: ["protocol", "store", "mcp"],
  // roomd's command line (healthcheck, --version): reads the bind address from the configuration.
  "commands.ts": ["config.ts"],
  "log.ts": [],
  // Owner-only files and directories (data directory, database, keys, journals, exports): imports nothing.
  "files.ts": [],
  "clients.ts": ["protocol"],
  "app.ts": ["protocol", "store", "http", "mcp", "access", "live", "web", "log.ts", "config.ts", "telemetry"],
  "index.ts": [
    "protocol",
    "store",
    // The archiver of expired rooms (ARCHIVE_DIR) is started with the server.
    "moving",
    "http",
    "mcp",
    "access",
    "live",
    "web",
    "log.ts",
    "config.ts",
    "app.ts",
    "clients.ts",
    "commands.ts",
    "telemetry",
    // The entry starts the archiver of idle rooms (moving/archive.ts) beside the server and the webhook worker.
    "moving",
  ],
};

describe("the import graph of src/", () => {
  test("every area imports only the areas below it", () => {
    const problems: string[] = [];
    for (const [module, targets] of graph) {
      const from = layer(module);
      const allowed = ALLOWED[from];
      if (!allowed) {
        problems.push(`${module}: area ${from} has no rule in this test`);
        continue;
      }
      for (const target of targets) {
        if (target === "../package.json") continue; // the version, readable from anywhere
        const to = layer(target);
        if (to !== from && !allowed.includes(to)) problems.push(`${module} → ${target}`);
      }
    }
    expect(problems).toEqual([]);
  });

  test("only store/index.ts imports a driver, and store/types.ts imports only types of the protocol", () => {
    const problems: string[] = [];
    for (const [module, targets] of graph) {
      for (const target of targets) {
        const driver = /^store\/(sqlite|redis|postgres)\//.exec(target)?.[1];
        const sameDriver = driver !== undefined && module.startsWith(`store/${driver}/`);
        if (driver && !sameDriver && module !== "store/index.ts") problems.push(`${module} → ${target}`);
      }
    }
    for (const target of graph.get("store/types.ts") ?? []) {
      if (
        !target.startsWith("protocol/") &&
        ![
          "store/access-types.ts",
          "store/people-types.ts",
          "store/move-types.ts",
          "store/session-types.ts",
          "store/oauth-types.ts",
        ].includes(target)
      )
        problems.push(`store/types.ts → ${target}`);
    }
    expect(problems).toEqual([]);
  });

  test("the SQL bodies (store/sql/) import no driver and no client library; each SQL driver only its own", () => {
    // Drivers import store/types.ts (and its type files), protocol/, the shared bodies and their own client library.
    const CLIENT: Record<string, RegExp> = { sqlite: /^bun:sqlite$/, postgres: /^bun$/ };
    const problems: string[] = [];
    for (const [module, targets] of graph) {
      const area = /^store\/(sql|sqlite|postgres)\//.exec(module)?.[1];
      if (!area) continue;
      for (const target of targets) {
        const ok =
          target.startsWith("protocol/") ||
          target.startsWith("store/sql/") ||
          target.startsWith(`store/${area}/`) ||
          /^store\/[a-z-]+\.ts$/.test(target) ||
          // The SQLite file is the driver's own: made owner-only like every file roomd writes.
          (area === "sqlite" && target === "files.ts");
        if (!ok) problems.push(`${module} → ${target}`);
      }
      for (const name of packages.get(module) ?? []) {
        if (name.startsWith("node:")) continue;
        if (area === "sql" || !CLIENT[area]?.test(name)) problems.push(`${module} → ${name}`);
      }
    }
    expect(problems).toEqual([]);
  });

  test("no import cycles", () => {
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const visit = (module: string, path: string[]) => {
      if (state.get(module) === "done") return;
      if (state.get(module) === "open") {
        cycles.push([...path.slice(path.indexOf(module)), module].join(" → "));
        return;
      }
      state.set(module, "open");
      for (const target of graph.get(module) ?? []) visit(target, [...path, module]);
      state.set(module, "done");
    };
    for (const module of graph.keys()) visit(module, []);
    expect(cycles).toEqual([]);
  });
});
