/**
 * Route errors: one mapping from domain errors to HTTP statuses (docs/http.md#conventions), used by the app's one
 * onError. Routes throw RoomErrors; anything else is a bug, logged with the request id and answered generically.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";
import { RoomError, type RoomErrorKind } from "../protocol/errors.ts";
import { describeIssues, findIllFormed } from "../protocol/validation.ts";

export const STATUS: Record<RoomErrorKind, ContentfulStatusCode> = {
  invalid: 400,
  not_found: 404,
  denied: 404, // another team's room answers exactly like a missing one
  forbidden: 403,
  conflict: 409,
  locked: 409,
  limit: 403,
  store_unavailable: 503,
};

/** The JSON answer of a RoomError. */
export function roomErrorResponse(c: Context, error: RoomError): Response {
  return c.json({ error: error.message }, STATUS[error.kind]);
}

/**
 * The route's JSON body checked against its schema; a missing body reads as {}. Throws RoomError("invalid"); an
 * unknown field names the closest valid one.
 */
export async function parseBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  const text = await c.req.text();
  let raw: unknown = {};
  if (text.trim() !== "") {
    try {
      raw = JSON.parse(text);
    } catch {
      throw new RoomError("invalid", "Invalid JSON body");
    }
  }
  const bad = findIllFormed(raw);
  if (bad)
    throw new RoomError(
      "invalid",
      `Invalid arguments: ${bad.path}: contains invalid Unicode (a lone surrogate)`,
    );
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new RoomError("invalid", describeIssues(parsed.error.issues, schema));
  return parsed.data;
}
