/**
 * The repository cites only itself: a comment, a test name or a doc that leans on a document a reader of the
 * repository cannot open (a design note, a list of numbered items, an issue) fails here. The contract lives in
 * docs/, so a citation names a docs/ file and a heading anchor, and every such anchor resolves.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
const tracked = Bun.spawnSync(["git", "ls-files"], { cwd: ROOT }).stdout.toString().trim().split("\n");
const texts = tracked.filter((f) => !f.endsWith(".lock") && !f.startsWith("docs/images/"));

/**
 * Ways of pointing at something outside the repository. Each is written so that this file does not match
 * itself (`\s` for a space, `\u00a7` for the section sign).
 */
/** Design documents kept outside the repository, which nothing in it may cite. */
const DESIGN_DOCUMENTS = [
  "humans",
  "revisions",
  "revisions-2",
  "access",
  "access-2",
  "work",
  "live",
  "surfaces",
  "engines",
  "clients",
  "structure",
  "evaluation",
  "agent-economy",
  "mcp-2026",
  "operations-2",
  "people-2",
  "conventions",
];

const OUTSIDE: readonly [string, RegExp][] = [
  ["a path outside the checkout", /\.\.\/(?:shared|seeds)\b|shared\/(?:spec|seeds)|\/work\//],
  [
    "a design document that is not in the repository",
    // A name the repository's docs/ holds too (evaluation.md) cites that file.
    new RegExp(
      `(?<![\\w./-])(?:${DESIGN_DOCUMENTS.filter((name) => !existsSync(join(ROOT, "docs", `${name}.md`))).join("|")})\\.md\\b`,
    ),
  ],
  ["a numbered section of some document (cite docs/<file>.md#<heading> instead)", /(?<!RFC\s\d+\s)\u00a7/],
  [
    "an item of a list of revisions",
    /\bR\d+-\d+\b|\brevisions?(?:-2)?\s+(?:\d|\u00a7)|\b(?:the|contract)\srevisions\b/i,
  ],
  ["a numbered defect or issue", /\b(?:defects?|issues?)[\s-]+#?\d/i],
  [
    "a specification that is not in the repository",
    // `(spec: string)` is a parameter (a store spec), not a citation.
    /\bthe\sspec(?:ification)?\b|\(spec(?:\s|:\s(?!string\b))|\bwhitepaper/i,
  ],
];

/**
 * Item ids the repository defines itself: the first column of the table under "Hardening items named in tests" in
 * docs/security.md. Tests are named after them, and a name citing one of these points inside the repository.
 */
const DEFINED_ITEMS = new Set(
  [...read("docs/security.md").matchAll(/^\| (R\d+-\d+) \|/gm)].map((m) => m[1] as string),
);

/** Every outside citation in `text`, as "line: the match (what it is)". */
function outsideCitations(text: string): string[] {
  const found: string[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.replace(/\bR\d+-\d+\b/g, (id) => (DEFINED_ITEMS.has(id) ? "" : id));
    for (const [what, pattern] of OUTSIDE) {
      const match = pattern.exec(line);
      if (match) found.push(`${i + 1}: ${match[0]} (${what})`);
    }
  });
  return found;
}

/** GitHub's anchor of a heading: link text kept, lower case, punctuation (backticks too) gone, spaces to hyphens. */
function slug(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-");
}

/** The anchors of a markdown file's headings (outside code fences); a repeat gets -1, -2, … as on GitHub. */
function anchors(path: string): Set<string> {
  const found = new Set<string>();
  const repeats = new Map<string, number>();
  let fenced = false;
  for (const line of read(path).split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1] as string);
    const seen = repeats.get(base) ?? 0;
    found.add(seen === 0 ? base : `${base}-${seen}`);
    repeats.set(base, seen + 1);
  }
  return found;
}

/**
 * Every `file.md#anchor` a text cites: `docs/…` paths anywhere (with more anchors of the same file listed after it:
 * `docs/people.md#approvals, #handoffs`), and in markdown relative links and `(#anchor)`.
 */
function citedAnchors(file: string, text = read(file)): { target: string; anchor: string }[] {
  const cited: { target: string; anchor: string }[] = [];
  const docs = /(?<![\w/.-])(docs\/[\w/-]+\.md)((?:#[\w-]+)(?:,\s*(?:\*\s*|\/\/\s*)?#[\w-]+)*)/g;
  for (const [, target, list] of text.matchAll(docs)) {
    for (const [anchor] of (list as string).matchAll(/(?<=#)[\w-]+/g))
      cited.push({ target: target as string, anchor });
  }
  if (!file.endsWith(".md")) return cited;
  for (const [, target, anchor] of text.matchAll(/\]\(([^)#\s]*)#([^)\s]+)\)/g)) {
    if (target && /^[a-z]+:/.test(target)) continue;
    cited.push({ target: target ? normalize(join(dirname(file), target)) : file, anchor: anchor as string });
  }
  return cited;
}

describe("citations", () => {
  test("nothing in the repository cites a document outside it", () => {
    const found = texts.flatMap((f) => outsideCitations(read(f)).map((c) => `${f}:${c}`));
    expect(found).toEqual([]);
  });

  test("every docs/<file>.md#<anchor> a file cites names a heading of that file", () => {
    const broken: string[] = [];
    const cache = new Map<string, Set<string>>();
    for (const file of texts) {
      for (const { target, anchor } of citedAnchors(file)) {
        if (!tracked.includes(target)) {
          broken.push(`${file} → ${target} (no such file)`);
          continue;
        }
        if (!cache.has(target)) cache.set(target, anchors(target));
        if (!cache.get(target)?.has(anchor)) broken.push(`${file} → ${target}#${anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });

  test("the checks catch what they are for", () => {
    // Escapes (\x20 a space, \x2e a dot, \u00a7 the section sign) keep this file from matching itself.
    const cases = [
      "(humans\x2emd \u00a75)",
      "revisions\x20\u00a71.4",
      'test("revisions\x209: a key bound"',
      "R9\x2d11 the dashboard",
      "spec/defect\x203",
      "(defect\x2014)",
      "issue\x204's target",
      "the issue\x2d2 targets",
      "(spec\x3a claim_files)",
      "as the\x20spec allows",
      "..\x2fshared\x2fspec/work\x2emd",
    ];
    expect(cases.filter((c) => outsideCitations(c).length === 0)).toEqual([]);
    const fine = [
      "RFC 6902 §4.3",
      'test("R2\x2d4 a batch of 100 tools/list"',
      "docs/protocol.md#5-guarantees-every-tool-gives",
      "docs/guides/claiming-work.md",
      "MCP protocol revisions that have none",
      "the MCP transport spec asks for",
      "a store named by a spec",
      "function open(spec: string)",
    ];
    expect(fine.filter((c) => outsideCitations(c).length > 0)).toEqual([]);
    expect(slug("`read_plan` — Read the plan")).toBe("read_plan--read-the-plan");
    expect(slug("5. Guarantees every tool gives")).toBe("5-guarantees-every-tool-gives");
    expect(citedAnchors("src/x.ts", " * (docs/people.md#approvals, #handoffs,\n * #verdicts)")).toEqual(
      ["approvals", "handoffs", "verdicts"].map((anchor) => ({ target: "docs/people.md", anchor })),
    );
    expect(slug("The plan's rules")).toBe("the-plans-rules");
  });
});
