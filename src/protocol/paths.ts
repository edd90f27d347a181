/**
 * File claim paths (claim_files, list_claims, check_files; docs/protocol.md#file-claims): one normal form, and the
 * glob rules used to decide whether a claim covers a path or two claims conflict.
 *
 * Pattern language. A path is "/"-separated segments. In a segment, `*` matches any run of characters (not
 * "/"), `?` exactly one character (not "/"), everything else itself. A segment that is exactly `**` matches
 * zero or more whole segments, so `src/**` covers `src` itself as well as everything below it. Characters are
 * Unicode code points (not UTF-16 units, not bytes), so a port that reads UTF-8 must split code points first.
 * There is no escape character: a file whose name contains `*`, `?`, `[` or `{` is claimed with `?` in place
 * of that character (a slightly wider claim, never a narrower one).
 *
 * Decisions (docs/protocol.md#file-claims): `**` inside a segment (`a**b`, `***`) is refused rather than read as
 * `*`, because a writer of `a**b` most likely meant to cross directories and a silent `*` would under-claim;
 * consecutive `**` segments collapse to one (same language, one normal form); a lone `.` is refused (it names
 * the whole repository: send `**`); `~` is refused only at the start, `!` only as the first character of the
 * path (where shells and ignore files give them meaning); DEL counts as a control character; paths are not
 * trimmed and not Unicode-normalised (file names are compared as sent).
 *
 * Callers pass matchesPath and patternsOverlap only values returned by normalisePath; the matching functions
 * do not re-validate. The algorithms and a Lua 5.1 port note are in path-glob.ts.
 */
export { matchesPath, patternsOverlap } from "./path-glob.ts";

/** Longest accepted path or pattern, in code points. */
export const PATH_MAX_CHARS = 512;

/** The normal form of a claim path or pattern, or a message for the agent saying what to send instead. */
export type NormalisedPath = { path: string } | { error: string };

const EXAMPLE = 'e.g. "src/app.ts", "src/*.ts" or "src/**"';

/**
 * Normalises a repo-relative path or glob: drops `.` segments (`./src/a.ts` → `src/a.ts`, `a/./b` → `a/b`),
 * collapses repeated `**` segments, and refuses everything else that is not in normal form, naming the rule.
 */
export function normalisePath(input: string): NormalisedPath {
  const fail = (rule: string): NormalisedPath => ({
    error: `Invalid path ${JSON.stringify(input.slice(0, 80))}: ${rule}`,
  });
  if (input.length === 0) return fail(`is empty (send a path relative to the repository root, ${EXAMPLE})`);
  // Before the character checks, so C:\x and \\host\x are called absolute rather than "has a backslash".
  if (/^([/\\]|[A-Za-z]:)/.test(input)) {
    return fail(`is absolute: send it relative to the repository root, ${EXAMPLE}`);
  }
  if (input.startsWith("~")) {
    return fail(
      'starts with "~" (a home directory): send it relative to the repository root; for a file name that ' +
        'really starts with "~", put "?" in its place',
    );
  }
  const chars = Array.from(input);
  if (chars.length > PATH_MAX_CHARS) {
    return fail(
      `is longer than ${PATH_MAX_CHARS} characters (claim a parent directory with "dir/**" instead)`,
    );
  }
  for (const ch of chars) {
    const code = ch.codePointAt(0) ?? 0;
    if (code < 0x20 || code === 0x7f) {
      return fail("contains a control character (tab, newline, NUL, ...); send the path as plain text");
    }
    // Array.from keeps a lone surrogate as one element: such a string has no UTF-8 form to store or compare.
    if (code >= 0xd800 && code <= 0xdfff)
      return fail("is not valid Unicode (a lone surrogate): send the file name as UTF-8 text");
    if (ch === "\\") return fail('contains a backslash: separate segments with "/", e.g. "src/app.ts"');
  }
  const kept: string[] = [];
  for (const segment of input.split("/")) {
    if (segment === "") {
      return fail('has an empty segment ("//" or a trailing "/"); for a whole directory send "dir/**"');
    }
    if (segment === ".") continue;
    if (segment === "..")
      return fail(`has a ".." segment: paths stay inside the repository; send it from the root, ${EXAMPLE}`);
    if (segment.includes("[") || segment.includes("{")) {
      return fail(
        'uses "[" or "{": character classes and {a,b} alternatives are not supported; use "?" (one ' +
          'character) or "*" (within a segment), or claim several paths; for a file name that really ' +
          'contains "[" or "{", put "?" in its place',
      );
    }
    if (segment !== "**" && segment.includes("**")) {
      return fail(
        '"**" must be a whole segment, as in "src/**" or "src/**/x.ts"; use "*" to match within one segment',
      );
    }
    if (segment === "**" && kept[kept.length - 1] === "**") continue;
    kept.push(segment);
  }
  if (kept.length === 0) return fail('names the repository root: send "**" to claim everything');
  if (kept[0]?.startsWith("!")) {
    return fail(
      'starts with "!": negated patterns are not supported, claim the paths you want instead; for a file ' +
        'name that really starts with "!", put "?" in its place',
    );
  }
  return { path: kept.join("/") };
}

/** True when a normalised path is a pattern (has `*` or `?`) rather than one concrete file. */
export function isPattern(path: string): boolean {
  return path.includes("*") || path.includes("?");
}
