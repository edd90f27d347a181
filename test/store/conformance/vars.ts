/** Shared variables: strings in, strings out (a value like "8080" stays a string), and the shared_var_set event. */
import { expect, test } from "bun:test";
import { LIMITS } from "../../../src/protocol/limits.ts";
import { allEvents, expectRoomError, newScope, type Suite } from "./harness.ts";

export function varTests(suite: Suite): void {
  test("setVar, getVar and listVars; an absent key is null", async () => {
    const scope = newScope();
    expect(await suite.store.listVars(scope)).toEqual({});
    expect(await suite.store.getVar(scope, "port")).toBeNull();
    await suite.store.setVar(scope, "port", "8080", "a");
    await suite.store.setVar(scope, "host", "db.internal", "b");
    await suite.store.setVar(scope, "port", "9090", "b");
    expect(await suite.store.getVar(scope, "port")).toBe("9090");
    expect(await suite.store.getVar(scope, "missing")).toBeNull();
    expect(await suite.store.listVars(scope)).toEqual({ port: "9090", host: "db.internal" });
  });

  test("values are kept byte for byte as strings", async () => {
    const scope = newScope();
    const values: Record<string, string> = {
      number: "8080",
      float: "3.10",
      exp: "1e3",
      bool: "true",
      null: "null",
      json: '{"a":1}',
      array: "[1,2]",
      quoted: '"8080"',
      padded: " 007 ",
      empty: "",
      unicode: "héllo ✓ 日本",
      newline: "a\nb\r\n",
    };
    for (const [key, value] of Object.entries(values)) await suite.store.setVar(scope, key, value, "a");
    for (const [key, value] of Object.entries(values)) {
      const got = await suite.store.getVar(scope, key);
      expect(typeof got).toBe("string");
      expect(got).toBe(value);
    }
    expect(await suite.store.listVars(scope)).toEqual(values);
  });

  test("setVar appends shared_var_set {key} from the agent to all", async () => {
    const scope = newScope();
    await suite.store.setVar(scope, "port", "8080", "a");
    await suite.store.setVar(scope, "port", "8081", "b");
    const events = await allEvents(suite.store, scope);
    expect(events.map((e) => [e.seq, e.type, e.from, e.to, e.payload])).toEqual([
      [1, "shared_var_set", "a", "all", { key: "port" }],
      [2, "shared_var_set", "b", "all", { key: "port" }],
    ]);
  });

  test("R2-2 a room holds at most LIMITS.varsPerRoom variables: a new one past it is refused, an old one still set", async () => {
    const scope = newScope();
    for (let i = 0; i < LIMITS.varsPerRoom; i++) await suite.store.setVar(scope, `k${i}`, "v", "a");
    await expectRoomError(
      suite.store.setVar(scope, "one-more", "v", "a"),
      "limit",
      /at most 1000 shared variables/,
    );
    expect(await suite.store.getVar(scope, "one-more")).toBeNull();
    await suite.store.setVar(scope, "k7", "changed", "a");
    expect(await suite.store.getVar(scope, "k7")).toBe("changed");
    expect(Object.keys(await suite.store.listVars(scope))).toHaveLength(LIMITS.varsPerRoom);
  });
}
