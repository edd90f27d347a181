/**
 * The container image, built and run where no container engine runs and only the npm and Debian registries are
 * reachable: podman with chroot isolation and vfs storage builds the repository's Dockerfile unmodified, on
 * stand-ins for the base images it names (which cannot be pulled here), and the image's root filesystem is run with
 * unshare + chroot (`podman run` cannot set rlimits in such a sandbox).
 *
 * Stand-ins carry the names of the real bases, so the Dockerfile is built as written. Each is one layer, imported
 * from a root filesystem made in seconds from this machine's own Debian packages (debian-rootfs.ts), holding what
 * the Dockerfile's stages use:
 * - `debian:<suite>-slim`: a shell, bash, coreutils and the user tools (passwd, login) with what they depend on,
 *   Debian's default users, no documentation (as the slim image);
 * - `oven/bun:<version>-slim`: the same plus this machine's `bun` (the same version) at /usr/local/bin/bun, `bunx`,
 *   the user `bun` (uid 1000) and WORKDIR /home/bun/app, as the official image has them; where this machine trusts
 *   an extra CA (NODE_EXTRA_CA_CERTS or SSL_CERT_FILE), the stand-in carries it and names it in
 *   NODE_EXTRA_CA_CERTS, or `bun install` inside the build cannot reach the registry.
 * The machine must run the Debian release the Dockerfile names. Stand-ins stay in podman's storage, in a cache
 * directory, between runs; ROOMD_IMAGE_CACHE names it (default ~/.cache/roomd-image-test).
 */
import { appendFileSync, existsSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { hostDebianSuite, makeDebianRoot } from "./debian-rootfs.ts";
import { must, run } from "./shipped.ts";

export const CACHE = process.env.ROOMD_IMAGE_CACHE || join(homedir(), ".cache", "roomd-image-test");
const TOOLS = ["podman", "unshare", "chroot", "dpkg-query"] as const;
/** What .ci/run installs: podman and an OCI runtime, without the recommended extras (none is used here). */
const PACKAGES = ["podman", "runc"];

export const missingTools = () => TOOLS.filter((tool) => !Bun.which(tool));

/**
 * Why the image cannot be tested on this machine, or null when it can (the tools are there, or apt-get can install
 * them: ensureTools does, as root).
 */
export function cannotTest(): string | null {
  const missing = missingTools();
  if (missing.length === 0) return null;
  const root = process.getuid?.() === 0;
  if (root && Bun.which("apt-get")) return null;
  return `${missing.join(", ")} missing and cannot be installed here (${root ? "no apt-get" : "not root"}): install ${PACKAGES.join(" ")}`;
}

/** Installs the tools with apt-get when they are missing (as .ci/run does). */
export async function ensureTools(): Promise<void> {
  if (missingTools().length === 0) return;
  await must(["apt-get", "update", "-qq"]);
  await must(["apt-get", "install", "-y", "-qq", "--no-install-recommends", ...PACKAGES]);
  const still = missingTools();
  if (still.length > 0) throw new Error(`still missing after apt-get install: ${still.join(", ")}`);
}

/** podman's global flags: the cache's own storage, vfs (no overlay needed), cgroupfs, no event journal. */
const PODMAN = [
  "podman",
  "--root",
  join(CACHE, "storage"),
  "--runroot",
  join(CACHE, "run"),
  "--storage-driver",
  "vfs",
  "--cgroup-manager",
  "cgroupfs",
  "--events-backend",
  "none",
];

/** podman with the cache's storage; throws with its output when it fails. */
export const podman = (args: string[]): Promise<string> => must([...PODMAN, ...args]);

/** The fully qualified name podman gives a Dockerfile's image reference (docker.io, library/ for single names). */
export function qualified(reference: string): string {
  const first = reference.split("/")[0] as string;
  const hasRegistry =
    reference.includes("/") && (first.includes(".") || first.includes(":") || first === "localhost");
  if (hasRegistry) return reference;
  return reference.includes("/") ? `docker.io/${reference}` : `docker.io/library/${reference}`;
}

/** The base images a Dockerfile's FROM lines name (stages it builds itself are left out). */
export function dockerfileBases(dockerfile: string): string[] {
  const stages = new Set<string>();
  const bases: string[] = [];
  for (const line of dockerfile.split("\n")) {
    const match = /^\s*FROM\s+(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (!match) continue;
    const image = match[1] as string;
    if (!stages.has(image.toLowerCase()) && !bases.includes(image)) bases.push(image);
    if (match[2]) stages.add(match[2].toLowerCase());
  }
  return bases;
}

const exists = async (image: string) => (await run([...PODMAN, "image", "exists", image])).code === 0;

/** What a slim Debian base is asked to hold: the shell and tools a Dockerfile's RUN lines use. */
const SLIM = ["base-files", "base-passwd", "dash", "bash", "coreutils", "passwd", "login", "mawk"];
const PATH = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** Imports the directory `root` as the image `name`, one layer, with `changes` (Dockerfile instructions). */
async function importRoot(root: string, name: string, changes: string[]): Promise<void> {
  const tar = `${root}.tar`;
  await must(["tar", "-C", root, "--xattrs", "-cf", tar, "."]);
  await podman(["import", ...changes.flatMap((change) => ["--change", change]), tar, name]);
  await must(["rm", "-f", "--", tar]);
}

/** Runs `work` in a fresh scratch directory of the cache, removed afterwards. */
async function scratch<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = join(CACHE, `scratch-${crypto.randomUUID().slice(0, 8)}`);
  mkdirSync(dir, { recursive: true });
  try {
    return await work(dir);
  } finally {
    await must(["rm", "-rf", "--", dir]);
  }
}

/** The root filesystem of a slim Debian `suite`, from this machine's packages (which must be that release). */
async function slimRoot(root: string, suite: string): Promise<void> {
  const host = hostDebianSuite();
  if (host !== suite)
    throw new Error(
      `a stand-in for debian:${suite}-slim is made from this machine's packages, but it runs ${host ?? "no Debian"}`,
    );
  await makeDebianRoot(root, SLIM);
}

/** debian:<suite>-slim. */
async function debianStandIn(name: string, suite: string): Promise<void> {
  await scratch(async (dir) => {
    const root = join(dir, "root");
    await slimRoot(root, suite);
    await importRoot(root, name, [`ENV ${PATH}`, 'CMD ["bash"]']);
  });
}

/** oven/bun:<version>-slim: slim Debian bookworm, this machine's bun of that version, the user bun, the extra CA. */
async function bunStandIn(name: string, version: string): Promise<void> {
  const bun = Bun.which("bun");
  const have = bun ? (await must([bun, "--version"])).trim() : "none";
  if (!bun || have !== version)
    throw new Error(`${name} needs bun ${version} on this machine to stand in (found ${have})`);
  const ca = [process.env.NODE_EXTRA_CA_CERTS, process.env.SSL_CERT_FILE].find(
    (file) => file && existsSync(file),
  );
  await scratch(async (dir) => {
    const root = join(dir, "root");
    await slimRoot(root, "bookworm");
    await must(["install", "-D", "-m", "755", bun, join(root, "usr/local/bin/bun")]);
    await must(["ln", "-s", "bun", join(root, "usr/local/bin/bunx")]);
    appendFileSync(join(root, "etc/passwd"), "bun:x:1000:1000::/home/bun:/bin/sh\n");
    appendFileSync(join(root, "etc/shadow"), "bun:!:19000::::::\n");
    appendFileSync(join(root, "etc/group"), "bun:x:1000:\n");
    appendFileSync(join(root, "etc/gshadow"), "bun:!::\n");
    mkdirSync(join(root, "home/bun/app"), { recursive: true });
    await must(["chown", "-R", "1000:1000", join(root, "home/bun")]);
    if (ca) await must(["install", "-D", "-m", "644", ca, join(root, "usr/local/share/extra-ca.crt")]);
    await importRoot(root, name, [
      `ENV ${PATH}`,
      ...(ca ? ["ENV NODE_EXTRA_CA_CERTS=/usr/local/share/extra-ca.crt"] : []),
      "WORKDIR /home/bun/app",
      'CMD ["/usr/local/bin/bun"]',
    ]);
  });
}

/** Makes the stand-in for a base image the Dockerfile names, unless the storage already holds that name. */
export async function ensureStandIn(reference: string): Promise<"cached" | "made"> {
  const name = qualified(reference);
  if (await exists(name)) return "cached";
  const debian = /^docker\.io\/library\/debian:([a-z]+)-slim$/.exec(name);
  const bun = /^docker\.io\/oven\/bun:(\d+\.\d+\.\d+)-slim$/.exec(name);
  if (debian) await debianStandIn(name, debian[1] as string);
  else if (bun) await bunStandIn(name, bun[1] as string);
  else
    throw new Error(
      `no stand-in is known for the base image ${reference}: teach test/support/image.ts to make one`,
    );
  return "made";
}
