/**
 * Canonical JSON, after RFC 8785 (JSON Canonicalization Scheme): one exact text for a JSON value, so a hash of it
 * names the value and not the way it happened to be written.
 *
 * - Object members sorted by key, comparing the keys' UTF-16 code units (JavaScript's default string order), at
 *   every depth; members whose value is undefined are left out (as JSON.stringify does).
 * - No whitespace anywhere.
 * - Strings and numbers as ECMAScript's JSON.stringify writes them: the shortest round-tripping number form
 *   (1e+21, 0.1, -0 as 0), strings with only `"`, `\` and control characters escaped (\b \f \n \r \t, others as
 *   \u00XX) and lone surrogates as \uDXXX — which is what RFC 8785 prescribes.
 * - Non-finite numbers have no JSON form: they are refused, never written as null.
 */

/** The canonical text of a JSON value (objects, arrays, strings, finite numbers, booleans, null). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`canonical JSON: ${value} is not a JSON number`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map((item) => (item === undefined ? "null" : canonicalJson(item))).join(",")}]`;
  }
  if (typeof value === "object") {
    const record = value as Record<string, unknown>;
    const members: string[] = [];
    for (const key of Object.keys(record).sort()) {
      const item = record[key];
      if (item === undefined) continue;
      members.push(`${JSON.stringify(key)}:${canonicalJson(item)}`);
    }
    return `{${members.join(",")}}`;
  }
  throw new TypeError(`canonical JSON: a ${typeof value} is not a JSON value`);
}

/** sha256 of a text (UTF-8), lowercase hex. */
export function sha256Hex(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}
