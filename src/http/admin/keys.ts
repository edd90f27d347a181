/** /admin/keys: dynamic team keys (secrets shown once), and operator provisioning of new teams. */
import { Hono } from "hono";
import { z } from "zod";
import { digestHex, hintOf, newKeyId, newKeySecret } from "../../access/secrets.ts";
import { errors, RoomError } from "../../protocol/errors.ts";
import { agentIdSchema, roomIdSchema, TEAM_ID } from "../../protocol/ids.ts";
import {
  DEFAULT_ROTATION_GRACE_S,
  graceEnd,
  MAX_KEY_AGENT_RATE,
  MAX_KEY_LIFETIME_S,
  MAX_SCOPE_ROOMS,
  successorExpiry,
} from "../../protocol/key-life.ts";
import { peopleErrors } from "../../protocol/people.ts";
import { HUMAN_ID, type Principal } from "../../protocol/principal.ts";
import { iso } from "../../protocol/time.ts";
import type { KeyRecord, NewKey } from "../../store/access-types.ts";
import type { AuthEnv } from "../auth.ts";
import { parseBody } from "../errors.ts";
import type { AdminDeps } from "./shared.ts";

/** A person's id (docs/people.md#people-and-agents). */
export const humanIdSchema = z
  .string()
  .regex(HUMAN_ID, { error: "must be 1-64 chars of A-Z, a-z, 0-9, _ . @ -" });

/**
 * `kind: "human"` with a humanId makes a person's key or invite; anything else is an agent's. A person's is never
 * bound to an agent.
 */
export function checkKind(
  body: { kind?: "agent" | "human"; humanId?: string; boundAgentId?: string; agentId?: string },
  ctx: z.RefinementCtx,
): void {
  if (body.kind === "human") {
    if (body.humanId === undefined)
      ctx.addIssue({ code: "custom", path: ["humanId"], message: 'required with kind "human"' });
    for (const field of ["boundAgentId", "agentId"] as const) {
      if (body[field] !== undefined)
        ctx.addIssue({
          code: "custom",
          path: [field],
          message: "a person's key or invite is not bound to an agent",
        });
    }
  } else if (body.humanId !== undefined) {
    ctx.addIssue({ code: "custom", path: ["humanId"], message: 'only with kind "human"' });
  }
}

const kindField = z.enum(["agent", "human"]).optional();

/** A lifetime in whole seconds (expiresIn, graceSeconds). */
const seconds = (min: number) =>
  z
    .number()
    .int({ error: "must be a whole number of seconds" })
    .min(min, { error: `must be at least ${min} second${min === 1 ? "" : "s"}` })
    .max(MAX_KEY_LIFETIME_S, { error: `must be at most ${MAX_KEY_LIFETIME_S} seconds (ten years)` });

/** A key's rooms scope: 1..MAX_SCOPE_ROOMS distinct room ids. */
const scopeRooms = z
  .array(roomIdSchema)
  .min(1, { error: "must name at least one room (leave rooms out for every room of the team)" })
  .max(MAX_SCOPE_ROOMS, { error: `must name at most ${MAX_SCOPE_ROOMS} rooms` })
  .refine((rooms) => new Set(rooms).size === rooms.length, { error: "must not name a room twice" });

const keyFields = {
  note: z.string().max(200).optional(),
  boundAgentId: agentIdSchema.optional(),
  kind: kindField,
  humanId: humanIdSchema.optional(),
  /** Seconds until the key stops working (docs/security.md#key-lifetime-and-scopes); absent: never. */
  expiresIn: seconds(1).optional(),
  rooms: scopeRooms.optional(),
  readOnly: z.boolean().optional(),
  /** The key's own agent budget: tool calls per agent per minute, in place of AGENT_RATE_LIMIT_PER_MINUTE. */
  agentRateLimitPerMinute: z
    .number()
    .int({ error: "must be a whole number of calls per minute" })
    .min(1, { error: "must be at least 1 (leave it out for AGENT_RATE_LIMIT_PER_MINUTE)" })
    .max(MAX_KEY_AGENT_RATE, { error: `must be at most ${MAX_KEY_AGENT_RATE}` })
    .optional(),
};

const rotateBody = z.strictObject({
  /** How long the old key keeps working (seconds; default DEFAULT_ROTATION_GRACE_S, 0: ends now). */
  graceSeconds: seconds(0).optional(),
  expiresIn: seconds(1).optional(),
});
const keyBody = z.strictObject(keyFields).superRefine(checkKind);

/**
 * Only a person may make a key or an invite for a person: an agent's key (static, dynamic, invite) could otherwise
 * mint itself a person's key and then decide approvals (docs/people.md#approvals).
 */
export function assertMayMintPeople(principal: Principal, body: { kind?: "agent" | "human" }): void {
  if (body.kind === "human" && principal.humanId === undefined) {
    throw peopleErrors.peopleOnly("create keys or invites for people");
  }
}

/**
 * Only a person may revoke a person's key or invite (the same rule as minting one): an agent's key could otherwise
 * cut the people overseeing it off the room. An agent's own keys and invites stay revocable by any team key.
 */
export function assertMayRevokePeople(principal: Principal, target: { humanId?: string }): void {
  if (target.humanId !== undefined && principal.humanId === undefined) {
    throw peopleErrors.peopleOnly("revoke keys or invites of people");
  }
}
const provisionBody = z
  .strictObject({
    ...keyFields,
    teamId: z
      .string()
      .regex(TEAM_ID, { error: "must be 3-32 chars of a-z, 0-9 and -, starting with a letter or digit" }),
  })
  .superRefine(checkKind);
const KEY_ID = /^k_([a-z0-9][a-z0-9-]{2,31})_[0-9a-z]{8}$/;

/** A fresh key for a team: the record to store (digest only) and the secret to show once. */
function mintKey(
  deps: AdminDeps,
  teamId: string,
  body: z.infer<typeof keyBody>,
  expiresMs?: number,
): { key: NewKey; secret: string } {
  const secret = newKeySecret(teamId);
  const now = deps.now();
  const expires = expiresMs ?? (body.expiresIn !== undefined ? now + body.expiresIn * 1000 : undefined);
  const key: NewKey = {
    keyId: newKeyId(teamId),
    teamId,
    kind: "dynamic",
    createdAt: iso(now),
    hint: hintOf(secret),
    digest: digestHex(secret),
    ...(body.note ? { note: body.note } : {}),
    ...(body.boundAgentId ? { boundAgentId: body.boundAgentId } : {}),
    ...(body.kind === "human" && body.humanId ? { humanId: body.humanId } : {}),
    ...(expires !== undefined ? { expiresAt: iso(expires) } : {}),
    ...(body.rooms !== undefined ? { rooms: body.rooms } : {}),
    ...(body.readOnly === true ? { readOnly: true as const } : {}),
    ...(body.agentRateLimitPerMinute !== undefined
      ? { agentRateLimitPerMinute: body.agentRateLimitPerMinute }
      : {}),
  };
  return { key, secret };
}

/** What a rotation's successor inherits from the key it replaces: binding, note, scope and agent budget. */
function inherited(old: KeyRecord): z.infer<typeof keyBody> {
  return {
    ...(old.note !== undefined ? { note: old.note } : {}),
    ...(old.boundAgentId !== undefined ? { boundAgentId: old.boundAgentId } : {}),
    ...(old.humanId !== undefined ? { kind: "human" as const, humanId: old.humanId } : {}),
    ...(old.rooms !== undefined ? { rooms: old.rooms } : {}),
    ...(old.readOnly === true ? { readOnly: true } : {}),
    ...(old.agentRateLimitPerMinute !== undefined
      ? { agentRateLimitPerMinute: old.agentRateLimitPerMinute }
      : {}),
  };
}

function created(record: KeyRecord, secret: string) {
  const { hint: _hint, kind: _kind, ...shown } = record;
  return {
    ...shown,
    secret,
    message: "Store this secret now: it is shown only once and cannot be recovered.",
  };
}

const keyNotFound = () => new RoomError("not_found", "Key not found");
export const operatorOnly = () => new RoomError("forbidden", "Operator key required");

/** Routes throw RoomErrors; the app's onError answers them with their status (http/errors.ts). */
export function keyRoutes(deps: AdminDeps): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  app.post("/keys/provision", async (c) => {
    if (c.get("principal").kind !== "operator") throw operatorOnly();
    const body = await parseBody(c, provisionBody);
    assertMayMintPeople(c.get("principal"), body);
    // Provisioning creates a team; it never reaches into an existing one (docs/http.md#post-adminkeysprovision).
    if (deps.staticTeams.has(body.teamId)) throw errors.teamExists(body.teamId);
    const { key, secret } = mintKey(deps, body.teamId, body);
    return c.json(created(await deps.store.provisionTeam(key), secret), 201);
  });
  app.post("/keys", async (c) => {
    const body = await parseBody(c, keyBody);
    assertMayMintPeople(c.get("principal"), body);
    const { key, secret } = mintKey(deps, c.get("principal").teamId, body);
    return c.json(created(await deps.store.createKey(key, deps.limits.keysPerTeam), secret), 201);
  });
  app.get("/keys", async (c) => {
    const keys = await deps.store.listKeys(c.get("principal").teamId);
    return c.json({ keys: keys.filter((k) => k.kind === "dynamic").map(({ kind: _kind, ...k }) => k) });
  });
  app.delete("/keys/:keyId", async (c) => {
    const principal = c.get("principal");
    const keyId = c.req.param("keyId");
    const team = KEY_ID.exec(keyId)?.[1];
    // Another team's key is answered exactly like a missing one, unless the caller is an operator.
    if (!team || (team !== principal.teamId && principal.kind !== "operator")) throw keyNotFound();
    // The first-run operator key is not listed to teams; only an operator may revoke it. A person's key, only a
    // person (an operator is one).
    if (principal.kind !== "operator") {
      const target = (await deps.store.listKeys(team)).find((k) => k.keyId === keyId);
      if (!target || target.kind === "operator") throw keyNotFound();
      assertMayRevokePeople(principal, target);
    }
    if (!(await deps.store.deleteKey(team, keyId))) throw keyNotFound();
    return c.json({ ok: true, keyId });
  });
  // Rotation (docs/http.md#post-adminkeyskeyidrotate): a successor with the same binding, note and scope; the old
  // key keeps working for the grace period. Who may rotate a key is who may revoke it.
  app.post("/keys/:keyId/rotate", async (c) => {
    const principal = c.get("principal");
    const keyId = c.req.param("keyId");
    const team = KEY_ID.exec(keyId)?.[1];
    if (!team || (team !== principal.teamId && principal.kind !== "operator")) throw keyNotFound();
    const body = await parseBody(c, rotateBody);
    const old = (await deps.store.listKeys(team)).find((k) => k.keyId === keyId);
    if (old?.kind !== "dynamic") throw keyNotFound();
    assertMayRevokePeople(principal, old);
    const now = deps.now();
    const { key, secret } = mintKey(deps, team, inherited(old), successorExpiry(old, now, body.expiresIn));
    const graceEndsAt = iso(
      graceEnd(
        old.expiresAt === undefined ? undefined : Date.parse(old.expiresAt),
        now,
        body.graceSeconds ?? DEFAULT_ROTATION_GRACE_S,
      ),
    );
    const done = await deps.store.rotateKey(team, keyId, key, graceEndsAt, deps.limits.keysPerTeam);
    // Expired (or revoked) between the listing and the rotation: as missing.
    if (!done) throw keyNotFound();
    return c.json(
      {
        ...created(done.successor, secret),
        rotated: { keyId, expiresAt: done.rotated.expiresAt, rotatedTo: done.successor.keyId },
      },
      201,
    );
  });
  return app;
}
