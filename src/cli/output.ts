/**
 * How roomctl prints: JSON for machines (`--json`: valid JSON, listings as arrays), aligned tables and short lines
 * for people. Colour only when the stream is a terminal and NO_COLOR is unset or empty (https://no-color.org).
 * Every value that comes from the server is cleaned of control characters before it reaches a terminal, so text an
 * agent wrote cannot move the cursor, change colours or rewrite the screen.
 */

type Stream = { isTTY?: boolean; write(text: string): unknown };

/** True when `stream` may carry colour: a terminal, and NO_COLOR unset or empty. */
export function colourOn(stream: Stream = process.stdout, env = process.env): boolean {
  return stream.isTTY === true && (env.NO_COLOR ?? "") === "";
}

const CODES = { bold: 1, dim: 2, red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36 } as const;
export type Style = keyof typeof CODES;

/** `text` in a style, when stdout may carry colour. */
export const paint = (style: Style, text: string): string =>
  colourOn() ? `\u001b[${CODES[style]}m${text}\u001b[0m` : text;

/** One line of server-provided text, safe for a terminal: control characters become spaces. */
export const clean = (value: unknown): string =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed.
  String(value ?? "").replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ");

/** At most `max` characters, with an ellipsis when cut. */
export const cut = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;

export const out = (text: string): void => {
  process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
};

/** Pretty JSON on stdout (one document; --json outputs). */
export const printJson = (value: unknown): void => out(JSON.stringify(value, null, 2));

/** An ISO time as local `YYYY-MM-DD HH:MM:SS` (empty for none). */
export function when(value: unknown): string {
  if (typeof value !== "string" || value === "") return "";
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return clean(value);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** A column: its heading, how to read a row, and an optional style for its cells. */
export interface Column<T> {
  head: string;
  get(row: T): unknown;
  style?: (row: T) => Style | undefined;
  /** Cut cells to this many characters (the last column is never padded). */
  max?: number;
}

/** An aligned table with a heading line; `empty` is printed instead when there are no rows. */
export function table<T>(rows: T[], columns: Column<T>[], empty: string): void {
  if (rows.length === 0) {
    out(empty);
    return;
  }
  const cells = rows.map((row) => columns.map((c) => cut(clean(c.get(row)), c.max ?? 200)));
  const widths = columns.map((c, i) => Math.max(c.head.length, ...cells.map((r) => (r[i] as string).length)));
  const line = (parts: string[], styles: (Style | undefined)[]) =>
    parts
      .map((text, i) => {
        const padded = i === parts.length - 1 ? text : text.padEnd(widths[i] as number);
        const style = styles[i];
        return style && text !== "" ? paint(style, padded) : padded;
      })
      .join("  ")
      .trimEnd();
  const lines = [
    line(
      columns.map((c) => c.head),
      columns.map(() => "bold" as const),
    ),
    ...cells.map((parts, r) =>
      line(
        parts,
        columns.map((c) => c.style?.(rows[r] as T)),
      ),
    ),
  ];
  out(lines.join("\n"));
}

/** `key: value` lines for one record, keys aligned (absent values left out). */
export function fields(pairs: [string, unknown][]): void {
  const shown = pairs.filter(([, v]) => v !== undefined && v !== null && v !== "");
  const width = Math.max(0, ...shown.map(([k]) => k.length));
  out(shown.map(([k, v]) => `${paint("bold", `${k}:`.padEnd(width + 1))} ${clean(v)}`).join("\n"));
}

/** A task or approval status, coloured by what it means. */
export function statusStyle(status: unknown): Style | undefined {
  switch (status) {
    case "done":
    case "approved":
    case "accepted":
    case "pass":
      return "green";
    case "in_progress":
    case "pending":
    case "offered":
      return "yellow";
    case "blocked":
    case "rejected":
    case "fail":
    case "declined":
      return "red";
    default:
      return "dim";
  }
}
