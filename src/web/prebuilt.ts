/**
 * The pages' assets already built, or undefined. In a checkout this module is exactly this: the assets are built at
 * run time from client/ (assets.ts). `bun run build` (scripts/build.ts) compiles the executables with this module's
 * body replaced by the built sources, so a binary carries its pages and needs no client sources.
 */
/** The built pages as text, keyed by entry ("style" for the CSS): what a compiled binary carries. */
export type BuiltSources = Record<"login" | "room" | "dashboard" | "style", string>;

export const PREBUILT: BuiltSources | undefined = undefined;
