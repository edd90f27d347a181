/**
 * The evaluation's figures, drawn by Observable Plot (@observablehq/plot) into a DOM that linkedom provides, so they
 * render to SVG files without a browser. Each function takes rows of results and answers the SVG text.
 */
import * as Plot from "@observablehq/plot";
import { parseHTML } from "linkedom";

const SVG_NS = "http://www.w3.org/2000/svg";

/** The little of a DOM element used here (linkedom's elements have it; the project has no DOM typings). */
interface Node {
  tagName: string;
  outerHTML: string;
  setAttribute(name: string, value: string): void;
  querySelectorAll(selector: string): Node[];
  getAttribute(name: string): string | null;
}

function render(options: Plot.PlotOptions): string {
  const { document } = parseHTML("<!doctype html><html><body></body></html>");
  const figure = Plot.plot({ ...options, document } as Plot.PlotOptions) as unknown as Node;
  // Series are labelled in the chart (legends are HTML beside it, which an SVG file cannot hold); a chart that
  // still comes wrapped gives its own SVG, the one with a viewBox.
  const svg =
    figure.tagName.toLowerCase() === "svg"
      ? figure
      : (figure.querySelectorAll("svg").find((n) => n.getAttribute("viewBox") !== null) as Node);
  svg.setAttribute("xmlns", SVG_NS);
  svg.setAttribute("style", "background: white; color: #222;");
  return `${svg.outerHTML}\n`;
}

export interface ArmBar {
  scenario: string;
  arm: string;
  value: number;
}

/** One value per arm, side by side, one panel per scenario. */
export function armsChart(rows: ArmBar[], label: string): string {
  return render({
    width: 900,
    height: 320,
    marginBottom: 70,
    marginLeft: 60,
    fx: { label: null },
    x: { label: null, tickRotate: -35 },
    y: { label, grid: true },
    color: { legend: false },
    marks: [Plot.barY(rows, { fx: "scenario", x: "arm", y: "value", fill: "arm" }), Plot.ruleY([0])],
  });
}

export interface CollisionPoint {
  n: number;
  arm: string;
  rate: number;
  low: number;
  high: number;
}

/** Collision rate vs N per arm (with simultaneous intervals) against the curve p(N,K). */
export function collisionChart(
  points: CollisionPoint[],
  curve: { n: number; p: number }[],
  k: number,
): string {
  return render({
    width: 760,
    height: 380,
    x: { label: "agents (N)", domain: [0, 17] },
    y: { label: "share of trials with two agents on one task", domain: [0, 1], grid: true },
    marks: [
      Plot.line(curve, { x: "n", y: "p", stroke: "#888", strokeDasharray: "4,3" }),
      Plot.text([curve.at(-1) ?? { n: 16, p: 1 }], {
        x: "n",
        y: "p",
        text: () => `p(N,${k})`,
        dy: -10,
        fill: "#666",
      }),
      Plot.ruleX(points, { x: "n", y1: "low", y2: "high", stroke: "arm", strokeOpacity: 0.6 }),
      Plot.dot(points, { x: "n", y: "rate", stroke: "arm", fill: "arm", r: 3 }),
      // The arms, listed top left in their colours (a legend inside the SVG).
      ...[...new Set(points.map((p) => p.arm))].map((arm, i) =>
        Plot.text([arm], {
          frameAnchor: "top-left",
          dx: 12,
          dy: 12 + 14 * i,
          text: (d: string) => `● ${d}`,
          fill: (d: string) => d,
          textAnchor: "start",
        }),
      ),
    ],
  });
}

export interface StalenessPoint {
  pollS: number;
  quantile: string;
  seconds: number;
}

/** Staleness p50/p99 vs polling interval (log scale), with push as horizontal rules. */
export function stalenessChart(
  points: StalenessPoint[],
  push: { quantile: string; seconds: number }[],
): string {
  return render({
    width: 760,
    height: 360,
    x: { label: "polling interval (s)", type: "log" },
    y: { label: "staleness (s)", grid: true },
    marginRight: 50,
    marks: [
      Plot.ruleY(push, { y: "seconds", stroke: "quantile", strokeDasharray: "4,3" }),
      Plot.line(points, { x: "pollS", y: "seconds", stroke: "quantile", marker: "circle" }),
      Plot.text(
        points,
        Plot.selectLast({
          x: "pollS",
          y: "seconds",
          z: "quantile",
          text: "quantile",
          dx: 8,
          textAnchor: "start",
        }),
      ),
      Plot.text(push.slice(0, 1), {
        x: () => 5,
        y: "seconds",
        text: () => "push (wait_for_events)",
        dy: -8,
        textAnchor: "start",
        fill: "#666",
      }),
    ],
  });
}

/** Tokens per session per profile, split into the starting context (grey) and everything after (blue). */
export function profileChart(rows: { profile: string; part: string; tokens: number }[]): string {
  return render({
    width: 640,
    height: 300,
    x: { label: "tokens per session (o200k_base)", grid: true },
    y: { label: null },
    color: { domain: ["tool list + instructions", "results + output"], range: ["#9aa5b1", "#4269d0"] },
    marginLeft: 90,
    marginTop: 30,
    marks: [
      Plot.barX(rows, Plot.stackX({ y: "profile", x: "tokens", fill: "part" })),
      Plot.text(["grey: tool list + instructions (once per session) · blue: results read + output"], {
        frameAnchor: "top-left",
        dy: -18,
        text: (d: string) => d,
        textAnchor: "start",
      }),
      Plot.ruleX([0]),
    ],
  });
}
