/**
 * An RFC 6902 JSON Patch apply written from the RFC (and RFC 6901 for pointers), to check the diff against:
 * it shares no code with src/protocol/json-patch.ts. It implements all six operations and throws
 * PatchError on anything the RFC calls an error, so a wrong patch cannot pass by accident.
 */

export class PatchError extends Error {
  override readonly name = "PatchError";
}

type Container = unknown[] | Record<string, unknown>;

/** Applies `patch` to a deep copy of `doc` and returns the result; `doc` itself is never changed. */
export function applyPatch(doc: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch)) throw new PatchError("a patch is an array of operations");
  let result = clone(doc);
  for (const [n, op] of patch.entries()) {
    if (typeof op !== "object" || op === null) throw new PatchError(`operation ${n} is not an object`);
    result = applyOne(result, op as Record<string, unknown>, n);
  }
  return result;
}

function applyOne(doc: unknown, op: Record<string, unknown>, n: number): unknown {
  const path = pointer(op, "path", n);
  const value = () => {
    if (!Object.hasOwn(op, "value")) throw new PatchError(`operation ${n} (${op.op}) has no "value"`);
    return clone(op.value);
  };
  switch (op.op) {
    case "add":
      return add(doc, path, value());
    case "remove":
      return remove(doc, path);
    case "replace":
      get(doc, path); // the target must exist (RFC 6902 §4.3)
      return path.length === 0 ? value() : add(remove(doc, path), path, value());
    case "move": {
      const from = pointer(op, "from", n);
      const inside = from.length < path.length && from.every((token, i) => token === path[i]);
      if (inside) throw new PatchError(`operation ${n}: cannot move a value into one of its children`);
      const moved = get(doc, from);
      return add(remove(doc, from), path, moved);
    }
    case "copy":
      return add(doc, path, clone(get(doc, pointer(op, "from", n))));
    case "test":
      if (!jsonEqual(get(doc, path), value())) throw new PatchError(`operation ${n}: test failed`);
      return doc;
    default:
      throw new PatchError(`operation ${n}: unknown op ${JSON.stringify(op.op)}`);
  }
}

/** RFC 6901: "" is the whole document; otherwise "/"-prefixed tokens, "~1" → "/" then "~0" → "~". */
function pointer(op: Record<string, unknown>, member: "path" | "from", n: number): string[] {
  const text = op[member];
  if (typeof text !== "string") throw new PatchError(`operation ${n} has no string "${member}"`);
  if (text === "") return [];
  if (!text.startsWith("/"))
    throw new PatchError(`operation ${n}: pointer ${JSON.stringify(text)} lacks "/"`);
  return text
    .slice(1)
    .split("/")
    .map((token) => {
      if (/~([^01]|$)/.test(token))
        throw new PatchError(`operation ${n}: bad escape in ${JSON.stringify(text)}`);
      return token.replaceAll("~1", "/").replaceAll("~0", "~");
    });
}

function isContainer(value: unknown): value is Container {
  return typeof value === "object" && value !== null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return isContainer(value) && !Array.isArray(value);
}

/** An array index token: "0" or digits without a leading zero (RFC 6901 §4). */
function arrayIndex(token: string, length: number, allowEnd: boolean): number {
  if (!/^(0|[1-9][0-9]*)$/.test(token))
    throw new PatchError(`${JSON.stringify(token)} is not an array index`);
  const index = Number(token);
  if (index > length || (index === length && !allowEnd))
    throw new PatchError(`index ${index} is out of bounds`);
  return index;
}

function get(doc: unknown, path: string[]): unknown {
  let node = doc;
  for (const token of path) {
    if (Array.isArray(node)) node = node[arrayIndex(token, node.length, false)];
    else if (isObject(node) && Object.hasOwn(node, token)) node = node[token];
    else throw new PatchError(`no value at /${path.join("/")}`);
  }
  return node;
}

/** The container that holds the last token of `path` (which must exist), and that token. */
function parentOf(doc: unknown, path: string[]): [Container, string] {
  const parent = get(doc, path.slice(0, -1));
  if (!isContainer(parent))
    throw new PatchError(`the parent of /${path.join("/")} is not an object or array`);
  return [parent, path[path.length - 1] as string];
}

function add(doc: unknown, path: string[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [parent, token] = parentOf(doc, path);
  if (Array.isArray(parent)) {
    parent.splice(token === "-" ? parent.length : arrayIndex(token, parent.length, true), 0, value);
  } else {
    // defineProperty, not assignment: a "__proto__" key must become data, not change the prototype.
    Object.defineProperty(parent, token, { value, writable: true, enumerable: true, configurable: true });
  }
  return doc;
}

function remove(doc: unknown, path: string[]): unknown {
  if (path.length === 0) throw new PatchError("cannot remove the whole document");
  const [parent, token] = parentOf(doc, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(token, parent.length, false), 1);
  else if (Object.hasOwn(parent, token)) delete parent[token];
  else throw new PatchError(`no value at /${path.join("/")} to remove`);
  return doc;
}

function clone(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(clone);
  if (!isContainer(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(out, key, {
      value: clone(item),
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
  return out;
}

/** RFC 6902 §4.6 equality: same type; objects with the same members in any order; arrays item by item. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]))
    );
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]))
    );
  }
  return a === b;
}
