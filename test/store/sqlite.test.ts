import { Database } from "bun:sqlite";
/** The conformance suite on a SQLite file in a fresh temp dir; the second instance is a second Database handle. */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openWith } from "../support/stores.ts";
import { type OpenOptions, runConformance } from "./conformance.ts";

const dir = mkdtempSync(join(tmpdir(), "roomd-conformance-"));
const path = join(dir, "roomd.sqlite");
const open = (now: () => number, options?: OpenOptions) =>
  openWith({ store: "sqlite", sqlitePath: path }, { now, ...options });

runConformance("sqlite", {
  driver: "sqlite",
  open,
  openSecond: open,
  lacks: { outage: "embedded file in this process: there is no server to become unreachable" },
  cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  corruptTask: async (roomId, taskId) => {
    const db = new Database(path);
    try {
      db.run("UPDATE tasks SET json = ? WHERE room_id = ? AND id = ?", ['{"id": "broken', roomId, taskId]);
    } finally {
      db.close();
    }
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
      const procs = [0, 1, 2, 3].map((p) =>
        Bun.spawn(["bun", "-e", worker, "--", file, scope.roomId, scope.teamId, `p${p}`], {
          stdout: "pipe",
          stderr: "pipe",
        }),
      );
      const outputs = await Promise.all(
        procs.map(async (proc) => {
          const [out, err, code] = await Promise.all([
            new Response(proc.stdout).text(),
            new Response(proc.stderr).text(),
            proc.exited,
          ]);
          expect({ code, err }).toEqual({ code: 0, err: "" });
          return out;
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
