/**
 * A strict parser of the Prometheus text exposition format (version 0.0.4), written from the format's
 * specification, so tests check what a real scraper would accept rather than what roomd happens to print:
 *
 * - lines end with \n; empty lines are ignored; `# HELP <name> <text>` (text escapes \\ and \n) and
 *   `# TYPE <name> <counter|gauge|histogram|summary|untyped>` are metadata, other `#` lines comments;
 * - a sample is `<name>[{<label>="<value>",…[,]}] <value>[ <timestamp ms>]`, label values escaping \\, \" and \n,
 *   values being Go floats (also NaN, +Inf, -Inf);
 * - metric names match [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]* and do not start with "__";
 * - at most one HELP and one TYPE per family, TYPE before the family's first sample, a family's lines in one
 *   group, no label set twice in a family;
 * - a histogram's samples are <name>_bucket (with an `le` label), <name>_sum and <name>_count; per label set its
 *   buckets are cumulative (never decreasing as le grows), include le="+Inf", and +Inf equals _count.
 *
 * Anything else throws an Error naming the line.
 */

export type MetricType = "counter" | "gauge" | "histogram" | "summary" | "untyped";

export interface Sample {
  /** The sample's own name (for a histogram: <family>_bucket, _sum or _count). */
  name: string;
  labels: Record<string, string>;
  value: number;
  timestampMs?: number;
}

export interface MetricFamily {
  name: string;
  type: MetricType;
  help?: string;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set<MetricType>(["counter", "gauge", "histogram", "summary", "untyped"]);

function fail(lineNo: number, message: string): never {
  throw new Error(`exposition line ${lineNo}: ${message}`);
}

function parseValue(text: string, lineNo: number): number {
  if (text === "NaN") return Number.NaN;
  if (text === "+Inf" || text === "Inf") return Number.POSITIVE_INFINITY;
  if (text === "-Inf") return Number.NEGATIVE_INFINITY;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text))
    fail(lineNo, `not a float: ${JSON.stringify(text)}`);
  return Number(text);
}

function unescapeHelp(text: string): string {
  return text.replace(/\\(\\|n)/g, (_, c: string) => (c === "n" ? "\n" : "\\"));
}

/** Parses `{a="x",b="y"}` starting at `at` (the "{"); returns the labels and the index after "}". */
function parseLabels(
  line: string,
  at: number,
  lineNo: number,
): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let i = at + 1;
  for (;;) {
    while (line[i] === " ") i++;
    if (line[i] === "}") return { labels, end: i + 1 };
    const nameMatch = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(line.slice(i));
    if (!nameMatch) fail(lineNo, `bad label name at column ${i + 1}`);
    const name = nameMatch[0];
    if (name.startsWith("__")) fail(lineNo, `reserved label name ${name}`);
    if (name in labels) fail(lineNo, `label ${name} given twice`);
    i += name.length;
    while (line[i] === " ") i++;
    if (line[i] !== "=") fail(lineNo, `expected = after label ${name}`);
    i++;
    while (line[i] === " ") i++;
    if (line[i] !== '"') fail(lineNo, `expected " to open the value of ${name}`);
    i++;
    let value = "";
    for (;;) {
      const c = line[i];
      if (c === undefined) fail(lineNo, `unterminated value of label ${name}`);
      if (c === '"') break;
      if (c === "\\") {
        const next = line[i + 1];
        if (next === "\\") value += "\\";
        else if (next === '"') value += '"';
        else if (next === "n") value += "\n";
        else fail(lineNo, `bad escape \\${next ?? ""} in label ${name}`);
        i += 2;
        continue;
      }
      value += c;
      i++;
    }
    labels[name] = value;
    i++;
    while (line[i] === " ") i++;
    if (line[i] === ",") {
      i++;
      continue;
    }
    if (line[i] === "}") return { labels, end: i + 1 };
    fail(lineNo, `expected , or } after label ${name}`);
  }
}

/** The family a sample belongs to: a histogram's _bucket/_sum/_count samples belong to the histogram. */
function familyOf(sampleName: string, typed: Map<string, MetricType>): string {
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    if (!sampleName.endsWith(suffix)) continue;
    const base = sampleName.slice(0, -suffix.length);
    const type = typed.get(base);
    if (type === "histogram" || (type === "summary" && suffix !== "_bucket")) return base;
  }
  return sampleName;
}

const labelKey = (labels: Record<string, string>, without?: string) =>
  JSON.stringify(
    Object.entries(labels)
      .filter(([k]) => k !== without)
      .sort(([a], [b]) => a.localeCompare(b)),
  );

function checkHistogram(family: MetricFamily): void {
  const groups = new Map<string, { buckets: [number, number][]; count?: number; sum?: number }>();
  const group = (labels: Record<string, string>, without?: string) => {
    const key = labelKey(labels, without);
    let g = groups.get(key);
    if (!g) {
      g = { buckets: [] };
      groups.set(key, g);
    }
    return g;
  };
  for (const s of family.samples) {
    if (s.name === `${family.name}_bucket`) {
      const le = s.labels.le;
      if (le === undefined) throw new Error(`${family.name}: a bucket without le`);
      group(s.labels, "le").buckets.push([parseValue(le, 0), s.value]);
    } else if (s.name === `${family.name}_count`) {
      group(s.labels).count = s.value;
    } else if (s.name === `${family.name}_sum`) {
      group(s.labels).sum = s.value;
    } else {
      throw new Error(`${family.name}: sample ${s.name} does not belong to a histogram`);
    }
  }
  for (const [key, g] of groups) {
    const sorted = [...g.buckets].sort((a, b) => a[0] - b[0]);
    const last = sorted.at(-1);
    if (!last || last[0] !== Number.POSITIVE_INFINITY) throw new Error(`${family.name}${key}: no le="+Inf"`);
    for (let i = 1; i < sorted.length; i++) {
      if ((sorted[i] as [number, number])[1] < (sorted[i - 1] as [number, number])[1])
        throw new Error(`${family.name}${key}: buckets are not cumulative`);
    }
    if (g.count === undefined || g.sum === undefined)
      throw new Error(`${family.name}${key}: no _count or _sum`);
    if (last[1] !== g.count)
      throw new Error(`${family.name}${key}: +Inf bucket ${last[1]} ≠ _count ${g.count}`);
  }
}

/** Parses a whole exposition; throws on anything the format does not allow. */
export function parseExposition(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily>();
  const typed = new Map<string, MetricType>();
  const helped = new Set<string>();
  const finished = new Set<string>();
  const seen = new Set<string>();
  let current: string | undefined;
  const enter = (name: string, lineNo: number) => {
    if (current === name) return;
    if (current !== undefined) finished.add(current);
    if (finished.has(name)) fail(lineNo, `the lines of ${name} are not in one group`);
    current = name;
  };
  const lines = text.split("\n");
  if (text.length > 0 && !text.endsWith("\n"))
    fail(lines.length, "the exposition does not end with a newline");
  lines.forEach((line, index) => {
    const lineNo = index + 1;
    if (line.trim() === "") return;
    if (line.startsWith("#")) {
      const meta = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(line);
      if (!meta) return; // a comment
      const [, kind, name = "", rest = ""] = meta;
      if (!METRIC_NAME.test(name)) fail(lineNo, `bad metric name ${name}`);
      enter(name, lineNo);
      const family = families.get(name) ?? { name, type: "untyped" as MetricType, samples: [] };
      families.set(name, family);
      if (kind === "HELP") {
        if (helped.has(name)) fail(lineNo, `second HELP for ${name}`);
        helped.add(name);
        family.help = unescapeHelp(rest);
      } else {
        const type = rest.trim() as MetricType;
        if (!TYPES.has(type)) fail(lineNo, `unknown type ${rest}`);
        if (typed.has(name)) fail(lineNo, `second TYPE for ${name}`);
        if (family.samples.length > 0) fail(lineNo, `TYPE of ${name} after its samples`);
        typed.set(name, type);
        family.type = type;
      }
      return;
    }
    const nameMatch = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line);
    if (!nameMatch) fail(lineNo, "a sample must start with a metric name");
    const name = nameMatch[0];
    let i = name.length;
    let labels: Record<string, string> = {};
    if (line[i] === "{") ({ labels, end: i } = parseLabels(line, i, lineNo));
    const rest = line.slice(i).trim().split(/\s+/);
    if (rest.length < 1 || rest.length > 2 || rest[0] === "")
      fail(lineNo, "expected a value and an optional timestamp");
    const value = parseValue(rest[0] as string, lineNo);
    const timestampMs = rest[1] === undefined ? undefined : Number(rest[1]);
    if (timestampMs !== undefined && !Number.isInteger(timestampMs)) fail(lineNo, `bad timestamp ${rest[1]}`);
    for (const label of Object.keys(labels)) if (!LABEL_NAME.test(label)) fail(lineNo, `bad label ${label}`);
    const familyName = familyOf(name, typed);
    enter(familyName, lineNo);
    const family = families.get(familyName) ?? {
      name: familyName,
      type: "untyped" as MetricType,
      samples: [],
    };
    families.set(familyName, family);
    const key = `${name}${labelKey(labels)}`;
    if (seen.has(key)) fail(lineNo, `${name} with these labels twice`);
    seen.add(key);
    family.samples.push({ name, labels, value, ...(timestampMs === undefined ? {} : { timestampMs }) });
  });
  for (const family of families.values()) if (family.type === "histogram") checkHistogram(family);
  return families;
}

/** The value of the sample `name` whose labels include `labels`; undefined when there is none. */
export function sampleValue(
  families: Map<string, MetricFamily>,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const family of families.values()) {
    for (const s of family.samples) {
      if (s.name !== name) continue;
      if (Object.entries(labels).every(([k, v]) => s.labels[k] === v)) return s.value;
    }
  }
  return undefined;
}
