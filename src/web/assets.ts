/**
 * The pages' browser code and style sheet: the TypeScript modules under client/ bundled by Bun.build (one bundle per
 * page, minified, for browsers) and the CSS, each served from `/assets/<content hash>.<js|css>` with a year-long
 * immutable cache (a new build is a new name). Built once per process, on first use (index.ts starts it at
 * start-up), in memory: nothing is written to disk, so `bun install && bun run start` needs no build step.
 */
import { join } from "node:path";
import type { Context } from "hono";

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

async function build(): Promise<Assets> {
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
  const files = new Map<string, Asset>();
  const scripts = {} as Record<Entry, string>;
  for (const output of result.outputs) {
    const entry = ENTRIES.find((name) => output.path.endsWith(`${name}.js`));
    if (!entry) continue;
    const body = new Uint8Array(await output.arrayBuffer());
    const name = hashName(body, "js");
    files.set(name, { body, type: "text/javascript; charset=utf-8" });
    scripts[entry] = `/assets/${name}`;
  }
  for (const entry of ENTRIES) {
    if (!scripts[entry]) throw new Error(`building the web pages gave no bundle for ${entry}`);
  }
  const css = new Uint8Array(await Bun.file(join(CLIENT, "style.css")).arrayBuffer());
  const style = hashName(css, "css");
  files.set(style, { body: css, type: "text/css; charset=utf-8" });
  return { scripts, style: `/assets/${style}`, files };
}

let built: Promise<Assets> | undefined;

/** The process's assets, built on first call (a failed build is retried by the next call). */
export function assets(): Promise<Assets> {
  built ??= build().catch((error: unknown) => {
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
