import type { MiddlewareHandler } from "hono";

export type RequestIdEnv = { Variables: { requestId: string } };

/** Gives every request an id (echoed as X-Request-Id) so a generic error can be matched to its log line. */
export const requestId = (): MiddlewareHandler<RequestIdEnv> => async (c, next) => {
  const id = crypto.randomUUID().slice(0, 8);
  c.set("requestId", id);
  await next();
  c.header("X-Request-Id", id);
};
