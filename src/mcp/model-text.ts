/**
 * The text a model reads of a tool's result, on the model-facing profiles (compact, agentroom; docs/profiles.md
 * "What a result says"). The exact value goes to programs as structuredContent; the text says the same things in
 * fewer tokens, so nothing is said twice:
 *
 * - an object is one `key: value` line per field; a list of records is one line per record, `- k=v k=v …`; a list
 *   of plain values is comma-separated; anything deeper is compact JSON, and what an agent or person wrote (a
 *   payload, details, a shared variable's value, a task's changes) is always its exact JSON; the payloads of events
 *   roomd writes itself hold roomd's records, cleaned by the same rules;
 * - a field that is null, empty or absent is left out (absent means none: a task without `owner` has no owner),
 *   except an empty list at the top level of the answer, which says `none` (`conflicts: none`, `tasks: none`);
 * - fields an agent never acts on are left out: who has read an event (`read_by`), creation and update times and
 *   event timestamps (versions, seqs and statuses say what changed), presence's `lastSeen` (`status` says whether
 *   an agent is online) and a plan's `project` (the room it was asked for);
 * - everything needed to act next stays: ids, versions (to pass back as expectedVersion), owners, holders,
 *   statuses, expiry times, seqs, counts, the cursor and `remaining`, `timedOut`, `replayed`.
 */

import { ROOMD_EVENT_TYPES } from "../protocol/event-types.ts";

/** Fields no agent acts on (the value keeps them for programs). */
const UNREAD_FIELDS: ReadonlySet<string> = new Set([
  "read_by",
  "created_at",
  "updated_at",
  "timestamp",
  "lastSeen",
  "project",
]);

/** Fields holding what an agent or person wrote: always their exact JSON, every field kept. */
const VERBATIM_FIELDS: ReadonlySet<string> = new Set(["payload", "details", "value", "changes"]);

type Json = unknown;

const isRecord = (v: Json): v is Record<string, Json> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** Left out of the text: null, undefined, "" and empty lists or objects. */
const isEmpty = (v: Json): boolean =>
  v === null ||
  v === undefined ||
  v === "" ||
  (Array.isArray(v) && v.length === 0) ||
  (isRecord(v) && Object.keys(v).length === 0);

/** The fields of a record worth a model's tokens, in their order. */
const kept = (record: Record<string, Json>): [string, Json][] =>
  Object.entries(record).filter(([k, v]) => !UNREAD_FIELDS.has(k) && !isEmpty(v));

/** A string as it stands on a `key: value` line: bare unless it spans lines or has edge spaces. */
function lineString(s: string): string {
  return /[\n\r]/.test(s) || s.trim() !== s ? JSON.stringify(s) : s;
}

/** A string inside `k=v`: bare when it has no space, `=`, quote or comma, else quoted. */
function wordString(s: string): string {
  return /^[^\s=",]+$/.test(s) ? s : JSON.stringify(s);
}

const scalar = (v: Json, word: boolean): string | undefined => {
  if (typeof v === "string") return word ? wordString(v) : lineString(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return undefined;
};

/** A list of plain values, comma-separated; undefined when the list holds anything else. */
function plainList(list: Json[]): string | undefined {
  const parts: string[] = [];
  for (const item of list) {
    const s = scalar(item, true);
    if (s === undefined) return undefined;
    parts.push(s);
  }
  return parts.join(", ");
}

/** Compact JSON of a value. */
const json = (v: Json): string => JSON.stringify(v);

/**
 * A record roomd wrote, inside an event's payload (a task_claimed's task, a handoff), cleaned like the text's own
 * fields: unread, null and empty fields go; what an agent or person wrote inside it stays exact.
 */
function cleaned(value: Json): Json {
  if (Array.isArray(value)) return value.map(cleaned);
  if (!isRecord(value)) return value;
  return Object.fromEntries(kept(value).map(([k, v]) => [k, VERBATIM_FIELDS.has(k) ? v : cleaned(v)]));
}

/** An event's payload: roomd's own events' payloads cleaned, an agent's payload exactly as posted. */
const payloadOf = (record: Record<string, Json>, payload: Json): Json =>
  typeof record.type === "string" && ROOMD_EVENT_TYPES.has(record.type) ? cleaned(payload) : payload;

/** One record on one line: `k=v k=v`, deeper values as compact JSON. */
function recordLine(record: Record<string, Json>): string {
  return kept(record)
    .map(([k, v]) => {
      if (k === "payload" && isRecord(v)) return `${k}=${json(payloadOf(record, v))}`;
      const s = scalar(v, true) ?? (Array.isArray(v) ? plainList(v) : undefined);
      return `${k}=${s === undefined ? json(cleaned(v)) : Array.isArray(v) ? `[${s}]` : s}`;
    })
    .join(" ");
}

/** A list: plain values comma-separated, records one `- ` line each, anything else as JSON. */
function listLines(list: Json[], indent: string): string[] {
  if (list.every(isRecord))
    return list.map((item) => `${indent}- ${recordLine(item as Record<string, Json>)}`);
  const plain = plainList(list);
  return [`${indent}${plain ?? json(list)}`];
}

/**
 * A record's fields, one line each, nested records indented below their key. At the top level an empty list
 * says `none` (an empty plan, no conflicts); deeper down, and null or empty values anywhere, are left out.
 */
function fieldLines(record: Record<string, Json>, indent: string): string[] {
  const lines: string[] = [];
  const entries =
    indent === "" ? Object.entries(record).filter(([k]) => !UNREAD_FIELDS.has(k)) : kept(record);
  for (const [key, value] of entries) {
    const s = scalar(value, false);
    if (s !== undefined) lines.push(`${indent}${key}: ${s}`);
    else if (isEmpty(value)) {
      if (Array.isArray(value)) lines.push(`${indent}${key}: none`);
    } else if (VERBATIM_FIELDS.has(key)) lines.push(`${indent}${key}: ${json(value)}`);
    else if (Array.isArray(value)) {
      const plain = plainList(value);
      if (plain !== undefined) lines.push(`${indent}${key}: ${plain}`);
      else lines.push(`${indent}${key}:`, ...listLines(value, `${indent}  `));
    } else lines.push(`${indent}${key}:`, ...fieldLines(value as Record<string, Json>, `${indent}  `));
  }
  return lines;
}

/** The model's text of a tool's result value. */
export function modelText(value: Json): string {
  if (Array.isArray(value)) return value.length === 0 ? "(none)" : listLines(value, "").join("\n");
  if (isRecord(value)) {
    const lines = fieldLines(value, "");
    return lines.length === 0 ? "(nothing)" : lines.join("\n");
  }
  return scalar(value, false) ?? json(value);
}

/**
 * The structuredContent of a result on a model-facing profile: the value itself when it is an object, else (a
 * list) `{items: value}` — MCP's structuredContent is always an object.
 */
export function structuredOf(value: Json): Record<string, unknown> {
  return isRecord(value) ? value : { items: value };
}
