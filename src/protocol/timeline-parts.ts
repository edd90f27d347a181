/**
 * The building blocks of the timeline's sentences (protocol/timeline.ts): defensive reads of a payload's fields and
 * the few phrases every sentence shares, with the shapes every timeline module uses (here, so no module of the
 * formatter imports timeline.ts back). A field of the wrong shape reads as absent, never as an error.
 */

/** The filter groups of the timeline: plan and files, messages, people's acts and the wheel, roomd's own notes. */
export const EVENT_KINDS = ["work", "talk", "people", "system"] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** A piece of a sentence: text as it is, an agent or person, an id or path (code), a quotation (title, text). */
export type Part = string | { who: string } | { code: string } | { quote: string };

/** What the formatter needs of an event (a public viewer's events have no payload). */
export interface EventLike {
  type: string;
  from: string;
  to: string;
  payload?: Record<string, unknown>;
  reply_to_id?: string;
  deleted?: { by: string; at?: string };
}

export interface EventLine {
  kind: EventKind;
  parts: Part[];
}

export type Obj = Record<string, unknown>;
/** A full sentence from an event and its payload, or undefined when the fields it needs are missing. */
export type Build = (e: EventLike, p: Obj) => Part[] | undefined;

/** Longest quotation or free text in a sentence; the payload, one click away, has the rest. */
export const TEXT_MAX = 280;
/** Most ids or paths listed in one sentence; the rest are counted. */
const LIST_MAX = 5;

export const obj = (v: unknown): Obj | undefined =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : undefined;

/** A non-empty string, on one line (runs of white space become one space), cut to TEXT_MAX. */
export function str(v: unknown): string | undefined {
  if (typeof v !== "string") return undefined;
  const line = v.replace(/\s+/g, " ").trim();
  if (line === "") return undefined;
  return line.length <= TEXT_MAX ? line : `${line.slice(0, TEXT_MAX - 1)}…`;
}

/** The non-empty strings of an array (anything else: none). */
export const strs = (v: unknown): string[] => (Array.isArray(v) ? v.flatMap((x) => str(x) ?? []) : []);

export const int = (v: unknown): number | undefined => (Number.isSafeInteger(v) ? (v as number) : undefined);

/** `build(value)` when the value is there, else undefined (the short form stands in). */
export const has = <T>(value: T | undefined, build: (value: T) => Part[]): Part[] | undefined =>
  value === undefined ? undefined : build(value);

/** "a, b, c, d, e and 4 more" (ids as given, or each as code). */
export function listed(items: string[], code = false): Part[] {
  const shown = items.slice(0, LIST_MAX);
  const parts: Part[] = [];
  shown.forEach((item, i) => {
    if (i > 0) parts.push(", ");
    parts.push(code ? { code: item } : item);
  });
  if (items.length > shown.length) parts.push(` and ${items.length - shown.length} more`);
  return parts;
}

/** The addressee: an agent or person, everyone (`all`) or any agent (`any`, handoffs). */
export const whom = (to: string): Part =>
  to === "all" ? "everyone" : to === "any" ? "any agent" : { who: to };

/** ": text" when there is text. */
export const saying = (v: unknown): Part[] => has(str(v), (text) => [": ", text]) ?? [];

/** "(text)" after a space, when there is text. */
export const aside = (v: unknown): Part[] => has(str(v), (text) => [` (${text})`]) ?? [];

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A task as "task-7 “Build the cart page”" (the id alone when the title is missing). */
export function taskRef(t: Obj | undefined, id?: unknown): Part[] | undefined {
  const taskId = str(t?.id) ?? str(id);
  if (taskId === undefined) return undefined;
  const title = str(t?.title);
  return title ? [taskId, " ", { quote: title }] : [taskId];
}
