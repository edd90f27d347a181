/**
 * Docs that stay true: the tool reference is what the catalog renders, every route the app registers is in
 * docs/http.md, every environment variable is documented, and relative links resolve. That nothing cites a document
 * outside the repository, and that cited anchors resolve, is test/citations.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { appDeps, createApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { silentLogger } from "../src/log.ts";
import { BEGIN, END, renderToolReference } from "../src/mcp/reference.ts";
import { ROOMD_EVENT_TYPES } from "../src/protocol/event-types.ts";
import { openWith, sqliteE2e } from "./support/stores.ts";

const ROOT = resolve(import.meta.dir, "..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
const tracked = Bun.spawnSync(["git", "ls-files"], { cwd: ROOT }).stdout.toString().trim().split("\n");

describe("docs", () => {
  test("docs/protocol.md holds exactly the tool reference the catalog renders (run `bun run docs`)", () => {
    const file = read("docs/protocol.md");
    const generated = file.slice(file.indexOf(BEGIN), file.indexOf(END) + END.length);
    expect(generated).toBe(renderToolReference());
  });

  test("the event types agents may not post are exactly those docs/protocol.md lists as roomd's own", () => {
    const file = read("docs/protocol.md");
    const table = file.slice(file.indexOf("### Events roomd appends itself"), file.indexOf("\n## 4."));
    const documented = [...table.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1] as string);
    expect(documented.filter((t) => t !== "broadcast").sort()).toEqual([...ROOMD_EVENT_TYPES].sort());
  });

  test("every route the app registers is in docs/http.md", async () => {
    const store = await openWith(await sqliteE2e().settings());
    try {
      const app = createApp(appDeps(loadConfig({}), store, silentLogger, Date.now));
      const http = read("docs/http.md");
      const missing = app.routes
        .filter((r) => ["GET", "POST", "PUT", "PATCH", "DELETE"].includes(r.method))
        .map((r) => `${r.method} ${r.path}`)
        .filter((route) => !http.includes(`\`${route}\``) && !http.includes(`\`${route}\`,`));
      expect(missing).toEqual([]);
    } finally {
      await store.close();
    }
  });

  test("every environment variable config.ts reads is in .env.example and docs/operations.md", () => {
    const names = [...read("src/config.ts").matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1] as string);
    expect(names.length).toBeGreaterThan(10);
    const example = read(".env.example");
    const operations = read("docs/operations.md");
    expect(names.filter((n) => !example.includes(n))).toEqual([]);
    expect(names.filter((n) => !operations.includes(`\`${n}\``))).toEqual([]);
  });

  test("relative links in markdown files resolve", () => {
    const broken: string[] = [];
    for (const file of tracked.filter((f) => f.endsWith(".md"))) {
      for (const [, target] of read(file).matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        if (!target || /^[a-z]+:/.test(target)) continue;
        if (!existsSync(join(ROOT, dirname(file), target))) broken.push(`${file} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
