/**
 * Bearer authentication: resolves the principal before anything else runs. A missing, malformed or unknown
 * bearer gets 401 without any store work.
 */
import type { MiddlewareHandler } from "hono";
import type { KeyRing } from "../access/keyring.ts";
import type { Principal } from "../mcp/tool.ts";
import type { RequestIdEnv } from "./request-id.ts";

export type AuthEnv = { Variables: RequestIdEnv["Variables"] & { principal: Principal } };

/** Longest bearer we hash; anything longer cannot be one of ours. */
const MAX_BEARER = 512;

export function bearerOf(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const token = match?.[1];
  return token && token.length <= MAX_BEARER ? token : null;
}

export const auth =
  (keys: KeyRing): MiddlewareHandler<AuthEnv> =>
  async (c, next) => {
    const bearer = bearerOf(c.req.header("authorization"));
    const principal = bearer === null ? null : keys.resolve(bearer);
    if (!principal) {
      c.header("WWW-Authenticate", 'Bearer realm="roomd"');
      return c.json({ error: "Unauthorized" }, 401);
    }
    c.set("principal", principal);
    await next();
  };
