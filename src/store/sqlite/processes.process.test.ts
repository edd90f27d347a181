/**
 * Several processes on one file, as when several roomd instances share a volume: write-lock waits, bounded
 * failure when the lock never comes, exactly-once delivery across processes.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { holdWriteLock } from "../../../test/support/sqlite-lock.ts";
import { createSqliteStore } from "./index.ts";
import { BUSY_TIMEOUT_MS } from "./schema.ts";

const dir = mkdtempSync(join(tmpdir(), "roomd-sqlite-proc-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const indexPath = join(import.meta.dir, "index.ts");
const scope = { roomId: "room-p", teamId: "team-p" };

/** Starts a process that takes the file's write lock, says "locked", holds it for holdMs, then commits. */
describe("sqlite store: several processes", () => {
  test("a write waits for another process's write lock instead of failing", async () => {
    const path = join(dir, "wait.sqlite");
    const store = createSqliteStore({ path });
    try {
      await store.heartbeat(scope, "a");
      const holder = await holdWriteLock(path, 300);
      const started = performance.now();
      const task = await store.addTask(scope, {
        title: "t",
        description: "",
        depends_on: [],
        priority: null,
      });
      expect(task.id).toBe("task-1");
      expect(performance.now() - started).toBeGreaterThan(150);
      expect(await holder.exited).toBe(0);
    } finally {
      await store.close();
    }
  });

  test(
    "a write lock that is never freed gives store_unavailable after the busy timeout, not a hang",
    async () => {
      const path = join(dir, "busy.sqlite");
      const store = createSqliteStore({ path });
      try {
        await store.createRoom(scope);
        await store.heartbeat(scope, "a");
        const holder = await holdWriteLock(path, BUSY_TIMEOUT_MS + 2000);
        const started = performance.now();
        await expect(store.heartbeat(scope, "a")).rejects.toMatchObject({ kind: "store_unavailable" });
        expect(performance.now() - started).toBeLessThan(BUSY_TIMEOUT_MS + 1500);
        // Reads go on from the WAL snapshot while a writer holds the lock.
        expect(await store.getPresence(scope)).toHaveLength(1);
        await holder.exited;
      } finally {
        await store.close();
      }
    },
    BUSY_TIMEOUT_MS * 3,
  );

  test("consumers in four processes get every event exactly once", async () => {
    const path = join(dir, "consume.sqlite");
    const total = 400;
    const store = createSqliteStore({ path });
    for (let i = 0; i < total; i++)
      await store.postEvent(scope, { type: "e", from: "p", to: "all", payload: {} });
    await store.close();
    const startAt = Date.now() + 400; // every process starts consuming at once, after its start-up
    const code = `
      const { createSqliteStore } = await import(${JSON.stringify(indexPath)});
      const store = createSqliteStore({ path: ${JSON.stringify(path)} });
      const scope = ${JSON.stringify(scope)};
      Bun.sleepSync(Math.max(0, ${startAt} - Date.now()));
      const seqs = [];
      for (;;) {
        const batch = await store.consumeEvents(scope, "agent", 1 + Math.floor(Math.random() * 3));
        if (batch.count === 0) break;
        seqs.push(...batch.events.map((e) => e.seq));
      }
      await store.close();
      console.log(JSON.stringify(seqs));
    `;
    const procs = Array.from({ length: 4 }, () =>
      Bun.spawn([process.execPath, "-e", code], { stdout: "pipe", stderr: "inherit" }),
    );
    const outputs = await Promise.all(procs.map((p) => new Response(p.stdout).text()));
    const perProcess: number[][] = outputs.map((out) => JSON.parse(out));
    const all = perProcess.flat().sort((a, b) => a - b);
    expect(all).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    for (const seqs of perProcess) expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  });
});
