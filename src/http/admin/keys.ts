/** /admin/keys: dynamic team keys (secrets shown once), and operator provisioning of new teams. */
import { Hono } from "hono";
import { z } from "zod";
import { digestHex, hintOf, newKeyId, newKeySecret } from "../../access/secrets.ts";
import { errors } from "../../protocol/errors.ts";
import { agentIdSchema, TEAM_ID } from "../../protocol/ids.ts";
import { iso } from "../../protocol/time.ts";
import type { KeyRecord, NewKey } from "../../store/access-types.ts";
import type { AuthEnv } from "../auth.ts";
import { routeError } from "../errors.ts";
import { type AdminDeps, parseBody } from "./shared.ts";

const keyBody = z.strictObject({
  note: z.string().max(200).optional(),
  boundAgentId: agentIdSchema.optional(),
});
const provisionBody = keyBody.extend({
  teamId: z
    .string()
    .regex(TEAM_ID, { error: "must be 3-32 chars of a-z, 0-9 and -, starting with a letter or digit" }),
});
const KEY_ID = /^k_([a-z0-9][a-z0-9-]{2,31})_[0-9a-z]{8}$/;

/** A fresh key for a team: the record to store (digest only) and the secret to show once. */
function mintKey(
  deps: AdminDeps,
  teamId: string,
  body: z.infer<typeof keyBody>,
): { key: NewKey; secret: string } {
  const secret = newKeySecret(teamId);
  const key: NewKey = {
    keyId: newKeyId(teamId),
    teamId,
    kind: "dynamic",
    createdAt: iso(deps.now()),
    hint: hintOf(secret),
    digest: digestHex(secret),
    ...(body.note ? { note: body.note } : {}),
    ...(body.boundAgentId ? { boundAgentId: body.boundAgentId } : {}),
  };
  return { key, secret };
}

function created(record: KeyRecord, secret: string) {
  const { hint: _hint, kind: _kind, ...shown } = record;
  return {
    ...shown,
    secret,
    message: "Store this secret now: it is shown only once and cannot be recovered.",
  };
}

export function keyRoutes(deps: AdminDeps): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  app.post("/keys/provision", async (c) => {
    if (c.get("principal").kind !== "operator") return c.json({ error: "Operator key required" }, 403);
    const body = await parseBody(c, provisionBody);
    if ("response" in body) return body.response;
    try {
      const { key, secret } = mintKey(deps, body.data.teamId, body.data);
      const isStatic = deps.staticTeams.has(body.data.teamId);
      const result = isStatic ? "exists" : await deps.store.provisionTeam(key);
      if (result === "exists") return c.json({ error: `Team ${body.data.teamId} already exists` }, 409);
      return c.json(created(result, secret), 201);
    } catch (error) {
      return routeError(c, error);
    }
  });
  app.post("/keys", async (c) => {
    const body = await parseBody(c, keyBody);
    if ("response" in body) return body.response;
    try {
      const { key, secret } = mintKey(deps, c.get("principal").teamId, body.data);
      const result = await deps.store.createKey(key, deps.limits.keysPerTeam);
      if (result === "limit") {
        return routeError(c, errors.keyLimit(deps.limits.keysPerTeam));
      }
      return c.json(created(result, secret), 201);
    } catch (error) {
      return routeError(c, error);
    }
  });
  app.get("/keys", async (c) => {
    try {
      const keys = await deps.store.listKeys(c.get("principal").teamId);
      return c.json({ keys: keys.filter((k) => k.kind === "dynamic").map(({ kind: _kind, ...k }) => k) });
    } catch (error) {
      return routeError(c, error);
    }
  });
  app.delete("/keys/:keyId", async (c) => {
    const principal = c.get("principal");
    const keyId = c.req.param("keyId");
    const team = KEY_ID.exec(keyId)?.[1];
    // Another team's key is answered exactly like a missing one, unless the caller is an operator.
    if (!team || (team !== principal.teamId && principal.kind !== "operator")) {
      return c.json({ error: "Key not found" }, 404);
    }
    try {
      // The first-run operator key is not listed to teams; only an operator may revoke it.
      if (principal.kind !== "operator") {
        const target = (await deps.store.listKeys(team)).find((k) => k.keyId === keyId);
        if (!target || target.kind === "operator") return c.json({ error: "Key not found" }, 404);
      }
      if (!(await deps.store.deleteKey(team, keyId))) return c.json({ error: "Key not found" }, 404);
      return c.json({ ok: true, keyId });
    } catch (error) {
      return routeError(c, error);
    }
  });
  return app;
}
