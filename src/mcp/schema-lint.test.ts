/**
 * Every profile's tools/list passes the schema lint with no finding, and the lint catches each kind of finding
 * (so the first test cannot pass because the lint finds nothing). The published-schema rewrite (portable-schema.ts)
 * keeps the values a schema accepts.
 */
import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { CATALOG, jsonSchema } from "./catalog.ts";
import { portable } from "./portable-schema.ts";
import { lintSchema, lintTools } from "./schema-lint.ts";
import { PROFILES } from "./tool.ts";

const object = (properties: Record<string, unknown>) => ({
  type: "object",
  properties,
  additionalProperties: false,
});
const rules = (schema: unknown, kind: "input" | "output" = "input") =>
  lintSchema(schema, kind).map((f) => `${f.rule} ${f.path}`);

describe("every profile's listing passes the schema lint (docs/profiles.md#schemas-every-client-takes)", () => {
  for (const profile of PROFILES) {
    test(profile, () => {
      const listing = CATALOG.listing(profile);
      expect(listing.length).toBeGreaterThan(0);
      const findings = lintTools(listing).map((f) => `${f.tool} ${f.schema} ${f.path}: ${f.message}`);
      expect(findings).toEqual([]);
    });
  }
});

describe("the lint catches each kind of finding", () => {
  test("a clean schema has no finding", () => {
    const clean = object({
      name: { type: "string", pattern: "^[a-z]+$", minLength: 1, maxLength: 9, description: "A name." },
      count: { type: "integer", minimum: 0, maximum: 10 },
      tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, maxItems: 3 },
      owner: { anyOf: [{ type: "string" }, { type: "null" }], description: "null to unassign" },
    });
    expect(rules(clean)).toEqual([]);
    expect(rules(clean, "output")).toEqual([]);
  });

  test("a type array, nested, with its JSON Pointer", () => {
    const schema = object({ plan: object({ "a/b": { type: ["string", "null"] } }) });
    expect(rules(schema)).toEqual(["type-array #/properties/plan/properties/a~1b/type"]);
  });

  test("unconstrained schemas: {}, only a description, a bare true", () => {
    const schema = object({
      any: {},
      described: { description: "anything" },
      list: { type: "array", items: true },
    });
    expect(rules(schema)).toEqual([
      "unconstrained #/properties/any",
      "unconstrained #/properties/described",
      "unconstrained #/properties/list/items",
    ]);
  });

  test("keywords outside the subset, each named", () => {
    const schema = object({
      a: { type: "string", const: "x" },
      b: { type: "string", format: "date-time", default: "now" },
      c: { oneOf: [{ type: "string" }, { type: "integer" }] },
      d: { type: "string", nullable: true },
      e: { type: "number", exclusiveMinimum: 0, "x-custom": 1 },
    });
    expect(rules(schema)).toEqual([
      "keyword #/properties/a/const",
      "keyword #/properties/b/format",
      "keyword #/properties/b/default",
      "keyword #/properties/c/oneOf",
      "keyword #/properties/d/nullable",
      "keyword #/properties/e/exclusiveMinimum",
      "keyword #/properties/e/x-custom",
    ]);
  });

  test("null only as an anyOf branch; type names must exist", () => {
    const schema = object({ gone: { type: "null" }, odd: { type: "date" } });
    expect(rules(schema)).toEqual(["null-type #/properties/gone/type", "unknown-type #/properties/odd/type"]);
  });

  test("the root is an object without anyOf", () => {
    expect(rules({ type: "string" })).toEqual(["root #"]);
    expect(rules({ type: "object", anyOf: [object({})] })).toContain("root #");
  });

  test("inputs only: enum values are strings, arrays declare their items", () => {
    const schema = object({ level: { type: "integer", enum: [1, 2] }, list: { type: "array" } });
    expect(rules(schema)).toEqual(["enum #/properties/level/enum", "array-items #/properties/list"]);
    expect(rules(schema, "output")).toEqual([]);
  });
});

describe("the published rewrite keeps what a schema accepts", () => {
  test("a nullable field becomes anyOf, each keyword on its type's branch, annotations outside", () => {
    const node = portable({ type: ["string", "null"], pattern: "^a$", description: "d" });
    expect(node).toEqual({ description: "d", anyOf: [{ type: "string", pattern: "^a$" }, { type: "null" }] });
  });

  test("const becomes a one-value enum; {} under items and additionalProperties goes", () => {
    expect(portable({ type: "boolean", const: true })).toEqual({ type: "boolean", enum: [true] });
    expect(portable({ type: "array", items: {} })).toEqual({ type: "array" });
    expect(portable({ type: "object", additionalProperties: {} })).toEqual({ type: "object" });
  });

  test("a property named like a keyword is kept", () => {
    const schema = z.object({ const: z.string(), type: z.string().nullable() });
    const published = jsonSchema(schema, "input") as { properties: Record<string, unknown> };
    expect(Object.keys(published.properties)).toEqual(["const", "type"]);
    expect(published.properties.type).toEqual({ anyOf: [{ type: "string" }, { type: "null" }] });
  });

  test("zod's nullable outputs lint clean once published", () => {
    const schema = z.object({
      owner: z.string().nullable(),
      priority: z.number().nullable(),
      ok: z.literal(true),
    });
    expect(rules(z.toJSONSchema(schema, { io: "output" }), "output").length).toBeGreaterThan(0);
    expect(rules(jsonSchema(schema, "output"), "output")).toEqual([]);
  });
});
