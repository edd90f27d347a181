/**
 * `bun run build`: self-contained executables — `dist/roomd` (the server, src/index.ts) and `dist/roomctl` (the
 * command-line client, src/cli/index.ts) — made by `bun build --compile`: each holds the Bun runtime, roomd's code
 * and its dependencies, so it runs with no Bun, no node_modules and no checkout. The pages' assets and the room
 * board's document are built first and compiled in (web/prebuilt.ts, mcp/board/prebuilt.ts), because a binary has no
 * client sources to build them from. Minified, without source maps.
 *
 *   bun run build [--outdir dist] [--target bun-linux-x64|bun-linux-arm64|…]
 *
 * `--target` cross-compiles (Bun fetches that platform's runtime, which needs its download site reachable).
 */
import { mkdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { BunPlugin } from "bun";
import { buildBoardHtml } from "../src/mcp/board/board-html.ts";
import { buildSources } from "../src/web/assets.ts";

const ROOT = resolve(import.meta.dir, "..");

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { outdir: { type: "string", default: "dist" }, target: { type: "string" } },
  strict: true,
});
const outdir = resolve(ROOT, values.outdir);
mkdirSync(outdir, { recursive: true });

const started = performance.now();
const [sources, board] = await Promise.all([buildSources(), buildBoardHtml()]);

/** Gives web/prebuilt.ts and mcp/board/prebuilt.ts the built assets as their values, in the compiled program only. */
const prebuilt: BunPlugin = {
  name: "roomd-prebuilt-assets",
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/]web[\\/]prebuilt\.ts$/ }, () => ({
      contents: `export const PREBUILT = ${JSON.stringify(sources)};\n`,
      loader: "ts",
    }));
    build.onLoad({ filter: /[\\/]src[\\/]mcp[\\/]board[\\/]prebuilt\.ts$/ }, () => ({
      contents: `export const PREBUILT_BOARD = ${JSON.stringify(board)};\n`,
      loader: "ts",
    }));
  },
};

const PROGRAMS = [
  { name: "roomd", entry: "src/index.ts" },
  { name: "roomctl", entry: "src/cli/index.ts" },
] as const;

for (const program of PROGRAMS) {
  const outfile = join(outdir, program.name);
  const result = await Bun.build({
    entrypoints: [join(ROOT, program.entry)],
    compile: values.target ? { outfile, target: values.target as never } : { outfile },
    minify: true,
    sourcemap: "none",
    plugins: [prebuilt],
  });
  if (!result.success) {
    process.stderr.write(`build of ${program.name} failed:\n${result.logs.map(String).join("\n")}\n`);
    process.exit(1);
  }
  const mib = statSync(outfile).size / 2 ** 20;
  process.stdout.write(`${outfile}  ${mib.toFixed(1)} MiB\n`);
}
process.stdout.write(`built in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
