import { describe, expect, test } from "bun:test";
import { canonicalJson, sha256Hex } from "./canonical-json.ts";

describe("canonicalJson", () => {
  test("sorts keys at every depth and writes no whitespace", () => {
    const value = { b: 1, a: { d: [3, { z: true, y: null }], c: "x" } };
    expect(canonicalJson(value)).toBe('{"a":{"c":"x","d":[3,{"y":null,"z":true}]},"b":1}');
  });

  test("orders keys by UTF-16 code units (RFC 8785 §3.2.3)", () => {
    // "\u20ac" (€) sorts before "\ud83d\ude00" (😀) by code units, though after it by code point.
    const value = { "\ud83d\ude00": 1, "\u20ac": 2, a: 3, A: 4, "": 5 };
    expect(canonicalJson(value)).toBe('{"":5,"A":4,"a":3,"€":2,"😀":1}');
  });

  test("numbers in their shortest ECMAScript form; -0 is 0", () => {
    expect(canonicalJson([1e21, 0.1, -0, 1.5e-7, JSON.parse("333333333.33333329"), 100])).toBe(
      "[1e+21,0.1,0,1.5e-7,333333333.3333333,100]",
    );
  });

  test("strings escape only what JSON must; lone surrogates as escapes", () => {
    expect(canonicalJson('a"b\\c\n\u0001é\ud800')).toBe('"a\\"b\\\\c\\n\\u0001é\\ud800"');
  });

  test("drops undefined members, writes undefined array items as null", () => {
    expect(canonicalJson({ a: undefined, b: [undefined] })).toBe('{"b":[null]}');
  });

  test("refuses what JSON cannot hold", () => {
    expect(() => canonicalJson(Number.NaN)).toThrow(TypeError);
    expect(() => canonicalJson({ a: Number.POSITIVE_INFINITY })).toThrow(TypeError);
    expect(() => canonicalJson(() => 1)).toThrow(TypeError);
  });

  test("the same value written differently has one canonical text", () => {
    const a = JSON.parse('{ "x" : [1, 2.0, {"k":"v"}], "w": "\\u0041" }');
    const b = JSON.parse('{"w":"A","x":[1,2,{"k":"v"}]}');
    expect(canonicalJson(a)).toBe(canonicalJson(b));
  });
});

test("sha256Hex", () => {
  expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
});
