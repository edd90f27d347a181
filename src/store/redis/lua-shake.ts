/**
 * Drops the helpers a script never uses from its text, and finds the keys it names.
 *
 * Every EVALSHA runs its whole chunk: each `local function` of the prelude is a closure built again on every call,
 * whether the body calls it or not (≈ 4 µs of Redis CPU per call for the ~60 helpers every room script carried),
 * and every KEYS entry is a Lua string made for the call (≈ 1.5 µs for the room's 40). So each script is cut to
 * what it references, here, once at module load:
 *
 * - The text is split into top-level statements: a statement starts at a line beginning in column 0 (a comment
 *   there starts the next statement's lead-in); indented lines and lines starting with `end`, `else`, `elseif`,
 *   `until`, `}` or `)` continue the current one. The prelude and the bodies are written so (the 2-space indent).
 * - Only definitions may be dropped: `local function f`, `function T.f` and `T.f = U.g` for a helper table (named
 *   in capitals), and `local t = {…}` (a table constructor, which calls nothing). One is kept when a kept statement names it (`f` not after `.` or `:`;
 *   `T.f` as written), until nothing changes; every other statement is always kept. A name seen in a comment or a
 *   string keeps its definition too — too much is kept, never too little.
 */

interface Statement {
  text: string;
  /** Names this definition provides (`f`, `T.f`), or undefined for a statement that is always kept. */
  provides?: string[];
}

const CONTINUES = /^(?:\s|$|end\b|else\b|elseif\b|until\b|[})\]])/;
/** Helper tables are named in capitals (R, IX, MAIL, TRIM, …): only their functions are dropped, never a field of data. */
const DEFINITIONS: [RegExp, (m: RegExpMatchArray) => string[]][] = [
  [/^local function ([A-Za-z_]\w*)\s*\(/, (m) => [m[1] as string]],
  [/^function ([A-Z][A-Z0-9_]*\.[A-Za-z_]\w*)\s*\(/, (m) => [m[1] as string]],
  [/^([A-Z][A-Z0-9_]*\.[A-Za-z_]\w*) = [A-Z][A-Z0-9_]*\.[A-Za-z_]\w*\s*$/, (m) => [m[1] as string]],
  [/^local ([A-Za-z_]\w*) = \{/, (m) => [m[1] as string]],
];

/**
 * Whether a definition's lines end where it does: one line, or a last line that is its `end` or closing brace. A
 * definition followed by indented lines of some other statement (a style slip) then stays, whatever it defines.
 */
function closes(lines: string[]): boolean {
  const code = lines.filter((l) => l.trim() !== "" && !l.startsWith("--"));
  if (code.length <= 1) return true;
  const last = code[code.length - 1] as string;
  return /^(?:end\b|\})/.test(last);
}

/** The text as top-level statements, in order; joined with "\n" they give the text back exactly. */
export function statements(lua: string): Statement[] {
  const out: { lines: string[]; lead: boolean }[] = [];
  for (const line of lua.split("\n")) {
    const current = out[out.length - 1];
    if (current && CONTINUES.test(line)) {
      current.lines.push(line);
    } else if (line.startsWith("--")) {
      if (current?.lead) current.lines.push(line);
      else out.push({ lines: [line], lead: true });
    } else if (current?.lead) {
      current.lines.push(line);
      current.lead = false;
    } else {
      out.push({ lines: [line], lead: false });
    }
  }
  return out.map(({ lines }) => {
    const text = lines.join("\n");
    const head = lines.find((l) => !l.startsWith("--")) ?? "";
    for (const [pattern, names] of DEFINITIONS) {
      const m = head.match(pattern);
      if (m && closes(lines)) return { text, provides: names(m) };
    }
    return { text };
  });
}

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Whether `text` names `name` (a plain name not after `.`/`:`; a dotted one as written). */
function names(text: string, name: string): boolean {
  return new RegExp(`(?<![\\w.:])${literal(name)}(?![\\w])`).test(text);
}

/** The text without the definitions nothing kept refers to (see the module comment). */
export function shake(lua: string): string {
  const all = statements(lua);
  const kept = all.map((s) => s.provides === undefined);
  let changed = true;
  while (changed) {
    changed = false;
    const live = all
      .filter((_, i) => kept[i])
      .map((s) => s.text)
      .join("\n")
      .replace(/^\s*--.*$/gm, "");
    all.forEach((s, i) => {
      if (kept[i] || !s.provides) return;
      if (s.provides.some((name) => names(live, name))) {
        kept[i] = true;
        changed = true;
      }
    });
  }
  return all
    .filter((_, i) => kept[i])
    .map((s) => s.text)
    .join("\n");
}

/** The `K_<NAME>` names a text refers to, as upper-case NAMEs. */
export function keyNames(lua: string): Set<string> {
  return new Set([...lua.matchAll(/(?<![\w.:])K_([A-Z0-9_]+)\b/g)].map((m) => m[1] as string));
}
