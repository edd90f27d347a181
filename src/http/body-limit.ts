/**
 * The body cap of every route but those that bring their own (POST /mcp: 512 KB, answered as JSON-RPC; the room
 * import: IMPORT_MAX_BYTES, read as it streams). A declared
 * Content-Length over the cap is refused at once; a chunked body is read only up to the cap, then refused and
 * the rest is never read. Either way the answer is 413 `{"error": "Request body too large (max <n> bytes)"}`.
 */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";

/** Admin and every other JSON route: the largest admin body is a few hundred bytes. */
export const MAX_ROUTE_BODY_BYTES = 64 * 1024;

/** Paths exempt from the cap: exactly, or matching a pattern (routes with a path parameter). */
export function routeBodyLimit(options: {
  maxSize: number;
  except: readonly (string | RegExp)[];
}): MiddlewareHandler {
  const exact = new Set(options.except.filter((e): e is string => typeof e === "string"));
  const patterns = options.except.filter((e): e is RegExp => e instanceof RegExp);
  const exempt = (path: string) => exact.has(path) || patterns.some((p) => p.test(path));
  const cap = bodyLimit({
    maxSize: options.maxSize,
    onError: (c) => c.json({ error: `Request body too large (max ${options.maxSize} bytes)` }, 413),
  });
  return (c, next) => (exempt(c.req.path) ? next() : cap(c, next));
}
