/**
 * People's roles per room (docs/people.md#roles): a person is a viewer (reads, watches), a member (also messages,
 * hands work over, forks, acts through tools) or an approver (also decides approvals, drives, sets roles). Team
 * operators are approvers everywhere; a room with no roles set makes every person of the team an approver, as
 * before roles existed. Every route and tool asks `mayAct` through `checkRole`, so the rule is written once.
 * Agents have no role: what an agent may do is fixed by its key. No zod here: the room page's script imports it
 * (role-schemas.ts holds the input schemas).
 */
import { RoomError } from "./errors.ts";
import { HUMAN_PREFIX, humanName, type Principal } from "./principal.ts";

export const ROLES = ["viewer", "member", "approver"] as const;
export type Role = (typeof ROLES)[number];

/** The key of a room's roles that gives the role of every person not named. */
export const EVERYONE = "*";

export const ROLE_LIMITS = {
  /** People (and `*`) a room names at most. */
  perRoom: 200,
  /** People an approval names at most. */
  approversMax: 20,
} as const;

/** What people do in a room, and the least role each needs. */
export const ACT_ROLE = {
  message: "member",
  handoff: "member",
  fork: "member",
  /** A person's key calling a tool that writes (it acts as the agent it names). */
  tools: "member",
  decide: "approver",
  drive: "approver",
  roles: "approver",
  /** Suspending an agent in the room, and resuming it (protocol/suspensions.ts). */
  suspend: "approver",
} as const satisfies Record<string, Role>;
export type Act = keyof typeof ACT_ROLE;

const ACT_WORDS: Record<Act, string> = {
  message: "Posting messages",
  handoff: "Handing work over",
  fork: "Forking",
  tools: "Writing through tools",
  decide: "Deciding approvals",
  drive: "Taking the wheel",
  roles: "Setting roles",
  suspend: "Suspending agents",
};

/** The roles a room names: a person's humanId (or `*`) to a role. Empty: nobody named, everyone an approver. */
export type RoomRoles = Readonly<Record<string, Role>>;

const rank = (role: Role): number => ROLES.indexOf(role);

/** Whether `role` may do `act`. */
export const mayAct = (role: Role, act: Act): boolean => rank(role) >= rank(ACT_ROLE[act]);

/**
 * The role of a principal in a room whose roles are `roles`, or undefined for an agent (roles are people's).
 * Operators are approvers; a room naming nobody makes every person an approver; a person not named takes `*`'s
 * role, else viewer.
 */
export function roleOf(roles: RoomRoles, principal: Principal): Role | undefined {
  const { humanId } = principal;
  if (humanId === undefined) return undefined;
  if (principal.kind === "operator" || Object.keys(roles).length === 0) return "approver";
  return (Object.hasOwn(roles, humanId) ? roles[humanId] : undefined) ?? roles[EVERYONE] ?? "viewer";
}

const article = (role: Role) => (role === "approver" ? "an" : "a");

/** The refusal of an act a role may not do: it names the role needed and the caller's. */
export const roleRefusal = (roomId: string, act: Act, role: Role): RoomError =>
  new RoomError(
    "forbidden",
    `${ACT_WORDS[act]} in room ${roomId} needs the ${ACT_ROLE[act]} role; you are ${article(role)} ${role}`,
  );

/** Throws the refusal unless the principal may do `act` in the room (agents pass: they have no role). */
export function checkRole(roles: RoomRoles, principal: Principal, roomId: string, act: Act): void {
  const role = roleOf(roles, principal);
  if (role !== undefined && !mayAct(role, act)) throw roleRefusal(roomId, act, role);
}

/**
 * A change of roles by a person who is not an operator must leave them an approver: otherwise the first role set in
 * a room (which makes everyone not named a viewer) would lock its author out. An operator makes any change.
 */
export function checkRolesChange(after: RoomRoles, principal: Principal, roomId: string): void {
  if (roleOf(after, principal) === "approver") return;
  throw new RoomError(
    "forbidden",
    `This change would leave you without the approver role in room ${roomId}: name yourself an approver (or "*") first, or ask an operator`,
  );
}

/** An approver as an approval names them: `human:<id>` (a bare id is taken as a person's). */
export const approverName = (name: string): string =>
  name.startsWith(HUMAN_PREFIX) ? name : humanName(name);

/** The approvers to store: `human:<id>` each, once, in the order given. */
export const approverNames = (list: readonly string[]): string[] => [...new Set(list.map(approverName))];

/**
 * Throws unless `person` (`human:<id>`) may decide an approval naming `approvers`: with a list, only the people on
 * it decide — an operator not on it included, since the requester asked for these people.
 */
export function checkApprover(approval: { id: string; approvers?: readonly string[] }, person: string): void {
  const { approvers } = approval;
  if (approvers === undefined || approvers.includes(person)) return;
  throw new RoomError(
    "forbidden",
    `Approval ${approval.id} is for ${approvers.join(", ")} to decide; you (${person}) are not one of them`,
  );
}
