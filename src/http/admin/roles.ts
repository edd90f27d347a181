/**
 * /admin/rooms/:roomId/roles (docs/people.md#roles): who is a viewer, a member or an approver in a room. Any team
 * key reads them; only a person who is an approver there (an operator anywhere) changes them, and a person who is
 * not an operator never takes the approver role from themselves (protocol/roles.ts checkRolesChange).
 */
import { Hono } from "hono";
import { z } from "zod";
import { errors, RoomError } from "../../protocol/errors.ts";
import { isRoomId } from "../../protocol/ids.ts";
import { peopleErrors } from "../../protocol/people.ts";
import type { Principal } from "../../protocol/principal.ts";
import { roleKeySchema } from "../../protocol/role-schemas.ts";
import {
  checkRole,
  checkRolesChange,
  EVERYONE,
  ROLES,
  type RoomRoles,
  roleOf,
} from "../../protocol/roles.ts";
import { ROLES_PIECE, readRoles } from "../../store/room-roles.ts";
import type { RoomScope } from "../../store/types.ts";
import type { AuthEnv } from "../auth.ts";
import { parseBody } from "../errors.ts";
import type { AdminDeps } from "./shared.ts";

const roleBody = z.strictObject({ role: z.enum(ROLES) });

/** What every roles route answers: the roles named, the role of a person not named, and the caller's own. */
function rolesView(roomId: string, roles: RoomRoles, principal: Principal) {
  const named = Object.keys(roles).length > 0;
  return {
    roomId,
    roles,
    others: named ? (roles[EVERYONE] ?? "viewer") : "approver",
    you: roleOf(roles, principal) ?? null,
  };
}

export function roleRoutes(deps: AdminDeps): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  const scopeOf = (c: { get: (k: "principal") => Principal }, roomId: string): RoomScope => {
    if (!isRoomId(roomId)) throw errors.denied();
    return { roomId, teamId: c.get("principal").teamId };
  };

  /** The person's change of one key, checked, then written; the room must exist (a typo makes no room). */
  async function change(principal: Principal, scope: RoomScope, key: string, role: string | null) {
    if (principal.humanId === undefined) throw peopleErrors.peopleOnly("set roles");
    const bad = roleKeySchema.safeParse(key).error?.issues[0];
    if (bad) throw new RoomError("invalid", `Invalid arguments: person: ${bad.message}`);
    if (!(await deps.store.roomInfo({ ...scope, observe: true })).exists) throw errors.denied();
    const before = await readRoles(deps.store, scope);
    checkRole(before, principal, scope.roomId, "roles");
    const after: Record<string, string> = { ...before };
    if (role === null) delete after[key];
    else after[key] = role;
    checkRolesChange(after as RoomRoles, principal, scope.roomId);
    await deps.store.writeValue(scope, { piece: ROLES_PIECE, key, value: role });
    return rolesView(scope.roomId, await readRoles(deps.store, scope), principal);
  }

  app.get("/rooms/:roomId/roles", async (c) => {
    const scope = scopeOf(c, c.req.param("roomId"));
    return c.json(rolesView(scope.roomId, await readRoles(deps.store, scope), c.get("principal")));
  });
  app.put("/rooms/:roomId/roles/:person", async (c) => {
    const body = await parseBody(c, roleBody);
    const scope = scopeOf(c, c.req.param("roomId"));
    return c.json(await change(c.get("principal"), scope, c.req.param("person"), body.role));
  });
  app.delete("/rooms/:roomId/roles/:person", async (c) => {
    const scope = scopeOf(c, c.req.param("roomId"));
    return c.json(await change(c.get("principal"), scope, c.req.param("person"), null));
  });
  return app;
}
