/**
 * The pages' browser code and style sheet: the TypeScript modules under client/ bundled by Bun.build (one bundle per
 * page, minified, for browsers) and the CSS, each served from `/assets/<content hash>.<js|css>` with a year-long
 * immutable cache (a new build is a new name). From a checkout they are built once per process, on first use
 * (index.ts starts it at start-up), in memory: nothing is written to disk, so `bun install && bun run start` needs no
 * build step. A compiled binary (`bun run build`) carries them already built (prebuilt.ts), since it holds no
 * client sources to build from.
 */
import { join } from "node:path";
import type { Context } from "hono";
import { type BuiltSources, PREBUILT } from "./prebuilt.ts";

const CLIENT = join(import.meta.dir, "client");
/** One bundle per page; each imports what it needs from client/. */
export const ENTRIES = ["login", "room", "dashboard"] as const;
export type Entry = (typeof ENTRIES)[number];

export interface Asset {
  body: Uint8Array;
  type: string;
}

export interface Assets {
  /** `/assets/<hash>.js` of each page's bundle. */
  scripts: Record<Entry, string>;
  /** `/assets/<hash>.css`. */
  style: string;
  files: Map<string, Asset>;
}

const hashName = (body: Uint8Array, ext: string) =>
  `${new Bun.CryptoHasher("sha256").update(body).digest("hex").slice(0, 20)}.${ext}`;

/** Bundles the pages' modules and reads the style sheet: the sources of every asset. */
export async function buildSources(): Promise<BuiltSources> {
  const result = await Bun.build({
    entrypoints: ENTRIES.map((name) => join(CLIENT, `${name}.ts`)),
    target: "browser",
    format: "esm",
    minify: true,
    splitting: false,
    sourcemap: "none",
  });
  if (!result.success) {
    throw new Error(`building the web pages failed: ${result.logs.map((l) => l.message).join("; ")}`);
  }
  const sources: Partial<BuiltSources> = {};
  for (const output of result.outputs) {
    const entry = ENTRIES.find((name) => output.path.endsWith(`${name}.js`));
    if (entry) sources[entry] = await output.text();
  }
  for (const entry of ENTRIES) {
    if (sources[entry] === undefined) throw new Error(`building the web pages gave no bundle for ${entry}`);
  }
  sources.style = await Bun.file(join(CLIENT, "style.css")).text();
  return sources as BuiltSources;
}

/** The assets served for the given sources, each under its content hash. */
function fromSources(sources: BuiltSources): Assets {
  const encoder = new TextEncoder();
  const files = new Map<string, Asset>();
  const scripts = {} as Record<Entry, string>;
  for (const entry of ENTRIES) {
    const body = encoder.encode(sources[entry]);
    const name = hashName(body, "js");
    files.set(name, { body, type: "text/javascript; charset=utf-8" });
    scripts[entry] = `/assets/${name}`;
  }
  const css = encoder.encode(sources.style);
  const style = hashName(css, "css");
  files.set(style, { body: css, type: "text/css; charset=utf-8" });
  return { scripts, style: `/assets/${style}`, files };
}

let built: Promise<Assets> | undefined;

/** The process's assets, built on first call (a failed build is retried by the next call). */
export function assets(): Promise<Assets> {
  built ??= (PREBUILT ? Promise.resolve(PREBUILT) : buildSources()).then(fromSources, (error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}

/** GET /assets/:file — long-lived and immutable: the name is the content's hash. */
export async function serveAsset(c: Context): Promise<Response> {
  const file = (await assets()).files.get(c.req.param("file") ?? "");
  if (!file) return c.json({ error: "Not found" }, 404);
  return new Response(file.body, {
    headers: {
      "Content-Type": file.type,
      "Cache-Control": "public, max-age=31536000, immutable",
      "X-Content-Type-Options": "nosniff",
      "Cross-Origin-Resource-Policy": "same-origin",
    },
  });
}
