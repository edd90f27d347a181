/**
 * The published JSON Schema of a tool, written the portable way (docs/profiles.md#schemas-every-client-takes).
 * zod's JSON Schema is correct but uses spellings some clients reject: nullable fields as `type` arrays
 * (`["string", "null"]`), `const`, `{}` (any value) under `additionalProperties` or `items`. This rewrites them
 * into what every common model API accepts; the input validation stays the zod schema, so only the published
 * JSON changes. schema-lint.ts checks the result.
 */

/** Keywords that annotate a schema without constraining it: they stay on the outer node when a type splits. */
const ANNOTATIONS = new Set(["description", "title"]);

/** The keywords that apply to values of each JSON type (the others are ignored by a validator for that type). */
const FAMILY: Record<string, string> = {
  pattern: "string",
  minLength: "string",
  maxLength: "string",
  format: "string",
  minimum: "number",
  maximum: "number",
  exclusiveMinimum: "number",
  exclusiveMaximum: "number",
  multipleOf: "number",
  items: "array",
  minItems: "array",
  maxItems: "array",
  properties: "object",
  required: "object",
  additionalProperties: "object",
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);
const isEmpty = (value: unknown) => isObject(value) && Object.keys(value).length === 0;

const typeOf = (value: unknown) => (value === null ? "null" : Array.isArray(value) ? "array" : typeof value);
const fits = (type: string, value: unknown) =>
  type === "integer" ? Number.isInteger(value) : typeOf(value) === type;
const familyOf = (type: string) => (type === "integer" ? "number" : type);

/**
 * `{type: [a, b], …}` as `{anyOf: [{type: a, …a's keywords}, {type: b, …}]}`: each branch keeps the keywords of
 * its type (a nullable string's pattern goes to the string branch), annotations stay outside. The same values
 * validate.
 */
function splitTypes(node: Record<string, unknown>, types: string[]): Record<string, unknown> {
  const outer: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "type") continue;
    (ANNOTATIONS.has(key) ? outer : rest)[key] = value;
  }
  const branches = types.map((type) => {
    const branch: Record<string, unknown> = { type };
    for (const [key, value] of Object.entries(rest)) {
      if (key === "enum") {
        const values = (value as unknown[]).filter((v) => fits(type, v));
        if (values.length > 0) branch.enum = values;
      } else if (FAMILY[key] === undefined || FAMILY[key] === familyOf(type)) branch[key] = value;
    }
    return branch;
  });
  return { ...outer, anyOf: branches };
}

/**
 * Rewrites one node and its subschemas:
 * - `$schema` and `propertyNames` (zod's `{type: "string"}` for record keys, which JSON keys always are) go;
 * - `{}` as `additionalProperties` or `items` goes: absent means the same (any value), and an empty schema is
 *   what clients flag as unconstrained;
 * - a `type` array becomes `anyOf` with one `type` per branch (the portable nullable);
 * - `const: v` becomes `enum: [v]` (Gemini's schema has no `const`);
 * - zod's bounds of every integer, ±Number.MAX_SAFE_INTEGER, go: they constrain nothing a JSON number in practice
 *   exceeds, and cost ~900 tokens over the full list.
 */
export function portable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(portable);
  if (!isObject(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$schema" || key === "propertyNames") continue;
    if ((key === "additionalProperties" || key === "items") && isEmpty(value)) continue;
    if (key === "minimum" && value === Number.MIN_SAFE_INTEGER) continue;
    if (key === "maximum" && value === Number.MAX_SAFE_INTEGER) continue;
    if (key === "const") {
      out.enum = [value];
      continue;
    }
    out[key] = key === "properties" ? mapValues(value, portable) : portable(value);
  }
  return Array.isArray(out.type) ? splitTypes(out, out.type as string[]) : out;
}

/** A `properties` map: its keys are names, not keywords, so only its values are rewritten. */
function mapValues(value: unknown, fn: (v: unknown) => unknown): unknown {
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([name, v]) => [name, fn(v)]));
}
