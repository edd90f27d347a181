/** The script trimmer (lua-shake.ts) and what scripts.ts builds with it. */
import { describe, expect, test } from "bun:test";
import { ROOM_KEY_PARTS } from "./keys.ts";
import { INDEX } from "./lua-index.ts";
import { LOG } from "./lua-log.ts";
import { GUARD, PRELUDE } from "./lua-prelude.ts";
import { keyNames, shake, statements } from "./lua-shake.ts";
import { ROOM_SCRIPTS, SCRIPTS, TEAM_SCRIPTS } from "./scripts.ts";

/** Every Lua text the scripts are made of (string exports, and objects of them, of the lua-*.ts modules). */
async function sources(): Promise<string[]> {
  const names =
    "admin approvals claims context driver events fork handoffs holdings index leases log moving people-helpers plan prelude rate room sessions task-checks team tools views webhooks";
  const texts: string[] = [];
  const collect = (v: unknown) => {
    if (typeof v === "string") texts.push(v);
    else if (v && typeof v === "object") for (const x of Object.values(v)) collect(x);
  };
  for (const name of names.split(" ")) collect(await import(`./lua-${name}.ts`));
  return texts;
}

/** Every name a Lua text declares anywhere: locals, loop variables, parameters. */
function declared(lua: string): string[] {
  const lists = [
    ...lua.matchAll(/\blocal\s+(?:function\s+)?([\w\s,]+?)\s*(?:=|\(|$)/gm),
    ...lua.matchAll(/\bfor\s+([\w\s,]+?)\s+(?:in|=)/g),
    ...lua.matchAll(/\bfunction\b[\w.\s]*\(([^)]*)\)/g),
  ].map((m) => m[1] as string);
  return lists.flatMap((l) => l.split(",").map((n) => n.trim())).filter((n) => n !== "");
}

/** Lua code without its comments and string literals. */
const code = (lua: string) => lua.replace(/--[^\n]*|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g, " ");

describe("statements", () => {
  test("split the prelude into top-level statements that join back to it exactly", () => {
    const text = PRELUDE + LOG + INDEX + GUARD;
    const parts = statements(text);
    expect(parts.map((s) => s.text).join("\n")).toBe(text);
    const defined = parts.flatMap((s) => s.provides ?? []);
    for (const name of [
      "ok",
      "seen",
      "touch",
      "append_event",
      "consume",
      "IX.put",
      "R.renew",
      "MAIL.unindex",
    ])
      expect(defined).toContain(name);
  });
});

describe("shake", () => {
  const lua = [
    "local A = 1",
    "local function used(x) return helper(x) end",
    "-- helper's lead-in",
    "local function helper(x)",
    "  return x",
    "end",
    "local function unused() return used(1) end",
    "local T = { a = 1 }",
    "function T.f() return 1 end",
    "function T.g() return 2 end",
    "T.h = T.f",
    "return used(A) + T.g()",
  ].join("\n");

  test("keeps what kept statements name, transitively, and drops the rest", () => {
    expect(shake(lua)).toBe(
      [
        "local A = 1",
        "local function used(x) return helper(x) end",
        "-- helper's lead-in",
        "local function helper(x)",
        "  return x",
        "end",
        "local T = { a = 1 }",
        "function T.g() return 2 end",
        "return used(A) + T.g()",
      ].join("\n"),
    );
  });

  test("a name after a dot or only in a comment line keeps nothing", () => {
    expect(shake("local function f() end\n-- f()\nreturn x.f")).toBe("-- f()\nreturn x.f");
  });
});

describe("the scripts built with it", () => {
  test("bind exactly the keys they are passed, and name no key they are not", () => {
    for (const [name, script] of Object.entries(ROOM_SCRIPTS)) {
      const keys = script.keys ?? [];
      expect({ name, meta: keys[0] }).toEqual({ name, meta: 0 });
      const bound = keys.map((i) => `K_${(ROOM_KEY_PARTS[i] as string).toUpperCase()}`);
      const named = [...keyNames(script.text)].map((n) => `K_${n}`).filter((n) => n !== "K_RATE");
      expect({ name, unbound: named.filter((n) => !bound.includes(n)) }).toEqual({ name, unbound: [] });
    }
  });

  test("no script names a helper it no longer defines", async () => {
    // Every definition the trimmer may drop, from every text the scripts are made of.
    const droppable = new Set(
      (await sources()).flatMap((t) => statements(t).flatMap((s) => s.provides ?? [])),
    );
    const missing: string[] = [];
    for (const [name, script] of Object.entries(SCRIPTS)) {
      const defined = new Set([
        ...statements(script.text).flatMap((s) => s.provides ?? []),
        ...declared(script.text),
      ]);
      // A name followed by "=" is a field or an assignment, not a use.
      const body = code(script.text);
      for (const helper of droppable) {
        const named = new RegExp(`(?<![\\w.:])${helper.replace(".", "\\.")}(?![\\w])(?!\\s*=[^=])`).test(
          body,
        );
        if (named && !defined.has(helper)) missing.push(`${name}: ${helper}`);
      }
    }
    expect(droppable.size).toBeGreaterThan(60);
    expect(missing).toEqual([]);
  });

  test("the rate charge takes the two bucket keys and none of the key helpers", () => {
    expect(TEAM_SCRIPTS.CONSUME_RATE.keys).toEqual([3, 4]);
    expect(TEAM_SCRIPTS.CONSUME_RATE.text).not.toContain("store_key");
  });

  test("small reads no longer build the log's, the index's or the plan's helpers", () => {
    const text = ROOM_SCRIPTS.GET_TASK.text;
    for (const helper of ["append_event", "consume", "IX.put", "ensure_index", "task_json"])
      expect(text).not.toContain(`function ${helper}`);
  });
});
