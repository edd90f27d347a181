/**
 * People's roles in a room as the store keeps them (the `roles` room value, protocol/room-values.ts) and the one
 * check every route and tool makes before a person's act (protocol/roles.ts). An operator and an agent cost no read:
 * the first is an approver everywhere, the second has no role.
 */
import type { Principal } from "../protocol/principal.ts";
import { type Act, checkRole, type Role, type RoomRoles, roleOf } from "../protocol/roles.ts";
import type { RoomScope, RoomStore } from "./types.ts";

/** The kind of room value that holds the roles. */
export const ROLES_PIECE = "roles";

/**
 * The roles a room names (empty: none, every person an approver). An onlooker's read: it claims nothing and records
 * no use of the room.
 */
export async function readRoles(store: Pick<RoomStore, "readValues">, scope: RoomScope): Promise<RoomRoles> {
  const { roomId, teamId } = scope;
  return (await store.readValues(
    { roomId, teamId, mayClaim: false, observe: true },
    ROLES_PIECE,
  )) as RoomRoles;
}

/** The principal's role in the room (undefined for an agent), read only when it depends on the room. */
export async function roleIn(
  store: Pick<RoomStore, "readValues">,
  scope: RoomScope,
  principal: Principal,
): Promise<Role | undefined> {
  if (principal.humanId === undefined) return undefined;
  if (principal.kind === "operator") return "approver";
  return roleOf(await readRoles(store, scope), principal);
}

/**
 * Refuses (403, naming the role needed and the caller's) a person whose role in the room does not allow `act`.
 * Agents and operators pass without a read.
 */
export async function requireRole(
  store: Pick<RoomStore, "readValues">,
  scope: RoomScope,
  principal: Principal,
  act: Act,
): Promise<void> {
  if (principal.humanId === undefined || principal.kind === "operator") return;
  checkRole(await readRoles(store, scope), principal, scope.roomId, act);
}
