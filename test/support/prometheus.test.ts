/** The exposition parser refuses what the format does not allow, so tests built on it can fail. */
import { describe, expect, test } from "bun:test";
import { parseExposition, sampleValue } from "./prometheus.ts";

const histogram = (buckets: string, count = 3) =>
  `# TYPE h histogram\n${buckets}h_sum 1.5\nh_count ${count}\n`;

describe("parseExposition", () => {
  test("reads the format's own example: HELP, TYPE, escapes, timestamps, +Inf, a histogram", () => {
    const text = [
      "# HELP http_requests_total The total number of HTTP requests.",
      "# TYPE http_requests_total counter",
      'http_requests_total{method="post",code="200"} 1027 1395066363000',
      'http_requests_total{method="post",code="400"}    3 1395066363000',
      "",
      "# Escaping in label values:",
      'msdos_file_access_time_seconds{path="C:\\\\DIR\\\\FILE.TXT",error="Cannot find file:\\n\\"FILE.TXT\\""} 1.458255915e9',
      "metric_without_timestamp_and_labels 12.47",
      "# A weird metric from before the epoch:",
      'something_weird{problem="division by zero"} +Inf -3982045',
      "# TYPE http_request_duration_seconds histogram",
      'http_request_duration_seconds_bucket{le="0.05"} 24054',
      'http_request_duration_seconds_bucket{le="0.1"} 33444',
      'http_request_duration_seconds_bucket{le="+Inf"} 144320',
      "http_request_duration_seconds_sum 53423",
      "http_request_duration_seconds_count 144320",
      "",
    ].join("\n");
    const families = parseExposition(text);
    expect(sampleValue(families, "http_requests_total", { code: "400" })).toBe(3);
    const msdos = families.get("msdos_file_access_time_seconds")?.samples[0];
    expect(msdos?.labels).toEqual({ path: "C:\\DIR\\FILE.TXT", error: 'Cannot find file:\n"FILE.TXT"' });
    expect(sampleValue(families, "something_weird")).toBe(Number.POSITIVE_INFINITY);
    expect(families.get("http_request_duration_seconds")?.type).toBe("histogram");
    expect(families.get("http_requests_total")?.help).toBe("The total number of HTTP requests.");
  });

  test("refuses what the format does not allow", () => {
    const bad = {
      "non-cumulative buckets": histogram('h_bucket{le="1"} 3\nh_bucket{le="2"} 2\nh_bucket{le="+Inf"} 3\n'),
      "no +Inf bucket": histogram('h_bucket{le="1"} 3\n'),
      "+Inf ≠ _count": histogram('h_bucket{le="+Inf"} 2\n'),
      "TYPE twice": "# TYPE a counter\n# TYPE a counter\na 1\n",
      "TYPE after samples": "a 1\n# TYPE a counter\n",
      "lines of a family apart": 'a 1\nb 1\na{x="y"} 2\n',
      "bad escape": 'a{x="\\t"} 1\n',
      "unterminated value": 'a{x="y} 1\n',
      "reserved label": 'a{__x="y"} 1\n',
      "same labels twice": 'a{x="y"} 1\na{x="y"} 2\n',
      "not a number": "a one\n",
      "no final newline": "a 1",
      "bad metric name": "1a 1\n",
    };
    for (const [what, text] of Object.entries(bad)) expect(() => parseExposition(text), what).toThrow();
  });
});
