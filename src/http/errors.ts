/** Route errors: JSON {error} with a fitting status (spec protocol.md §5); RoomErrors keep their message. */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { RoomError, type RoomErrorKind } from "../protocol/errors.ts";

const STATUS: Record<RoomErrorKind, ContentfulStatusCode> = {
  invalid: 400,
  not_found: 404,
  denied: 404, // another team's room answers exactly like a missing one
  conflict: 409,
  locked: 409,
  limit: 403,
  store_unavailable: 503,
};

/** Answers a RoomError; anything else is rethrown to the app's onError (logged, generic 500). */
export function routeError(c: Context, error: unknown): Response {
  if (error instanceof RoomError) return c.json({ error: error.message }, STATUS[error.kind]);
  throw error;
}

/** The JSON body of a route, or null for a missing or malformed one (the caller answers 400). */
export async function jsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
