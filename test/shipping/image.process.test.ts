/**
 * The container image, built from the repository's Dockerfile as it is and run as a user would run it: it answers
 * the probes, its HEALTHCHECK command passes, its first run writes the operator key under /data and nowhere else,
 * an MCP call and a room's page work, and it runs as an unprivileged user. Also what it holds: the roomd executable,
 * no Bun, no sources, no node_modules. It starts podman, chroot and the server in the image, so it lives in the
 * process tier; see test/support/image.ts for how it builds and runs without a container engine (about a minute and
 * a half from an empty cache on 2 cores, the base stand-ins included).
 *
 * It is skipped, saying why, only when the tools are missing and cannot be installed (not root, no apt-get); in CI
 * (CI=true) it never skips.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Subprocess, spawn } from "bun";
import {
  CACHE,
  cannotTest,
  dockerfileBases,
  ensureStandIn,
  ensureTools,
  podman,
  qualified,
} from "../support/image.ts";
import { refuseWhileRegistering, waitUntilReady } from "../support/processes.ts";
import { freePort } from "../support/redis-server.ts";
import { checkServes, printedKey, run } from "../support/shipped.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
const TAG = `localhost/roomd-test:${process.pid}`;
const MINUTES = 60_000;

const reason = cannotTest();
if (reason && process.env.CI) throw new Error(`the image test must run in CI: ${reason}`);
if (reason) console.warn(`test/shipping/image.process.test.ts skipped: ${reason}`);

/** The one child process of `pid` (read from /proc: no procps needed). */
function childOf(pid: number): number {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (new RegExp(`^PPid:\\s+${pid}$`, "m").test(readFileSync(`/proc/${entry}/status`, "utf8")))
        return Number(entry);
    } catch {
      // The process ended while the list was read.
    }
  }
  throw new Error(`no child of ${pid}`);
}

interface ImageConfig {
  User?: string;
  Env?: string[];
  WorkingDir?: string;
  Cmd?: string[];
  Entrypoint?: string[] | null;
}

describe.skipIf(reason !== null)("the container image", () => {
  const timings: Record<string, number> = {};
  let config: ImageConfig;
  let healthcheck: string[];
  let container = "";
  let root = "";
  let proc: Subprocess<"ignore", "pipe", "pipe"> | undefined;
  let output = "";
  let url = "";
  let env: string[] = [];
  let uid = 0;
  let gid = 0;
  let serverPid = 0;

  const timed = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await work();
    } finally {
      timings[name] = Math.round((performance.now() - started) / 100) / 10;
    }
  };

  /** `command` in the image's root as its user, with the image's environment: the way `podman run` would. */
  const inImage = (command: string) => [
    "unshare",
    "--mount",
    "--pid",
    "--fork",
    "--kill-child=SIGTERM",
    `--mount-proc=${root}/proc`,
    "chroot",
    `--userspec=${uid}:${gid}`,
    root,
    "env",
    "-i",
    ...env,
    "sh",
    "-c",
    `cd '${config.WorkingDir || "/"}' && exec ${command}`,
  ];

  beforeAll(async () => {
    await ensureTools();
  }, 10 * MINUTES);

  /**
   * unshare ignores SIGTERM while it waits for its child: the server, the first process of its namespace, is sent
   * SIGTERM itself (a namespace's first process gets the signals it handles), as `docker stop` would.
   */
  const stopServer = async () => {
    if (!proc || proc.exitCode !== null) return;
    if (serverPid) process.kill(serverPid, "SIGTERM");
    else proc.kill("SIGKILL");
    await proc.exited;
  };

  afterAll(async () => {
    await stopServer();
    if (container) {
      await podman(["umount", container]).catch(() => {});
      await podman(["rm", "--force", container]).catch(() => {});
    }
    await podman(["rmi", "--force", TAG]).catch(() => {});
    // vfs stores every layer whole: what the build left untagged would fill the disk run after run.
    await podman(["image", "prune", "--force"]).catch(() => {});
    console.log(`image timings (s): ${JSON.stringify(timings)}; cache: ${CACHE}`);
    // Removing whole-filesystem layers from vfs storage takes a while.
  }, 10 * MINUTES);

  test(
    "the unmodified Dockerfile builds on stand-ins of its bases",
    async () => {
      const dockerfile = readFileSync(join(ROOT, "Dockerfile"), "utf8");
      const bases = dockerfileBases(dockerfile);
      expect(bases.map(qualified)).toEqual([
        "docker.io/oven/bun:1.4.5-slim",
        "docker.io/library/debian:bookworm-slim",
      ]);
      for (const base of bases) {
        const made = await timed(`stand-in ${base}`, () => ensureStandIn(base));
        console.log(`stand-in ${base}: ${made}`);
      }
      await timed("docker build", () =>
        podman([
          "build",
          "--isolation=chroot",
          "--pull=never",
          // No intermediate layers: on vfs each is a whole copy of the filesystem (minutes), and nothing reuses them.
          "--layers=false",
          "--format",
          "docker",
          "-t",
          TAG,
          "-f",
          join(ROOT, "Dockerfile"),
          ROOT,
        ]),
      );
      const [inspected] = JSON.parse(await podman(["image", "inspect", TAG])) as [
        { Config: ImageConfig; Size: number; Healthcheck?: { Test?: string[] } },
      ];
      config = inspected.Config;
      const test = inspected.Healthcheck?.Test ?? [];
      expect(test[0]).toBe("CMD");
      healthcheck = test.slice(1);
      // The last stage's base, which the image starts from: what the Dockerfile adds is the rest.
      const [base] = JSON.parse(await podman(["image", "inspect", qualified(bases.at(-1) as string)])) as [
        { Size: number },
      ];
      const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
      console.log(
        `image size: ${mib(inspected.Size)} (${inspected.Size} bytes): the stand-in base ${mib(base.Size)}, ` +
          `the Dockerfile's layers ${mib(inspected.Size - base.Size)}`,
      );
      expect(config.User).toBe("roomd");
      expect(config.Cmd).toEqual(["roomd"]);
      expect(config.Env).toContain("HOST=0.0.0.0");
    },
    10 * MINUTES,
  );

  test(
    "it starts as its unprivileged user and answers the probes, MCP and a room's page",
    async () => {
      expect(config).toBeDefined();
      refuseWhileRegistering("roomd in the image");
      container = (await podman(["create", TAG])).trim();
      root = (await podman(["mount", container])).trim();
      const passwd = readFileSync(join(root, "etc/passwd"), "utf8");
      const entry = passwd.split("\n").find((line) => line.startsWith(`${config.User}:`));
      expect(entry).toBeDefined();
      [uid, gid] = (entry as string).split(":").slice(2, 4).map(Number) as [number, number];
      expect(uid).not.toBe(0);

      // What it holds: the server's executable, no Bun, no sources, no dependencies.
      expect(readdirSync(join(root, "usr/local/bin"))).toEqual(["roomd"]);
      for (const absent of ["src", "app", "node_modules", "usr/local/bin/bun", "root/.bun"]) {
        expect(existsSync(join(root, absent))).toBe(false);
      }

      const port = await freePort();
      env = (config.Env ?? []).map((v) => (v.startsWith("PORT=") ? `PORT=${port}` : v));
      url = `http://127.0.0.1:${port}`;
      proc = spawn(inImage((config.Cmd ?? []).join(" ")), {
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      const drain = async (stream: ReadableStream<Uint8Array>) => {
        for await (const chunk of stream) output += new TextDecoder().decode(chunk);
      };
      void drain(proc.stdout);
      void drain(proc.stderr);
      await waitUntilReady(`roomd in the image on ${url}`, async () => (await fetch(`${url}/livez`)).ok, {
        timeoutMs: 30_000,
        exited: () => proc?.exitCode ?? null,
        describeLast: () => output,
      });

      // The server is the namespace's first process, the child of unshare: its user is the image's.
      serverPid = childOf(proc.pid);
      const status = readFileSync(`/proc/${serverPid}/status`, "utf8");
      expect(/^Uid:\s+(\d+)/m.exec(status)?.[1]).toBe(String(uid));

      const key = printedKey(output);
      expect(output).toContain("/data/operator.key");
      await checkServes(url, key);

      const check = await run(inImage(healthcheck.join(" ")));
      expect({ code: check.code, stderr: check.stderr }).toEqual({ code: 0, stderr: "" });
    },
    5 * MINUTES,
  );

  test(
    "its first run wrote under /data and nowhere else",
    async () => {
      expect(proc).toBeDefined();
      await stopServer();
      const changes = (await podman(["diff", "--format", "json", container])).trim();
      const diff = JSON.parse(changes || "{}") as {
        added?: string[];
        changed?: string[];
        deleted?: string[];
      };
      const touched = [...(diff.added ?? []), ...(diff.changed ?? []), ...(diff.deleted ?? [])];
      expect(touched).toContain("/data/operator.key");
      expect(touched.filter((path) => path !== "/data" && !path.startsWith("/data/"))).toEqual([]);
    },
    2 * MINUTES,
  );
});
