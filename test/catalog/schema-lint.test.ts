/**
 * The schema lint: what every tool of the catalog must declare, checked on the published tools/list schemas so a
 * new tool is held to it without editing this file. Clients drop or warn on tools with untyped properties, and
 * models copy ids better when the schema says their shape.
 */
import { describe, expect, test } from "bun:test";
import { CATALOG, jsonSchema } from "../../src/mcp/catalog.ts";
import { isMutating, PROFILES } from "../../src/mcp/tool.ts";

type Json = Record<string, any>;

/** Every schema node reachable from a property, with its path. */
function* nodes(node: Json, path: string): Generator<[string, Json]> {
  yield [path, node];
  for (const [name, child] of Object.entries((node.properties ?? {}) as Record<string, Json>)) {
    yield* nodes(child, `${path}.${name}`);
  }
  if (node.items && typeof node.items === "object") yield* nodes(node.items, `${path}[]`);
  for (const branch of (node.anyOf ?? []) as Json[]) yield* nodes(branch, `${path}|`);
}

/** Argument names that carry an id and must publish its pattern. */
const ID_NAME = /^(id|roomId|from|to|author|owner|depends_on|consuming_agents|[a-z]+Id|[a-z]+Ids)$/;

const typed = (node: Json) =>
  typeof node.type === "string" ||
  (Array.isArray(node.anyOf) && node.anyOf.every((b: Json) => typeof b.type === "string"));

describe("schema lint (docs/architecture.md#the-tool-catalog)", () => {
  for (const tool of CATALOG.tools) {
    test(tool.name, () => {
      const problems: string[] = [];
      const input = jsonSchema(tool.input, "input");
      if (tool.title.trim() === "") problems.push("no title");
      if (tool.description.length < 40) problems.push("description shorter than 40 chars");
      if (!/^[a-z][a-z0-9_]{1,63}$/.test(tool.name)) problems.push("name is not snake_case");
      for (const [path, node] of nodes(input, "input")) {
        if (path === "input") continue;
        if (!typed(node)) problems.push(`${path}: no JSON Schema type`);
      }
      const props = (input.properties ?? {}) as Record<string, Json>;
      for (const [name, prop] of Object.entries(props)) {
        if (!prop.description) problems.push(`${name}: no description`);
        // Only the acting agent is "your" agent id; addressees and filters say whose they are.
        if (/^Your agent id/.test(prop.description ?? "") && !tool.acting.includes(name)) {
          problems.push(`${name}: described as your agent id but not an acting argument`);
        }
        if (ID_NAME.test(name)) {
          const pattern =
            prop.pattern ?? prop.items?.pattern ?? prop.anyOf?.find((b: Json) => b.pattern)?.pattern;
          if (!pattern) problems.push(`${name}: an id without a pattern`);
        }
      }
      for (const field of [...tool.acting, ...tool.filters, ...tool.addressees]) {
        if (!(field in props)) problems.push(`declares ${field}, which is not an argument`);
      }
      if (tool.room !== "roomId" in props)
        problems.push(tool.room ? "room tool without roomId" : "roomId on a tool without a room");
      if (isMutating(tool) !== "idempotencyKey" in props)
        problems.push("idempotencyKey must be exactly on mutating tools");
      if (tool.profiles.some((p) => !PROFILES.includes(p))) problems.push("unknown profile");
      if (tool.output) {
        const output = jsonSchema(tool.output, "output");
        if (output.type !== "object") problems.push("output schema is not an object");
      }
      expect(problems).toEqual([]);
    });
  }

  test("every tool of the protocol is in the full profile, every other tool in its own profile; names are unique", () => {
    // The compact and agentroom tools are other views of the same operations, listed only in their profile.
    const protocol = CATALOG.tools.filter((t) => t.context === "arguments");
    expect(CATALOG.listing("full").map((t) => t.name)).toEqual(protocol.map((t) => t.name));
    for (const tool of CATALOG.tools) expect(tool.profiles.length, tool.name).toBeGreaterThan(0);
    expect(new Set(CATALOG.tools.map((t) => t.name)).size).toBe(CATALOG.tools.length);
  });

  test("annotations follow the declared effect", () => {
    for (const listed of CATALOG.listing("full")) {
      const tool = CATALOG.get(listed.name)!;
      expect(listed.annotations.readOnlyHint, tool.name).toBe(tool.effect === "read");
      expect(listed.annotations.destructiveHint, tool.name).toBe(tool.effect === "destructive");
      expect(listed.title, tool.name).toBe(tool.title);
    }
  });
});
