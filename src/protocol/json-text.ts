/**
 * Records whose JSON text is already known, so answers made of them are serialised without serialising them again.
 *
 * A store that decodes the same stored record again and again (a 100-task plan read on every read_plan) keeps the
 * decoded record together with its JSON text: `knownJson` freezes the record (it is shared by every answer that
 * holds it, so nobody may change it) and remembers its text. `jsonText` then serialises an answer by joining the
 * remembered texts of the records it holds with the serialisation of everything else — byte for byte what
 * `JSON.stringify` gives — and also gives the answer's text escaped as the inside of a JSON string (what the
 * MCP text content of the answer is inside the JSON-RPC response), also from remembered pieces.
 */

/** An answer's JSON, and the same text escaped as the body of a JSON string literal (without the quotes). */
export interface JsonText {
  raw: string;
  escaped: string;
}

const known = new WeakMap<object, JsonText>();

/** The body of `text` as a JSON string literal: JSON.stringify(text) without its quotes. */
const asStringBody = (text: string): string => JSON.stringify(text).slice(1, -1);

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}

/**
 * Freezes `value` (deeply) and remembers its serialisation. Its text is computed here, once, with JSON.stringify,
 * so it is exactly what serialising the record would give; `stored` is the text it was decoded from, if any.
 */
export function knownJson<T extends object>(value: T, stored?: string): T {
  deepFreeze(value);
  const computed = JSON.stringify(value);
  // The text it was decoded from, when equal, is kept instead (one copy less).
  const raw = computed === stored ? stored : computed;
  known.set(value, { raw, escaped: asStringBody(raw) });
  return value;
}

const isPlainObject = (value: object): boolean => {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/** Whether `value` is an array or plain object holding a remembered record (itself, an element, a property). */
function holdsKnown(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== "object") return false;
  if (known.has(value)) return true;
  if (depth === 0) return false;
  if (Array.isArray(value)) return value.some((item) => holdsKnown(item, depth - 1));
  if (!isPlainObject(value)) return false;
  for (const key in value) if (holdsKnown((value as Record<string, unknown>)[key], depth - 1)) return true;
  return false;
}

/** How deep remembered records are looked for: an answer's records, or a list of them inside an answer object. */
const DEPTH = 2;

/**
 * Serialises `value` exactly as JSON.stringify does (undefined, functions and symbols left out of objects, null in
 * arrays), remembered records by their remembered text. Walks arrays and plain objects down to DEPTH levels;
 * below that, and for anything else, JSON.stringify serialises.
 */
function write(value: unknown, depth: number, raw: string[], escaped: string[]): void {
  if (value !== null && typeof value === "object") {
    const text = known.get(value);
    if (text) {
      raw.push(text.raw);
      escaped.push(text.escaped);
      return;
    }
    const plain = typeof (value as { toJSON?: unknown }).toJSON !== "function";
    if (depth > 0 && plain && Array.isArray(value)) {
      raw.push("[");
      escaped.push("[");
      for (let i = 0; i < value.length; i++) {
        if (i > 0) {
          raw.push(",");
          escaped.push(",");
        }
        const item = value[i];
        if (item === undefined || typeof item === "function" || typeof item === "symbol") {
          raw.push("null");
          escaped.push("null");
        } else {
          write(item, depth - 1, raw, escaped);
        }
      }
      raw.push("]");
      escaped.push("]");
      return;
    }
    if (depth > 0 && plain && isPlainObject(value)) {
      raw.push("{");
      escaped.push("{");
      let first = true;
      for (const key of Object.keys(value)) {
        const item = (value as Record<string, unknown>)[key];
        if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
        const name = `${first ? "" : ","}${JSON.stringify(key)}:`;
        raw.push(name);
        escaped.push(asStringBody(name));
        first = false;
        write(item, depth - 1, raw, escaped);
      }
      raw.push("}");
      escaped.push("}");
      return;
    }
  }
  const text = JSON.stringify(value);
  raw.push(text);
  escaped.push(asStringBody(text));
}

/**
 * `value`'s JSON, exactly as JSON.stringify gives it, and its escaped form; undefined when JSON.stringify gives
 * none (undefined, a function). Answers holding no remembered record are serialised by JSON.stringify directly.
 */
export function jsonText(value: unknown): JsonText | undefined {
  if (!holdsKnown(value, DEPTH)) {
    const raw = JSON.stringify(value) as string | undefined;
    if (raw === undefined) return undefined;
    // Escaped only when asked for: small answers are not spliced (server.ts).
    return {
      raw,
      get escaped() {
        return asStringBody(raw);
      },
    };
  }
  const raw: string[] = [];
  const escaped: string[] = [];
  write(value, DEPTH + 1, raw, escaped);
  return { raw: raw.join(""), escaped: escaped.join("") };
}
