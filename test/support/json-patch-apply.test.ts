/**
 * The independent apply is the oracle for diffJson's tests, so it is checked on its own: the examples of
 * RFC 6902 Appendix A, and the errors the RFC requires.
 */
import { describe, expect, test } from "bun:test";
import { applyPatch, jsonEqual, PatchError } from "./json-patch-apply.ts";

describe("applyPatch: RFC 6902 Appendix A", () => {
  test.each([
    [
      "A.1 add an object member",
      { foo: "bar" },
      [{ op: "add", path: "/baz", value: "qux" }],
      { foo: "bar", baz: "qux" },
    ],
    [
      "A.2 add an array element",
      { foo: ["bar", "baz"] },
      [{ op: "add", path: "/foo/1", value: "qux" }],
      { foo: ["bar", "qux", "baz"] },
    ],
    [
      "A.3 remove an object member",
      { baz: "qux", foo: "bar" },
      [{ op: "remove", path: "/baz" }],
      { foo: "bar" },
    ],
    [
      "A.4 remove an array element",
      { foo: ["bar", "qux", "baz"] },
      [{ op: "remove", path: "/foo/1" }],
      { foo: ["bar", "baz"] },
    ],
    [
      "A.5 replace a value",
      { baz: "qux", foo: "bar" },
      [{ op: "replace", path: "/baz", value: "boo" }],
      { baz: "boo", foo: "bar" },
    ],
    [
      "A.6 move a value",
      { foo: { bar: "baz", waldo: "fred" }, qux: { corge: "grault" } },
      [{ op: "move", from: "/foo/waldo", path: "/qux/thud" }],
      { foo: { bar: "baz" }, qux: { corge: "grault", thud: "fred" } },
    ],
    [
      "A.7 move an array element",
      { foo: ["all", "grass", "cows", "eat"] },
      [{ op: "move", from: "/foo/1", path: "/foo/3" }],
      { foo: ["all", "cows", "eat", "grass"] },
    ],
    [
      "A.8 test a value",
      { baz: "qux", foo: ["a", 2, "c"] },
      [
        { op: "test", path: "/baz", value: "qux" },
        { op: "test", path: "/foo/1", value: 2 },
      ],
      { baz: "qux", foo: ["a", 2, "c"] },
    ],
    [
      "A.10 add a nested member object",
      { foo: "bar" },
      [{ op: "add", path: "/child", value: { grandchild: {} } }],
      { foo: "bar", child: { grandchild: {} } },
    ],
    [
      "A.11 ignore unrecognised members",
      { foo: "bar" },
      [{ op: "add", path: "/baz", value: "qux", xyz: 123 }],
      { foo: "bar", baz: "qux" },
    ],
    [
      "A.14 ~ escape ordering",
      { "/": 9, "~1": 10 },
      [{ op: "test", path: "/~01", value: 10 }],
      { "/": 9, "~1": 10 },
    ],
    [
      "A.16 add an array value",
      { foo: ["bar"] },
      [{ op: "add", path: "/foo/-", value: ["abc", "def"] }],
      { foo: ["bar", ["abc", "def"]] },
    ],
    ["copy", { a: { b: 1 } }, [{ op: "copy", from: "/a", path: "/c" }], { a: { b: 1 }, c: { b: 1 } }],
    ["replace the whole document", { a: 1 }, [{ op: "replace", path: "", value: [1] }], [1]],
    ["the empty key", { "": 1 }, [{ op: "replace", path: "/", value: 2 }], { "": 2 }],
  ])("%s", (_name, doc, patch, expected) => {
    const before = JSON.stringify(doc);
    expect(applyPatch(doc, patch)).toEqual(expected);
    expect(JSON.stringify(doc)).toBe(before);
  });

  test.each([
    ["A.9 failed test", { baz: "qux" }, [{ op: "test", path: "/baz", value: "bar" }]],
    ["A.12 add to a missing parent", { foo: "bar" }, [{ op: "add", path: "/baz/bat", value: "qux" }]],
    ["A.15 string is not number", { "/": 9, "~1": 10 }, [{ op: "test", path: "/~01", value: "10" }]],
    ["remove a missing member", { a: 1 }, [{ op: "remove", path: "/b" }]],
    ["remove with -", { a: [1] }, [{ op: "remove", path: "/a/-" }]],
    ["index past the end", { a: [1] }, [{ op: "add", path: "/a/2", value: 0 }]],
    ["leading zero index", { a: [1, 2] }, [{ op: "replace", path: "/a/01", value: 0 }]],
    ["pointer without /", { a: 1 }, [{ op: "replace", path: "a", value: 0 }]],
    ["bad ~ escape", { "~2": 1 }, [{ op: "remove", path: "/~2" }]],
    ["move into a child", { a: { b: {} } }, [{ op: "move", from: "/a", path: "/a/b/c" }]],
    ["missing value", { a: 1 }, [{ op: "add", path: "/b" }]],
    ["unknown op", { a: 1 }, [{ op: "merge", path: "/a", value: 2 }]],
    ["replace a missing member", { a: 1 }, [{ op: "replace", path: "/b", value: 2 }]],
    ["remove the whole document", { a: 1 }, [{ op: "remove", path: "" }]],
  ])("%s throws", (_name, doc, patch) => {
    expect(() => applyPatch(doc, patch)).toThrow(PatchError);
  });

  test('a "__proto__" key stays data', () => {
    const doc = JSON.parse('{"__proto__": {"x": 1}}');
    const out = applyPatch(doc, [
      { op: "add", path: "/__proto__/y", value: 2 },
      { op: "add", path: "/__proto__", value: { z: 3 } },
    ]) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"z":3}}');
  });

  test("jsonEqual ignores key order, not types", () => {
    expect(jsonEqual({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: "1" })).toBe(false);
    expect(jsonEqual({ a: null }, {})).toBe(false);
    expect(jsonEqual([], {})).toBe(false);
  });
});
