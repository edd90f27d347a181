/**
 * Suspending an agent in a room (docs/people.md#suspending-an-agent): while suspended, every call the agent makes in
 * that room is refused with who suspended it, when and why; suspending releases its task leases (pending, unowned,
 * as a lease's expiry leaves them), file claims and locks at once, and appends `agent_suspended`; resuming appends
 * `agent_resumed`. Every store applies these rules in the atomic step of each room operation (SQL: room-tx.ts, Redis:
 * the GUARD of lua-prelude.ts), so a call racing a suspension either ran before it (and what it took is released)
 * or is refused.
 */
import { RoomError } from "./errors.ts";
import { type Principal, personOf } from "./principal.ts";

/** A suspension as stored and listed. */
export interface Suspension {
  agentId: string;
  /** Who suspended it: a person (`human:<id>`), an operator's name, or a team key's id. */
  by: string;
  /** ISO time of the suspension. */
  at: string;
  /** Why, as given (1–500 chars). */
  reason: string;
}

/** What suspending answers: the suspension (the earlier one when already suspended) and what it released. */
export interface SuspendResult {
  suspension: Suspension;
  /** True when the agent was already suspended: nothing changed, nothing was appended. */
  already: boolean;
  released: { tasks: string[]; paths: string[]; locks: string[] };
}

/** What resuming answers: whether a suspension was lifted (false: the agent was not suspended, nothing changed). */
export interface ResumeResult {
  agentId: string;
  resumed: boolean;
}

/** Longest reason accepted. */
export const MAX_SUSPENSION_REASON = 500;

/** The error code every refusal of a suspended agent's call carries, first in its message. */
export const AGENT_SUSPENDED = "AGENT_SUSPENDED";

/** The refusal of any call a suspended agent makes in the room. */
export function suspendedError(roomId: string, s: Suspension): RoomError {
  return new RoomError(
    "forbidden",
    `${AGENT_SUSPENDED}: agent ${s.agentId} is suspended in room ${roomId} by ${s.by} since ${s.at}: ${s.reason}. Every call it makes in this room is refused until someone resumes it; stop working in this room and tell your person`,
  );
}

export const suspensionErrors = {
  reason: () => new RoomError("invalid", `Invalid reason: give why, 1-${MAX_SUSPENSION_REASON} characters`),
};

/**
 * Who a suspension or resume names: the person (`human:<id>`, an operator by OPERATOR_NAME too), else the team key
 * by its id (`key:<keyId>`), else the environment's key of the team (`team:<teamId>`).
 */
export function suspenderOf(principal: Principal): string {
  const person = personOf(principal);
  if (person !== undefined) return person;
  return principal.keyId !== undefined ? `key:${principal.keyId}` : `team:${principal.teamId}`;
}

/** agent_suspended's payload: who, by whom, why, and what went back. */
export const suspendedPayload = (s: Suspension, released: SuspendResult["released"]) => ({
  agentId: s.agentId,
  by: s.by,
  reason: s.reason,
  ...released,
});

/** agent_resumed's payload. */
export const resumedPayload = (agentId: string, by: string) => ({ agentId, by });
