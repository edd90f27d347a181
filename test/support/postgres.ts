/**
 * A real PostgreSQL server for tests: `initdb` into a temporary directory and `postgres` on a free loopback port,
 * once per test process, stopped when the process exits. Debian's `postgresql` package provides the binaries
 * (under /usr/lib/postgresql/<version>/bin). PostgreSQL refuses to run as root, so as root the data directory is
 * handed to the unprivileged `postgres` user (or `nobody`) and the server runs as that user. `fsync=off` saves
 * the disk (a killed server loses nothing the OS already has); commits stay synchronous, so a crash test still
 * proves that what was acknowledged survives.
 */
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { SQL, spawnSync } from "bun";
import { openPg } from "../../src/store/postgres/db.ts";
import { migrate, SCHEMA_VERSION } from "../../src/store/postgres/schema.ts";
import {
  startWatched,
  stopWithTestProcess,
  type WatchedProcess,
  waitForPort,
  waitUntilReady,
} from "./processes.ts";
import { freePort } from "./redis-server.ts";
import { attachedServers, refusedOnShared } from "./shared-servers.ts";

export interface PostgresServer {
  /** postgres://roomd@127.0.0.1:<port>/postgres — trust authentication, loopback only. */
  url: string;
  port: number;
  /**
   * A URL for a fresh database on this server (tests isolate by database when they must): empty, or with
   * `migrated` a copy of the run's template that roomd's migrations already brought to the current schema.
   */
  createDatabase(options?: { migrated?: boolean }): Promise<string>;
  stop(): Promise<void>;
  /** Stops the server abruptly (SIGKILL of the postmaster, as a crash would) and starts it again. */
  restart(options?: { downMs?: number }): Promise<void>;
  /** Stops it (fast shutdown); start() brings it back on the same port and data. */
  halt(): Promise<void>;
  start(): Promise<void>;
}

/** The directory holding initdb and postgres: on PATH, else the newest Debian version directory. */
export function postgresBin(): string | undefined {
  const onPath = Bun.which("postgres") ?? Bun.which("initdb");
  if (onPath) return join(onPath, "..");
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "postgres")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], "bin") : undefined;
}

/** The user the server runs as: ourselves, or an unprivileged account when we are root. */
function serverUser(): { name: string; uid: number; gid: number } | null {
  if (userInfo().uid !== 0) return null;
  for (const name of ["postgres", "nobody"]) {
    const out = spawnSync(["id", "-u", name]);
    const gid = spawnSync(["id", "-g", name]);
    if (out.exitCode === 0) {
      return { name, uid: Number(out.stdout.toString().trim()), gid: Number(gid.stdout.toString().trim()) };
    }
  }
  throw new Error("running as root and no unprivileged user (postgres, nobody) to run PostgreSQL as");
}

/** Runs a command as the server user (through `su` when we are root). */
function asServerUser(user: ReturnType<typeof serverUser>, argv: string[]): string[] {
  if (!user) return argv;
  const quoted = argv.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  return ["su", user.name, "-s", "/bin/sh", "-c", quoted];
}

/** Server settings beyond the defaults below, e.g. shared_preload_libraries for a bench's statement counts. */
export interface PostgresOptions {
  settings?: Record<string, string>;
}

export async function startPostgres(options: PostgresOptions = {}): Promise<PostgresServer> {
  const bin = postgresBin();
  if (!bin) {
    throw new Error("PostgreSQL is not installed: the Postgres tests need it (apt-get install postgresql)");
  }
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), "roomd-pg-"));
  const data = join(dir, "data");
  if (user) {
    chownSync(dir, user.uid, user.gid);
    chmodSync(dir, 0o700);
  }
  const init = spawnSync(
    asServerUser(user, [
      join(bin, "initdb"),
      "-D",
      data,
      "-U",
      "roomd",
      "--auth=trust",
      "-E",
      "UTF8",
      "--locale=C",
      "--no-sync",
    ]),
    { stdout: "pipe", stderr: "pipe" },
  );
  if (init.exitCode !== 0) throw new Error(`initdb failed: ${init.stderr.toString()}`);
  const port = await freePort();
  let watched: WatchedProcess | undefined;

  // As with redis-server, a small shell watches this test process and kills the server once it is gone.
  const launch = async () => {
    const server = asServerUser(user, [
      join(bin, "postgres"),
      "-D",
      data,
      "-p",
      String(port),
      "-k",
      dir,
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "fsync=off",
      "-c",
      "full_page_writes=off",
      "-c",
      "max_connections=300",
      "-c",
      "shared_buffers=32MB",
      ...Object.entries(options.settings ?? {}).flatMap(([name, value]) => ["-c", `${name}=${value}`]),
    ])
      .map((a) => `'${a.replaceAll("'", "'\\''")}'`)
      .join(" ");
    // The postmaster is not su's child but its shell's (su → sh → postgres), so killing su's children would leave it
    // running for ever: once the test process is gone, the watchdog stops it by the pid in its pid file (fast
    // shutdown, then SIGKILL), and removes the directory. While the test process lives (stop(), restart()), the test
    // stops the server itself and the watchdog only follows.
    const watchdog = [
      `${server} >'${dir}/log' 2>&1 &`,
      "r=$!; echo $r",
      `while kill -0 ${process.pid} 2>/dev/null && kill -0 $r 2>/dev/null; do sleep 0.5; done`,
      `if ! kill -0 ${process.pid} 2>/dev/null; then`,
      `  m=$(head -n 1 '${data}/postmaster.pid' 2>/dev/null)`,
      '  if [ -n "$m" ] && kill -0 "$m" 2>/dev/null; then',
      '    kill -INT "$m"; i=0',
      '    while kill -0 "$m" 2>/dev/null && [ $i -lt 40 ]; do sleep 0.25; i=$((i + 1)); done',
      '    kill -9 "$m" 2>/dev/null',
      "  fi",
      "fi",
      "pkill -9 -P $r 2>/dev/null; kill -9 $r 2>/dev/null",
      `if ! kill -0 ${process.pid} 2>/dev/null; then rm -rf '${dir}'; fi`,
    ].join("\n");
    watched = await startWatched("PostgreSQL", watchdog);
    await waitForPort(port, "PostgreSQL", 60_000);
    // The port opens before the server accepts queries: wait until one answers.
    await waitUntilReady(
      `PostgreSQL on 127.0.0.1:${port} answering SELECT 1`,
      async () => {
        const sql = new SQL({ url: `postgres://roomd@127.0.0.1:${port}/postgres`, max: 1 });
        try {
          await sql`SELECT 1`;
          return true;
        } finally {
          await sql.close();
        }
      },
      { timeoutMs: 60_000, describeLast: () => readLog(dir) },
    );
  };
  /** The postmaster's pid (the child of su when we are root), from its pid file. */
  const postmasterPid = async (): Promise<number | undefined> => {
    const file = Bun.file(join(data, "postmaster.pid"));
    if (!(await file.exists())) return undefined;
    const first = Number((await file.text()).split("\n")[0]);
    return Number.isInteger(first) && first > 0 ? first : undefined;
  };
  const kill = async (signal: "SIGKILL" | "SIGINT") => {
    if (!watched) return;
    const { proc, pid } = watched;
    const master = await postmasterPid();
    if (master) {
      try {
        process.kill(master, signal);
      } catch {}
    }
    if (signal === "SIGKILL") {
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
    await proc.exited;
    // After a SIGKILL the backends outlive the postmaster for a moment; a new postmaster waits for them.
    for (let i = 0; i < 100 && (await postmasterPid()) && signal === "SIGINT"; i++) await Bun.sleep(50);
  };
  await launch();
  const url = `postgres://roomd@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    createDatabase: databaseMaker(url, port),
    async stop() {
      await kill("SIGINT");
      rmSync(dir, { recursive: true, force: true });
    },
    async halt() {
      await kill("SIGINT");
    },
    async start() {
      await launch();
    },
    async restart(options = {}) {
      await kill("SIGKILL");
      // Orphaned backends of a killed postmaster hold the shared memory; the new one starts once they are gone.
      spawnSync(["pkill", "-9", "-f", `postgres.*${data}`]);
      for (let i = 0; i < 100; i++) {
        const running = spawnSync(["pgrep", "-f", `-D ${data}`]).exitCode === 0;
        if (!running) break;
        await Bun.sleep(50);
      }
      if (options.downMs) await Bun.sleep(options.downMs);
      await launch();
    },
  };
}

/**
 * Makes fresh databases on the server at `url`. Names are unique across the processes of a run sharing the server
 * (a pid may come back later in a long run, so a random part too). A migrated one is copied from the server's
 * template (schemaTemplate): copying a migrated database costs a fraction of migrating an empty one, and most
 * tests want a store, not a migration (src/store/postgres/core.test.ts tests migrations on empty databases).
 */
function databaseMaker(url: string, port: number): (options?: { migrated?: boolean }) => Promise<string> {
  const run = crypto.randomUUID().slice(0, 8);
  let databases = 0;
  let template: Promise<string> | undefined;
  return async (options = {}) => {
    const name = `roomd_${process.pid}_${run}_${++databases}`;
    if (options.migrated) template ??= schemaTemplate(url, port);
    const from = template && options.migrated ? ` TEMPLATE ${await template}` : "";
    const admin = new SQL({ url, max: 1 });
    try {
      await admin.unsafe(`CREATE DATABASE ${name}${from}`);
    } finally {
      await admin.close();
    }
    return `postgres://roomd@127.0.0.1:${port}/${name}`;
  };
}

/** The advisory lock under which the processes of a run sharing a server build its template (once). */
const TEMPLATE_LOCK = 7_245_001;

/**
 * The name of a database on the server holding the current schema and nothing else, made by the first process of
 * the run to ask (under an advisory lock, so processes asking at once wait for it) with roomd's own migrations.
 * It is built under another name and renamed once complete, so a template that exists is whole; no connection to
 * it stays open, as PostgreSQL copies only a database nobody is connected to.
 */
async function schemaTemplate(url: string, port: number): Promise<string> {
  const name = `roomd_template_v${SCHEMA_VERSION}`;
  const building = `${name}_building`;
  const admin = new SQL({ url, max: 1 });
  try {
    await admin`SELECT pg_advisory_lock(${TEMPLATE_LOCK})`;
    const [found] = await admin`SELECT 1 AS one FROM pg_database WHERE datname = ${name}`;
    if (!found) {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${building}`);
      await admin.unsafe(`CREATE DATABASE ${building}`);
      const pg = openPg({ url: `postgres://roomd@127.0.0.1:${port}/${building}`, max: 1, timeoutMs: 60_000 });
      try {
        await migrate(pg);
      } finally {
        await pg.close();
      }
      await admin.unsafe(`ALTER DATABASE ${building} RENAME TO ${name}`);
    }
    return name;
  } finally {
    await admin`SELECT pg_advisory_unlock(${TEMPLATE_LOCK})`.catch(() => {});
    await admin.close();
  }
}

let shared: Promise<PostgresServer> | undefined;
/**
 * One PostgreSQL server for every test file of this process, stopped after the last file; under `bun run test`, the
 * run's own (test/support/shared-servers.ts).
 */
export function sharedPostgres(): Promise<PostgresServer> {
  const given = attachedServers()?.postgres;
  if (!shared && given) {
    const refuse = (what: string) => refusedOnShared("PostgreSQL", what);
    shared = Promise.resolve({
      ...given,
      createDatabase: databaseMaker(given.url, given.port),
      stop: async () => {},
      restart: refuse("restarted"),
      halt: refuse("halted"),
      start: refuse("started again"),
    });
  }
  if (!shared) {
    const started = startPostgres();
    shared = started;
    // Forgotten once stopped: a worker that keeps its modules across files (`--no-isolate`) starts another.
    stopWithTestProcess(async () => {
      shared = undefined;
      await (await started).stop();
    });
  }
  return shared;
}

/** The server's log so far, for an error about a start that did not finish. */
function readLog(dir: string): string {
  try {
    return readFileSync(join(dir, "log"), "utf8");
  } catch {
    return "";
  }
}
