/**
 * The pages' assets already built, or undefined. In a checkout this module is exactly this: the assets are built at
 * run time from client/ (assets.ts). `bun run build` (scripts/build.ts) compiles the executables with this module's
 * body replaced by the built sources, so a binary carries its pages and needs no client sources.
 */
import type { BuiltSources } from "./assets.ts";

export const PREBUILT: BuiltSources | undefined = undefined;
