/**
 * Counters, gauges and histograms held in this process's memory, rendered in the Prometheus text exposition
 * format (version 0.0.4). No dependency: the format is a few lines of text per series. Label values must come
 * from bounded sets (tool names of the catalog, fixed outcomes, route patterns): the caller's job, since every
 * distinct combination is a series kept for the life of the process.
 */

/** One metric family: its samples as exposition lines. */
interface Family {
  readonly name: string;
  render(): string;
}

/** `{a="x",b="y"}` with the exposition format's escaping of label values (\\, " and newline). */
function labelText(names: readonly string[], values: readonly string[]): string {
  if (names.length === 0) return "";
  const pairs = names.map((name, i) => `${name}="${escapeLabel(values[i] ?? "")}"`);
  return `{${pairs.join(",")}}`;
}

const escapeLabel = (value: string) =>
  value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");
const escapeHelp = (text: string) => text.replaceAll("\\", "\\\\").replaceAll("\n", "\\n");

/** A sample value as the format writes it: integers plainly, +Inf/-Inf/NaN by name. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(value);
}

const header = (name: string, help: string, type: string) =>
  `# HELP ${name} ${escapeHelp(help)}\n# TYPE ${name} ${type}\n`;

/** A counter (or gauge) with labels; `labels(...)` returns the series to increment, made on first use. */
export class CounterFamily implements Family {
  private readonly series = new Map<string, { values: string[]; value: number }>();
  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly labelNames: readonly string[] = [],
    private readonly type: "counter" | "gauge" = "counter",
  ) {}

  /** The series of these label values (in labelNames order). Hold on to it on hot paths. */
  labels(...values: string[]): { inc(by?: number): void; set(value: number): void; get(): number } {
    const key = values.join("\u0000");
    let entry = this.series.get(key);
    if (!entry) {
      entry = { values, value: 0 };
      this.series.set(key, entry);
    }
    const series = entry;
    return {
      inc: (by = 1) => {
        series.value += by;
      },
      set: (value) => {
        series.value = value;
      },
      get: () => series.value,
    };
  }

  render(): string {
    let out = header(this.name, this.help, this.type);
    if (this.series.size === 0 && this.labelNames.length === 0) out += `${this.name} 0\n`;
    for (const { values, value } of this.series.values())
      out += `${this.name}${labelText(this.labelNames, values)} ${formatValue(value)}\n`;
    return out;
  }
}

/** A histogram with labels: cumulative `_bucket{le}` lines, `_sum` and `_count` per series. */
export class HistogramFamily implements Family {
  private readonly series = new Map<string, { values: string[]; counts: Float64Array; sum: number }>();
  readonly buckets: readonly number[];
  constructor(
    readonly name: string,
    private readonly help: string,
    buckets: readonly number[],
    private readonly labelNames: readonly string[] = [],
  ) {
    this.buckets = [...buckets].sort((a, b) => a - b);
  }

  /** The series of these label values; `observe(v)` counts v in the first bucket whose bound is ≥ v. */
  labels(...values: string[]): { observe(value: number): void } {
    const key = values.join("\u0000");
    let entry = this.series.get(key);
    if (!entry) {
      // One slot per bound plus +Inf; counts are per bucket, made cumulative when rendered.
      entry = { values, counts: new Float64Array(this.buckets.length + 1), sum: 0 };
      this.series.set(key, entry);
    }
    const series = entry;
    const bounds = this.buckets;
    return {
      observe: (value) => {
        let i = 0;
        while (i < bounds.length && value > (bounds[i] as number)) i++;
        series.counts[i] = (series.counts[i] ?? 0) + 1;
        series.sum += value;
      },
    };
  }

  render(): string {
    let out = header(this.name, this.help, "histogram");
    const names = [...this.labelNames, "le"];
    for (const { values, counts, sum } of this.series.values()) {
      let cumulative = 0;
      for (let i = 0; i <= this.buckets.length; i++) {
        cumulative += counts[i] ?? 0;
        const le = i < this.buckets.length ? formatValue(this.buckets[i] as number) : "+Inf";
        out += `${this.name}_bucket${labelText(names, [...values, le])} ${cumulative}\n`;
      }
      const own = labelText(this.labelNames, values);
      out += `${this.name}_sum${own} ${formatValue(sum)}\n${this.name}_count${own} ${cumulative}\n`;
    }
    return out;
  }
}

/** Gauges whose values are read when scraped (process CPU and memory, open hubs), one family each. */
export class CollectedFamily implements Family {
  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly type: "counter" | "gauge",
    private readonly read: () => number | undefined,
  ) {}

  render(): string {
    const value = this.read();
    if (value === undefined) return "";
    return `${header(this.name, this.help, this.type)}${this.name} ${formatValue(value)}\n`;
  }
}

/** The families of one process, rendered in registration order. */
export class Registry {
  private readonly families: Family[] = [];

  add<F extends Family>(family: F): F {
    if (this.families.some((f) => f.name === family.name))
      throw new Error(`metrics: ${family.name} is registered twice`);
    this.families.push(family);
    return family;
  }

  /** The whole exposition, as GET /metrics answers it. */
  render(): string {
    return this.families.map((f) => f.render()).join("");
  }
}
