/**
 * The board's HTML document already built, or undefined. In a checkout this module is exactly this: the document is
 * built at run time from the room view's client sources (board-html.ts). `bun run build` (scripts/build.ts)
 * compiles the executables with this module's body replaced by the built document, so a binary, which holds no
 * client sources, serves the board too.
 */
export const PREBUILT_BOARD: string | undefined = undefined;
