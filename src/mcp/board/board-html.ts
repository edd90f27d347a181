/**
 * The board's one HTML document: the room view's own renderer (src/web/client, bundled here from its entry
 * board.ts by Bun.build — a build of browser code named by path, not an import) and its style sheet, inlined, so
 * the document loads nothing, connects nowhere and runs under the MCP Apps hosts' default CSP (inline script and
 * style allowed, nothing else). Built once per process on first use, in memory: `bun run start` needs no build step.
 * A compiled binary carries it already built (prebuilt.ts), since it holds no client sources to build from.
 */
import { join } from "node:path";
import { PREBUILT_BOARD } from "./prebuilt.ts";

const CLIENT = join(import.meta.dir, "..", "..", "web", "client");

/**
 * Text that would end the inline element early or open an HTML comment in it, made inert: `<\/` reads as `</` in
 * every JavaScript string and regular expression the bundle can hold it in.
 */
function inlineScript(code: string): string {
  return code.replaceAll("</", "<\\/").replaceAll("<!--", "<\\!--");
}

function inlineStyle(css: string): string {
  if (/<\/style/i.test(css)) throw new Error("the board's style sheet holds </style");
  return css;
}

/** Builds the board's document from the client sources (what `bun run build` compiles into a binary). */
export async function buildBoardHtml(): Promise<string> {
  const result = await Bun.build({
    entrypoints: [join(CLIENT, "board.ts")],
    target: "browser",
    format: "esm",
    minify: true,
    splitting: false,
    sourcemap: "none",
  });
  const output = result.outputs[0];
  if (!result.success || output === undefined) {
    throw new Error(`building the room board failed: ${result.logs.map((l) => l.message).join("; ")}`);
  }
  const script = inlineScript(await output.text());
  const css = [
    await Bun.file(join(CLIENT, "style.css")).text(),
    await Bun.file(join(CLIENT, "board.css")).text(),
  ];
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    "<title>Room board</title>",
    `<style>${inlineStyle(css.join("\n"))}</style>`,
    "</head>",
    '<body class="board-app">',
    '<main id="board" aria-live="polite"><p class="muted" id="board-status">Waiting for the room…</p></main>',
    `<script type="module">${script}</script>`,
    "</body>",
    "</html>",
  ].join("\n");
}

let built: Promise<string> | undefined;

/** The board's HTML, built on first call (a failed build is retried by the next call). */
export function boardHtml(): Promise<string> {
  if (PREBUILT_BOARD !== undefined) return Promise.resolve(PREBUILT_BOARD);
  built ??= buildBoardHtml().catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}
