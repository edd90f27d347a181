/**
 * What roomd, roomctl and `bun run migrate` write to disk is their user's alone, whatever the umask they run
 * under: the data directory 0700; the database and its -wal and -shm, the first-run key, the webhook signing key,
 * the migrate journal and an export 0600. Each run as a user would, under `umask 022` and `umask 000`.
 */
import { afterAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runToEnd } from "../support/run.ts";
import { type SpawnedServer, spawnServer } from "../support/server.ts";

const ROOT = resolve(import.meta.dir, "../..");
const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);
/** Every entry of `dir` with its mode, e.g. {"roomd.sqlite": "600"}. */
const modesIn = (dir: string) => Object.fromEntries(readdirSync(dir).map((f) => [f, modeOf(join(dir, f))]));
const allOwnerOnly = (dir: string) => Object.fromEntries(readdirSync(dir).map((f) => [f, "600"]));

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Runs `command` under `umask`, from the checkout, with `env` (and PATH, HOME). */
const underUmask = (umask: string, command: string[], env: Record<string, string> = {}) =>
  runToEnd(["sh", "-c", `umask ${umask} && exec "$@"`, "sh", ...command], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
  });

for (const umask of ["022", "000"]) {
  describe(`files under umask ${umask}`, () => {
    test(`R2-9 roomd's data directory is 0700 and every file in it 0600 (umask ${umask})`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "roomd-modes-"));
      dirs.push(dir);
      const data = join(dir, "data");
      let server: SpawnedServer | undefined;
      try {
        // First run: no keys configured, so roomd also writes its operator key and webhook signing key there. A
        // child process starts with its parent's umask: this one's, set for the spawn.
        const before = process.umask(Number.parseInt(umask, 8));
        try {
          server = await spawnServer({ SQLITE_PATH: join(data, "roomd.sqlite") });
        } finally {
          process.umask(before);
        }
        const key = readFileSync(join(data, "operator.key"), "utf8").trim();
        const made = await fetch(`${server.url}/admin/rooms`, {
          method: "POST",
          headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
          body: JSON.stringify({ roomId: "modes" }),
        });
        expect(made.status).toBe(201);
        expect(modeOf(data)).toBe("700");
        const files = modesIn(data);
        expect(Object.keys(files)).toEqual(
          expect.arrayContaining(["roomd.sqlite", "roomd.sqlite-wal", "roomd.sqlite-shm", "operator.key"]),
        );
        expect(files).toEqual(allOwnerOnly(data));

        // roomctl export --out under the same umask.
        const out = join(dir, "modes.ndjson");
        const exported = await underUmask(
          umask,
          ["bun", "src/cli/index.ts", "export", "modes", "--out", out],
          {
            ROOMD_URL: server.url,
            ROOMD_KEY: key,
          },
        );
        expect({ code: exported.code, err: exported.stderr }).toEqual({
          code: 0,
          err: `exported modes to ${out}\n`,
        });
        expect(modeOf(out)).toBe("600");
      } finally {
        await server?.stop();
      }

      // bun run migrate to a new SQLite file, with its journal, under the same umask.
      const target = join(dir, "moved", "roomd.sqlite");
      const journal = join(dir, "roomd-migrate.journal");
      const migrated = await underUmask(umask, [
        "bun",
        "src/moving/main.ts",
        "--from",
        `sqlite://${join(data, "roomd.sqlite")}`,
        "--to",
        `sqlite://${target}`,
        "--journal",
        journal,
      ]);
      expect({ code: migrated.code, err: migrated.stderr }).toEqual({ code: 0, err: "" });
      expect(modeOf(join(dir, "moved"))).toBe("700");
      expect(modesIn(join(dir, "moved"))).toEqual(allOwnerOnly(join(dir, "moved")));
      // The journal, where it is kept after a finish.
      if (existsSync(journal)) expect(modeOf(journal)).toBe("600");
    });
  });
}

test("R2-9 a data directory roomd did not make keeps its mode, and roomd says how to close it", async () => {
  const dir = mkdtempSync(join(tmpdir(), "roomd-modes-"));
  dirs.push(dir);
  const data = join(dir, "shared");
  mkdirSync(data, { mode: 0o755 });
  chmodSync(data, 0o755);
  const server = await spawnServer({ SQLITE_PATH: join(data, "roomd.sqlite") });
  try {
    expect(modeOf(data)).toBe("755");
    expect(modeOf(join(data, "roomd.sqlite"))).toBe("600");
    expect(server.output()).toContain("the data directory is open to other users");
    expect(server.output()).toContain(`chmod 700 '${data}'`);
  } finally {
    await server.stop();
  }
});
