/**
 * Typed script declarations (script-decl.ts): every script reads its arguments only through the bindings its
 * declaration generates, uses each one, never rebinds one, and every kind of argument reaches Lua as the value the
 * caller passed — checked by running the bindings on a real redis-server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { sharedRedis } from "../../../test/support/redis-server.ts";
import type { Call } from "./call.ts";
import { type AnyArg, arg, bindings, encoder, luaName, type ScriptDecl, script } from "./script-decl.ts";
import { FEED_SCRIPTS, ROOM_SCRIPTS, SCRIPTS } from "./scripts.ts";

/** Every script declaration of the lua-*.ts modules (exports, and objects of them), by name. */
async function declarations(): Promise<[string, ScriptDecl][]> {
  const names =
    "admin approvals claims context driver events fork handoffs leases moving oauth plan room sessions suspensions team tools values views webhooks";
  const found: [string, ScriptDecl][] = [];
  for (const name of names.split(" ")) {
    const mod = (await import(`./lua-${name}.ts`)) as Record<string, unknown>;
    for (const [key, value] of Object.entries(mod)) {
      const isDecl = (v: unknown): v is ScriptDecl =>
        typeof v === "object" && v !== null && "body" in v && "args" in v;
      if (isDecl(value)) found.push([key, value]);
      else if (typeof value === "object" && value !== null)
        for (const [inner, v] of Object.entries(value)) if (isDecl(v)) found.push([inner, v]);
    }
  }
  return found;
}

/** Lua code without its comments and string literals. */
const code = (lua: string) => lua.replace(/--[^\n]*|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g, " ");

/** Names Lua gives meaning to: an argument named so would break the script or hide a builtin. */
const RESERVED = new Set(
  (
    "and break do else elseif end false for function if in local nil not or repeat return then true until while " +
    "pairs ipairs next type tostring tonumber unpack select error pcall string table math redis cjson bit KEYS ARGV"
  ).split(" "),
);

describe("every script", () => {
  test("is declared, and is the one scripts.ts builds", async () => {
    const decls = await declarations();
    const built = { ...SCRIPTS, ...FEED_SCRIPTS };
    expect(decls.map(([name]) => name).sort()).toEqual(
      Object.keys(built)
        .filter((name) => name !== "FEED_HEADS")
        .sort(),
    );
  });

  test("reads ARGV only through its declared bindings (a list by its first place)", async () => {
    const stray: string[] = [];
    for (const [name, decl] of await declarations()) {
      const body = code(decl.body);
      const list = Object.values(decl.args).some((a) => a.kind === "list");
      if (/\bARGV\s*\[\s*\d/.test(body) || (!list && /\bARGV\b/.test(body))) stray.push(name);
    }
    expect(stray).toEqual([]);
  });

  test("uses every argument it declares, under a name Lua leaves free", async () => {
    const unused: string[] = [];
    const reserved: string[] = [];
    for (const [name, decl] of await declarations()) {
      const body = code(decl.body);
      for (const [arg, a] of Object.entries(decl.args) as [string, AnyArg][]) {
        const lua = luaName(arg, a.kind);
        if (RESERVED.has(lua)) reserved.push(`${name}.${arg}`);
        if (!new RegExp(`(?<![\\w.:])${lua}(?!\\w)`).test(body)) unused.push(`${name}.${arg}`);
      }
    }
    expect({ unused, reserved }).toEqual({ unused: [], reserved: [] });
  });

  test("binds each argument once: nothing in the script's whole text declares its name again at the top", async () => {
    const decls = new Map(await declarations());
    const twice: string[] = [];
    for (const [name, built] of Object.entries({ ...SCRIPTS, ...FEED_SCRIPTS })) {
      const decl = decls.get(name) ?? { args: { fields: arg.list() } };
      const tops = [...built.text.matchAll(/^local\s+(?:function\s+)?([\w\s,]+?)\s*(?:=|\(|$)/gm)].flatMap(
        (m) => (m[1] as string).split(",").map((n) => n.trim()),
      );
      for (const [arg, a] of Object.entries(decl.args) as [string, AnyArg][]) {
        const lua = luaName(arg, a.kind);
        if (tops.filter((n) => n === lua).length !== 1) twice.push(`${name}.${lua}`);
      }
    }
    expect(twice).toEqual([]);
  });
});

describe("declarations", () => {
  test("ARGV follows the declared order whatever order the caller names the arguments in", () => {
    const argv = ["common"];
    ROOM_SCRIPTS.CLAIM_TASK.encode({ expected: 3, lease: 5000, id: "task-1", agent: "ann" }, argv);
    expect(argv).toEqual(["common", "ann", "task-1", "5000", "3"]);
    // A call names every argument, with its type, and no other (tsc checks these lines: each must stay an error).
    const typed = (call: Call) => [
      // @ts-expect-error expected is missing
      call({ roomId: "r", teamId: "t" }, "CLAIM_TASK", { agent: "a", id: "t", lease: 1 }),
      // @ts-expect-error a number where text goes
      call({ roomId: "r", teamId: "t" }, "GET_TASK", { id: 7 }),
      // @ts-expect-error an argument the script does not take
      call({ roomId: "r", teamId: "t" }, "GET_TASK", { id: "t", force: true }),
    ];
    expect(typed.length).toBe(1);
  });

  test("a list must come last, and names are camelCase", () => {
    expect(() => script({ args: { a: arg.list(), b: arg.text }, reply: {}, body: "" })).toThrow(/last/);
    expect(() => script({ args: { task_id: arg.text }, reply: {}, body: "" })).toThrow(/camelCase/);
    expect(bindings({ taskId: arg.text, rest: arg.list() }, 5)).toContain(
      "local task_id = ARGV[5]\nlocal rest_at = 6\n",
    );
  });
});

describe("every kind of argument reaches Lua as the caller passed it (real redis-server)", () => {
  let redis: RedisClient;
  beforeAll(async () => {
    redis = new RedisClient((await sharedRedis()).url);
  });
  afterAll(() => redis.close());

  const ECHO = {
    text: arg.text,
    empty: arg.textOrEmpty,
    none: arg.textOrEmpty,
    maybe: arg.maybeText,
    maybeEmpty: arg.maybeText,
    maybeNone: arg.maybeText,
    int: arg.number,
    real: arg.number,
    maybeNumber: arg.maybeNumber,
    maybeNumberNone: arg.maybeNumber,
    yes: arg.flag,
    no: arg.flag,
    json: arg.json<{ a: number[]; b: string }>(),
    jsonText: arg.jsonText<{ x: string }>(),
    maybeJson: arg.maybeJson<string[]>(),
    maybeJsonNone: arg.maybeJson<string[]>(),
    maybeJsonText: arg.maybeJsonText<{ y: number }>(),
    rest: arg.list(),
  };
  // Each binding as JSON ("nil" for nil), in order; the list's strings after.
  const names = Object.entries(ECHO).flatMap(([name, a]) =>
    a.kind === "list" ? [] : [luaName(name, a.kind)],
  );
  const body = `
local out = {}
${names
  .map(
    (n) =>
      `out[#out + 1] = ${n} == nil and "nil" or (type(${n}) == "table" and cjson.encode(${n}) or tostring(${n}))`,
  )
  .join("\n")}
for i = rest_at, #ARGV do out[#out + 1] = ARGV[i] end
return out
`;

  test("text, numbers, flags, JSON, nothing and lists", async () => {
    const argv: string[] = ["first"];
    encoder(ECHO)(
      {
        text: 'héllo\n"quoted"',
        empty: "",
        none: undefined,
        maybe: "=starts with =",
        maybeEmpty: "",
        maybeNone: undefined,
        int: 1_234_567_890_123,
        real: -2.5,
        maybeNumber: 0,
        maybeNumberNone: null,
        yes: true,
        no: false,
        json: { a: [1, 2], b: "ü" },
        jsonText: { x: "y" },
        maybeJson: ["p", "q"],
        maybeJsonNone: undefined,
        maybeJsonText: { y: 1 },
        rest: ["r1", "", "r3"],
      },
      argv,
    );
    const reply = (await redis.send("EVAL", [bindings(ECHO, 2) + body, "0", ...argv])) as string[];
    expect(reply).toEqual([
      'héllo\n"quoted"',
      "",
      "",
      "=starts with =",
      "",
      "nil",
      "1234567890123",
      "-2.5",
      "0",
      "nil",
      "true",
      "false",
      '{"a":[1,2],"b":"ü"}',
      '{"x":"y"}',
      '["p","q"]',
      "nil",
      '{"y":1}',
      "r1",
      "",
      "r3",
    ]);
  });
});
