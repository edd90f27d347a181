/**
 * The conformance suite on a SQLite file in a fresh temp dir (sqliteE2e); the second instance is a second Database
 * handle.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { runToEnd } from "../support/run.ts";
import { openWith, sqliteE2e } from "../support/stores.ts";
import { backingFactory, runConformance } from "./conformance.ts";

const backing = sqliteE2e();

runConformance("sqlite", {
  ...backingFactory("sqlite", backing),
  lacks: { outage: "embedded file in this process: there is no server to become unreachable" },
  cleanup: async () => {
    const settings = await backing.settings();
    if (settings.store === "sqlite") rmSync(dirname(settings.sqlitePath), { recursive: true, force: true });
  },
});

/**
 * In one process bun:sqlite runs each transaction to completion, so the suite's second handle never contends for
 * the write lock. Several processes on one file do: this checks that they wait for it instead of failing.
 */
describe("sqlite driver: several processes on one file", () => {
  const worker = `
    const { createSqliteStore } = await import(${JSON.stringify(resolve(import.meta.dir, "../../src/store/sqlite/index.ts"))});
    const [path, roomId, teamId, name] = process.argv.slice(-4);
    const store = createSqliteStore({ path });
    const scope = { roomId, teamId };
    for (let i = 0; i < 100; i++) {
      await store.addTask(scope, { title: name + "-" + i, description: "", depends_on: [], priority: null });
      await store.consumeEvents(scope, "reader", 3).then((b) => console.log(b.events.map((e) => e.seq).join("\\n")));
    }
    await store.close();
  `;

  test("4 processes adding 100 tasks each and sharing one cursor: 400 tasks, 400 events, each consumed once", async () => {
    const scope = { roomId: `r-${crypto.randomUUID().slice(0, 8)}`, teamId: "t-procs" };
    const procDir = mkdtempSync(join(tmpdir(), "roomd-procs-"));
    const file = join(procDir, "roomd.sqlite");
    try {
      const outputs = await Promise.all(
        [0, 1, 2, 3].map(async (p) => {
          const args = ["--", file, scope.roomId, scope.teamId, `p${p}`];
          const { code, stdout, stderr: err } = await runToEnd(["bun", "-e", worker, ...args]);
          expect({ code, err }).toEqual({ code: 0, err: "" });
          return stdout;
        }),
      );
      const store = await openWith({ store: "sqlite", sqlitePath: file });
      const plan = await store.readPlan(scope);
      expect(plan.tasks).toHaveLength(400);
      const rest = [];
      for (let b = await store.consumeEvents(scope, "reader", 100); b.count > 0; ) {
        rest.push(...b.events.map((e) => e.seq));
        b = await store.consumeEvents(scope, "reader", 100);
      }
      await store.close();
      const delivered = [...outputs.join("\n").split("\n").filter(Boolean).map(Number), ...rest];
      expect(delivered.sort((a, b) => a - b)).toEqual(Array.from({ length: 400 }, (_, i) => i + 1));
    } finally {
      rmSync(procDir, { recursive: true, force: true });
    }
  });
});
