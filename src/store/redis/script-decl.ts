/**
 * Typed Lua scripts. A script is declared once (`script`): its named arguments — how each travels as an ARGV
 * string and how Lua reads it back — the type of its reply, and its Lua body. Both sides follow from that one
 * declaration: the caller passes an object naming every argument (ArgValues, so none can be left out, mistyped or
 * passed out of order), `encode` turns it into ARGV in the declared order, and `bindings` writes the
 * `local <name> = …` lines scripts.ts puts before the body, reading the same places in the same order. A body never
 * reads ARGV by number (script-decl.test.ts checks every script).
 *
 * Lua names are the argument names in snake_case (`taskId` → `task_id`); a list's local is `<name>_at`, the ARGV
 * place of its first string.
 */

/** One argument in one ARGV string. */
export interface Arg<T> {
  readonly kind: "one";
  /** The value as its ARGV string. */
  encode(value: T): string;
  /** The Lua expression that reads it back from `argv` (e.g. "ARGV[7]"). */
  read(argv: string): string;
}

/** Strings spread over the ARGV places from its own to the end of the operation's arguments; always the last. */
export interface ListArg<T> {
  readonly kind: "list";
  encode(value: T): readonly string[];
}

/** Any kind of argument (its value type erased). */
export type AnyArg = Arg<never> | ListArg<never>;
/** A script's arguments by name, in ARGV order. */
export type Args = Record<string, AnyArg>;

/** What a caller passes for arguments `A`: every name, each with its value. */
export type ArgValues<A extends Args> = {
  [K in keyof A]: A[K] extends Arg<infer T> ? T : A[K] extends ListArg<infer T> ? T : never;
};

const one = <T>(encode: (value: T) => string, read: (argv: string) => string): Arg<T> => ({
  kind: "one",
  encode,
  read,
});

const json = JSON.stringify as (value: unknown) => string;

/** The kinds of argument, each with its encoding and its Lua reading. */
export const arg = {
  /** A string, byte for byte. Lua: the string. */
  text: one<string>(
    (v) => v,
    (a) => a,
  ),
  /**
   * A string that is never empty, or none. "" stands for none, so Lua gets the string, "" for none — for ids,
   * names and filters, where "" is no value.
   */
  textOrEmpty: one<string | undefined | null>(
    (v) => v ?? "",
    (a) => a,
  ),
  /** A string, "" included, or none: sent behind "=" ("" for none). Lua: the string, or nil for none. */
  maybeText: one<string | undefined | null>(
    (v) => (v === undefined || v === null ? "" : `=${v}`),
    (a) => `(${a} ~= "" and string.sub(${a}, 2) or nil)`,
  ),
  /** A number as JS prints it. Lua: the number. */
  number: one<number>(String, (a) => `tonumber(${a})`),
  /** A number or none ("" for none). Lua: the number, or nil for none. */
  maybeNumber: one<number | undefined | null>(
    (v) => (v === undefined || v === null ? "" : String(v)),
    (a) => `tonumber(${a})`,
  ),
  /** A boolean as "1" or "0". Lua: the boolean. */
  flag: one<boolean>(
    (v) => (v ? "1" : "0"),
    (a) => `${a} == "1"`,
  ),
  /** A value as JSON. Lua: the decoded value (cjson: JSON null is cjson.null). */
  json: <T>() => one<T>(json, (a) => `cjson.decode(${a})`),
  /** A value as JSON. Lua: the JSON text, to splice into a record verbatim (or decode where needed). */
  jsonText: <T>() => one<T>(json, (a) => a),
  /** An object or array as JSON, or none (""). Lua: the decoded value, or nil for none. */
  maybeJson: <T extends object>() =>
    one<T | undefined>(
      (v) => (v === undefined ? "" : json(v)),
      (a) => `(${a} ~= "" and cjson.decode(${a}) or nil)`,
    ),
  /** An object or array as JSON, or none (""). Lua: the JSON text, "" for none. */
  maybeJsonText: <T extends object>() =>
    one<T | undefined>(
      (v) => (v === undefined ? "" : json(v)),
      (a) => a,
    ),
  /** Strings, each in its own ARGV place, after every other argument. Lua: `<name>_at`, the first one's place. */
  list: (): ListArg<readonly string[]> => ({ kind: "list", encode: (v) => v }),
};

/** The type of a script's reply (its `ok` value); carries no value. */
export interface Reply<R> {
  readonly reply?: R;
}

/** Declares the type of a script's reply. */
export const returns = <R>(): Reply<R> => ({});

/** A script as its module declares it. */
export interface ScriptDecl<A extends Args = Args, R = unknown> {
  readonly args: A;
  readonly reply: Reply<R>;
  /** The Lua after the prelude and the argument bindings. */
  readonly body: string;
}

/** Declares a script: its arguments in ARGV order, its reply and its Lua body. */
export function script<A extends Args, R>(decl: {
  args: A;
  reply: Reply<R>;
  body: string;
}): ScriptDecl<A, R> {
  const names = Object.keys(decl.args);
  names.forEach((name, i) => {
    if (!/^[a-z][A-Za-z0-9]*$/.test(name)) throw new Error(`script argument ${name}: use a camelCase name`);
    if (decl.args[name]?.kind === "list" && i !== names.length - 1)
      throw new Error(`script argument ${name}: a list must be the last argument`);
  });
  return decl;
}

/** The Lua name of an argument: `taskId` → `task_id` (a list: `<name>_at`). */
export function luaName(name: string, kind: AnyArg["kind"]): string {
  const snake = name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return kind === "list" ? `${snake}_at` : snake;
}

/** The `local <name> = …` lines binding the arguments, the first at ARGV[first]. */
export function bindings(args: Args, first: number): string {
  const lines = Object.entries(args).map(([name, a], i) => {
    const at = first + i;
    const value = a.kind === "list" ? String(at) : a.read(`ARGV[${at}]`);
    return `local ${luaName(name, a.kind)} = ${value}`;
  });
  return lines.length === 0
    ? ""
    : `-- The operation's arguments (scripts.ts, from its declaration):\n${lines.join("\n")}\n`;
}

/** A function appending the ARGV of `args`' values, in the declared order, to an array. */
export function encoder<A extends Args>(args: A): (values: ArgValues<A>, argv: string[]) => void {
  const order = Object.entries(args) as [keyof A & string, AnyArg][];
  return (values, argv) => {
    for (const [name, a] of order) {
      const value = values[name] as never;
      if (a.kind === "one") argv.push(a.encode(value));
      else for (const s of a.encode(value)) argv.push(s);
    }
  };
}
