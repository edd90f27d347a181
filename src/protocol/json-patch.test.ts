import { describe, expect, test } from "bun:test";
import { applyPatch, jsonEqual } from "../../test/support/json-patch-apply.ts";
import { below, pick, prng } from "../../test/support/prng.ts";
import { mutateJson, PRIMITIVES, randomJson, randomLeaf } from "../../test/support/random-json.ts";
import { diffJson, LCS_MAX_CELLS, type Operation } from "./json-patch.ts";

const parse = (text: string): unknown => JSON.parse(text);

/** diffJson's patch, checked by the independent apply: it must turn `from` into `to` and change neither. */
function roundTrip(from: unknown, to: unknown): Operation[] {
  const snapshot = JSON.stringify([from, to]);
  const ops = diffJson(from, to);
  const applied = applyPatch(from, ops);
  if (!jsonEqual(applied, to)) {
    throw new Error(
      `patch ${JSON.stringify(ops)} gives ${JSON.stringify(applied)}, not ${JSON.stringify(to)}`,
    );
  }
  expect(JSON.stringify([from, to])).toBe(snapshot);
  return ops;
}

describe("diffJson: hand cases", () => {
  test.each<[string, unknown, unknown, Operation[]]>([
    ["identical", { a: [1, { b: null }] }, { a: [1, { b: null }] }, []],
    ["object becomes array at the root", {}, [], [{ op: "replace", path: "", value: [] }]],
    ["number becomes string at the root", 1, "1", [{ op: "replace", path: "", value: "1" }]],
    ["null becomes object at the root", null, { a: 1 }, [{ op: "replace", path: "", value: { a: 1 } }]],
    [
      "keys with / and ~",
      { "a/b": 1, "~": 2, "~1": 3 },
      { "a/b": 2, "~": 3 },
      [
        { op: "remove", path: "/~01" },
        { op: "replace", path: "/a~1b", value: 2 },
        { op: "replace", path: "/~0", value: 3 },
      ],
    ],
    ["the empty key", { "": 1 }, { "": 2 }, [{ op: "replace", path: "/", value: 2 }]],
    ["null vs missing (remove)", { a: null }, {}, [{ op: "remove", path: "/a" }]],
    ["null vs missing (add)", {}, { a: null }, [{ op: "add", path: "/a", value: null }]],
    ["null vs 0", { a: null }, { a: 0 }, [{ op: "replace", path: "/a", value: 0 }]],
    ["number vs string", { a: 1 }, { a: "1" }, [{ op: "replace", path: "/a", value: "1" }]],
    ["array grows", [1, 2], [1, 2, 3], [{ op: "add", path: "/2", value: 3 }]],
    [
      "array shrinks, removed from the end",
      [1, 2, 3],
      [1],
      [
        { op: "remove", path: "/2" },
        { op: "remove", path: "/1" },
      ],
    ],
    ["insert in the middle", [1, 2, 3], [1, 9, 2, 3], [{ op: "add", path: "/1", value: 9 }]],
    ["remove from the middle", [1, 2, 3], [1, 3], [{ op: "remove", path: "/1" }]],
    [
      "reorder: last to first",
      [1, 2, 3],
      [3, 1, 2],
      [
        { op: "add", path: "/0", value: 3 },
        { op: "remove", path: "/3" },
      ],
    ],
    [
      "changed element inside an array inside an object",
      {
        a: {
          list: [
            { id: 1, v: "x" },
            { id: 2, v: "y" },
          ],
        },
      },
      {
        a: {
          list: [
            { id: 1, v: "x" },
            { id: 2, v: "z" },
          ],
        },
      },
      [{ op: "replace", path: "/a/list/1/v", value: "z" }],
    ],
    [
      "insert next to a changed element: paired by position within the changed stretch",
      ["k", { n: 1 }, "m", "e"],
      ["k", "new", { n: 2 }, "m", "e"],
      [
        { op: "replace", path: "/1", value: "new" },
        { op: "add", path: "/2", value: { n: 2 } },
      ],
    ],
    [
      "equal objects with keys in another order still align",
      [{ a: 1, b: 2 }, "x"],
      ["new", { b: 2, a: 1 }, "x"],
      [{ op: "add", path: "/0", value: "new" }],
    ],
    ["nested arrays", [[1, [2]], 3], [[1, [2, 4]], 3], [{ op: "add", path: "/0/1/1", value: 4 }]],
    [
      '"__proto__" is an ordinary key',
      parse('{"__proto__": {"x": 1}}'),
      parse('{"__proto__": {"x": 2}, "y": 1}'),
      [
        { op: "replace", path: "/__proto__/x", value: 2 },
        { op: "add", path: "/y", value: 1 },
      ],
    ],
  ])("%s", (_name, from, to, expected) => {
    expect(roundTrip(from, to)).toEqual(expected);
  });

  test("values in the patch are copies", () => {
    const to = { a: { deep: [1] }, b: [{ c: 1 }] };
    const ops = diffJson({ b: [] }, to);
    for (const op of ops) if ("value" in op) (op.value as { mutated?: boolean }).mutated = true;
    expect(to).toEqual({ a: { deep: [1] }, b: [{ c: 1 }] });
  });

  test("refuses values that are not JSON, and nesting past the guard", () => {
    for (const bad of [
      undefined,
      Number.NaN,
      Infinity,
      new Date(0),
      new Map(),
      () => 1,
      1n,
      { a: [undefined] },
    ]) {
      expect(() => diffJson(bad, 1)).toThrow(TypeError);
      expect(() => diffJson(1, bad)).toThrow(TypeError);
    }
    let deep: unknown = 1;
    for (let i = 0; i < 70; i++) deep = [deep];
    expect(() => diffJson(deep, 1)).toThrow(RangeError);
  });

  test("long arrays: small patch under the LCS cap, correct patch past it", () => {
    const long = (n: number) => Array.from({ length: n }, (_, i) => `item-${i}`);
    const under = long(400);
    const underTo = ["first", ...under.slice(0, 200), "inserted", ...under.slice(200), "last"];
    expect(roundTrip(under, underTo)).toHaveLength(3);
    const over = long(600);
    expect(600 * 600).toBeGreaterThan(LCS_MAX_CELLS);
    roundTrip(["x", ...over, "y"], ["z", ...over.slice(0, 300), "inserted", ...over.slice(300), "w"]);
  });
});

describe("diffJson: randomised against the independent apply", () => {
  test("one changed leaf gives exactly one replace at its path", () => {
    const random = prng(6901);
    let checked = 0;
    for (let n = 0; n < 2000; n++) {
      const from = randomJson(random, 6);
      const path = randomLeaf(random, from);
      const value = pick(random, PRIMITIVES);
      const to = applyPatch(from, [{ op: "replace", path, value }]);
      if (jsonEqual(from, to)) continue;
      expect(roundTrip(from, to)).toEqual([{ op: "replace", path, value }]);
      checked++;
    }
    expect(checked).toBeGreaterThan(1500);
  });

  test("random pairs and mutated pairs round-trip; equal values give []", () => {
    const random = prng(6902);
    let pairs = 0;
    let totalOps = 0;
    for (let n = 0; n < 3000; n++) {
      const from = randomJson(random, 6);
      let to = n < 1000 ? randomJson(random, 6) : from;
      for (let k = n < 1000 ? 0 : 1 + below(random, 3); k > 0; k--) to = mutateJson(random, to, 6);
      const ops = roundTrip(from, to);
      expect(
        ops.every((op) => ["add", "remove", "replace"].includes(op.op) && !op.path.split("/").includes("-")),
      ).toBe(true);
      expect(diffJson(from, JSON.parse(JSON.stringify(from)))).toEqual([]);
      expect(diffJson(to, to)).toEqual([]);
      if (n >= 1000) totalOps += ops.length;
      pairs++;
    }
    expect(pairs).toBeGreaterThanOrEqual(2000);
    expect(totalOps / 2000).toBeLessThan(3); // edits of a common base give small patches, not rewrites
  });
});
