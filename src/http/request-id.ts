import type { MiddlewareHandler } from "hono";

export type RequestIdEnv = { Variables: { requestId: string } };

/** Gives every request an id (echoed as X-Request-Id) so a generic error can be matched to its log line. */
export const requestId = (): MiddlewareHandler<RequestIdEnv> => async (c, next) => {
  const id = crypto.randomUUID().slice(0, 8);
  c.set("requestId", id);
  await next();
  // On the answer itself: c.header() after the handler copies the whole response (its body as a stream) first,
  // ~1.5 µs of every request. An answer whose headers cannot change (a fetched one) still gets it that way.
  try {
    c.res.headers.set("X-Request-Id", id);
  } catch {
    c.header("X-Request-Id", id);
  }
};
