/**
 * The body cap of every route but those that bring their own (POST /mcp: 512 KB, answered as JSON-RPC). A declared
 * Content-Length over the cap is refused at once; a chunked body is read only up to the cap, then refused and
 * the rest is never read. Either way the answer is 413 `{"error": "Request body too large (max <n> bytes)"}`.
 */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";

/** Admin and every other JSON route: the largest admin body is a few hundred bytes. */
export const MAX_ROUTE_BODY_BYTES = 64 * 1024;

export function routeBodyLimit(options: { maxSize: number; except: readonly string[] }): MiddlewareHandler {
  const except = new Set(options.except);
  const cap = bodyLimit({
    maxSize: options.maxSize,
    onError: (c) => c.json({ error: `Request body too large (max ${options.maxSize} bytes)` }, 413),
  });
  return (c, next) => (except.has(c.req.path) ? next() : cap(c, next));
}
