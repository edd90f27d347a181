/**
 * The container image, built and run where no container engine runs and only the npm and Debian registries are
 * reachable: podman with chroot isolation and vfs storage builds the repository's Dockerfile unmodified, on
 * stand-ins for the base images it names (which cannot be pulled here), and the image's root filesystem is run with
 * unshare + chroot (`podman run` cannot set rlimits in such a sandbox).
 *
 * Stand-ins carry the names of the real bases, so the Dockerfile is built as written:
 * - `debian:<suite>-slim`: Debian's minimal base (`mmdebstrap --variant=minbase <suite>` from the mirror apt uses),
 *   which is what the official slim image is made from;
 * - `oven/bun:<version>-slim`: that stand-in plus this machine's `bun` (the same version) at /usr/local/bin/bun and
 *   the user `bun` (uid 1000), as the official image has them; where this machine trusts an extra CA
 *   (NODE_EXTRA_CA_CERTS or SSL_CERT_FILE), the stand-in carries it and names it in NODE_EXTRA_CA_CERTS, or
 *   `bun install` inside the build cannot reach the registry.
 * Stand-ins and podman's storage are kept in a cache directory between runs (mmdebstrap takes minutes);
 * ROOMD_IMAGE_CACHE names it (default ~/.cache/roomd-image-test).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { must, run } from "./shipped.ts";

export const CACHE = process.env.ROOMD_IMAGE_CACHE || join(homedir(), ".cache", "roomd-image-test");
const TOOLS = ["podman", "mmdebstrap", "unshare", "chroot"] as const;
const PACKAGES = ["podman", "buildah", "mmdebstrap", "runc", "util-linux", "coreutils"];

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
  await must(["apt-get", "install", "-y", "-qq", ...PACKAGES]);
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

/**
 * The Debian mirror apt uses here for `suite`: the first source (apt reads only `*.list` and `*.sources`) of type
 * deb that serves the suite itself, else Debian's own.
 */
export function debianMirror(suite: string): string {
  const dir = "/etc/apt/sources.list.d";
  const files = [
    "/etc/apt/sources.list",
    ...listDir(dir)
      .filter((f) => f.endsWith(".list") || f.endsWith(".sources"))
      .map((f) => `${dir}/${f}`),
  ];
  for (const file of files) {
    const text = existsSync(file) ? readFileSync(file, "utf8") : "";
    // deb822 stanzas (Types / URIs / Suites), then one-line entries (deb [options] uri suite components).
    for (const stanza of text.split(/\n\s*\n/)) {
      const field = (name: string) =>
        new RegExp(`^${name}:\\s*(.+)$`, "mi").exec(stanza)?.[1]?.trim().split(/\s+/) ?? [];
      if (field("Types").includes("deb") && field("Suites").includes(suite) && field("URIs")[0]) {
        return field("URIs")[0] as string;
      }
    }
    for (const line of text.split("\n")) {
      const match = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)/.exec(line.trim());
      if (match && match[2] === suite) return match[1] as string;
    }
  }
  return "http://deb.debian.org/debian";
}

function listDir(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir) : [];
}

/** Builds `tag` from a Containerfile text in a scratch context holding `files` (name → source path). */
async function buildFrom(tag: string, containerfile: string, files: Record<string, string>): Promise<void> {
  const context = join(CACHE, `context-${crypto.randomUUID().slice(0, 8)}`);
  mkdirSync(context, { recursive: true });
  try {
    for (const [name, source] of Object.entries(files)) await must(["cp", "--", source, join(context, name)]);
    writeFileSync(join(context, "Containerfile"), containerfile);
    await podman([
      "build",
      "--isolation=chroot",
      "--pull=never",
      "--layers=false",
      "--format",
      "docker",
      "-t",
      tag,
      "-f",
      join(context, "Containerfile"),
      context,
    ]);
  } finally {
    await must(["rm", "-rf", "--", context]);
  }
}

/** debian:<suite>-slim, from mmdebstrap's minimal base (the tarball is kept in the cache). */
async function debianStandIn(name: string, suite: string): Promise<void> {
  const tar = join(CACHE, `debian-${suite}.tar`);
  if (!existsSync(tar)) {
    // mmdebstrap writes a tarball only to a name ending in .tar (anything else is taken for a directory).
    const partial = join(CACHE, `debian-${suite}.partial.tar`);
    await must(["mmdebstrap", "--variant=minbase", suite, partial, debianMirror(suite)]);
    renameSync(partial, tar);
  }
  await buildFrom(
    name,
    [
      "FROM scratch",
      "ADD rootfs.tar /",
      "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      'CMD ["bash"]',
    ].join("\n"),
    { "rootfs.tar": tar },
  );
}

/** oven/bun:<version>-slim: the Debian stand-in, this machine's bun of that version, the user bun, the extra CA. */
async function bunStandIn(name: string, version: string): Promise<void> {
  const bun = Bun.which("bun");
  const have = bun ? (await must([bun, "--version"])).trim() : "none";
  if (!bun || have !== version)
    throw new Error(`${name} needs bun ${version} on this machine to stand in (found ${have})`);
  const debian = qualified("debian:bookworm-slim");
  await ensureStandIn(debian);
  const ca = process.env.NODE_EXTRA_CA_CERTS || process.env.SSL_CERT_FILE;
  const lines = [
    `FROM ${debian}`,
    "COPY bun /usr/local/bin/bun",
    "RUN ln -s /usr/local/bin/bun /usr/local/bin/bunx && groupadd --gid 1000 bun && useradd --uid 1000 --gid bun --create-home --shell /bin/sh bun",
    ...(ca && existsSync(ca)
      ? [
          "COPY extra-ca.crt /usr/local/share/extra-ca.crt",
          "ENV NODE_EXTRA_CA_CERTS=/usr/local/share/extra-ca.crt",
        ]
      : []),
    "WORKDIR /home/bun/app",
    'CMD ["/usr/local/bin/bun"]',
  ];
  await buildFrom(name, lines.join("\n"), { bun, ...(ca && existsSync(ca) ? { "extra-ca.crt": ca } : {}) });
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
