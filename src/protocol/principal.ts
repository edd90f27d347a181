/** Identity of a request (docs/security.md#principals; people: docs/people.md#people-and-agents). */

/** Who is calling: resolved by the HTTP layer before any tool or route runs. */
export interface Principal {
  teamId: string;
  /**
   * Where the identity comes from: a key of the environment (operator, static), a key of the store (dynamic), an
   * invite, the trusted authenticating proxy's header (proxy), or an OAuth access token (oauth: bound to one agent
   * like a bound key and to the room(s) its person picked — allowedRoomId for one, rooms for several — read-only
   * when they chose so; its keyId the grant's id; docs/security.md#oauth).
   */
  kind: "operator" | "static" | "dynamic" | "invite" | "proxy" | "oauth";
  keyId?: string;
  /** Set for keys bound to one agent: the tool layer forces this identity. */
  boundAgentId?: string;
  /** Set for invites: the one room this principal may touch. */
  allowedRoomId?: string;
  /** Set for a key scoped to some rooms (protocol/key-life.ts): every other room reads as missing. */
  rooms?: readonly string[];
  /** Set for a read-only key (protocol/key-life.ts): every write is refused before its arguments are checked. */
  readOnly?: true;
  /**
   * Set exactly for people (operator keys, the first-run key, human dynamic keys and invites, the proxy's
   * users): 1-64 chars of [A-Za-z0-9_.@-]. A principal without it is an agent.
   */
  humanId?: string;
}

/** What a principal is: a person (it carries a humanId) or an agent (everything else). */
export type PrincipalType = "human" | "agent";

/** 1-64 chars of [A-Za-z0-9_.@-]: an email address, a login, a name. */
export const HUMAN_ID = /^[A-Za-z0-9_.@-]{1,64}$/;

/** Agent ids may not take this prefix: it names people in events and records. */
export const HUMAN_PREFIX = "human:";

export const principalType = (principal: Principal): PrincipalType =>
  principal.humanId !== undefined ? "human" : "agent";

/** A person as events and records name them: `human:<humanId>`. */
export const humanName = (humanId: string): string => `${HUMAN_PREFIX}${humanId}`;

/** The person a principal is, as `human:<humanId>`, or undefined for an agent. */
export const personOf = (principal: Principal): string | undefined =>
  principal.humanId !== undefined ? humanName(principal.humanId) : undefined;

/** True for a name that denotes a person (`human:…`). */
export const isPersonName = (name: string): boolean => name.startsWith(HUMAN_PREFIX);
