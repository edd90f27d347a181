import { describe, expect, test } from "bun:test";
import { parseExposition, sampleValue } from "../../../test/support/prometheus.ts";
import { CounterFamily, HistogramFamily, Registry } from "./registry.ts";

describe("the metrics registry", () => {
  test("label values with quotes, backslashes and newlines survive the exposition", () => {
    const registry = new Registry();
    const counter = registry.add(new CounterFamily("x_total", "Help with a \\ and a\nnewline.", ["route"]));
    const odd = 'a "quoted" \\ path\nwith a newline';
    counter.labels(odd).inc(3);
    const families = parseExposition(registry.render());
    expect(sampleValue(families, "x_total", { route: odd })).toBe(3);
    expect(families.get("x_total")?.help).toBe("Help with a \\ and a\nnewline.");
  });

  test("a histogram's buckets are cumulative, +Inf is the count, the sum adds up; a value on a bound counts in it", () => {
    const registry = new Registry();
    const h = registry.add(new HistogramFamily("d_seconds", "Durations.", [0.1, 1, 0.01], ["tool"]));
    const series = h.labels("t");
    for (const v of [0.005, 0.01, 0.05, 0.5, 1, 7]) series.observe(v);
    const families = parseExposition(registry.render());
    const bucket = (le: string) => sampleValue(families, "d_seconds_bucket", { tool: "t", le });
    expect([bucket("0.01"), bucket("0.1"), bucket("1"), bucket("+Inf")]).toEqual([2, 3, 5, 6]);
    expect(sampleValue(families, "d_seconds_count", { tool: "t" })).toBe(6);
    expect(sampleValue(families, "d_seconds_sum", { tool: "t" })).toBeCloseTo(8.565, 10);
  });

  test("a family registered twice is a programming error", () => {
    const registry = new Registry();
    registry.add(new CounterFamily("y_total", "Y."));
    expect(() => registry.add(new CounterFamily("y_total", "Y again."))).toThrow("registered twice");
  });
});
