import { z } from "zod";

/** 2–64 chars of [a-z0-9_-], starting with [a-z0-9], no "__" (docs/protocol.md#2-identifiers). */
const ROOM_ID = /^[a-z0-9][a-z0-9_-]{1,63}$/;
/** 1–64 chars of [A-Za-z0-9_.:-] (docs/protocol.md#2-identifiers). */
export const AGENT_ID = /^[A-Za-z0-9_.:-]{1,64}$/;

export function isRoomId(value: string): boolean {
  return ROOM_ID.test(value) && !value.includes("__");
}

const badRoomId = (input: unknown) =>
  `Invalid roomId: ${JSON.stringify(String(input).slice(0, 80))} (use 2-64 chars of a-z, 0-9, _ and -, starting with a letter or digit, no "__")`;

/** The published pattern (clients see it in tools/list); "no __" is checked on top of it. */
export const roomIdSchema = z
  .string({
    error: (issue) =>
      issue.input === undefined ? "Invalid roomId: required" : "Invalid roomId: must be a string",
  })
  .regex(ROOM_ID, { error: (issue) => badRoomId(issue.input) })
  .refine((v) => !v.includes("__"), { error: (issue) => badRoomId(issue.input) });

export const agentIdSchema = z
  .string()
  .regex(AGENT_ID, { error: "must be 1-64 chars of A-Z, a-z, 0-9, _ . : -" })
  // docs/people.md#people-and-agents: `human:<id>` names a person in events and records, so no agent may take that
  // prefix.
  .refine((v) => !v.startsWith("human:"), {
    error: 'must not start with "human:" (that prefix names people)',
  });

/** Team ids: 3-32 chars of [a-z0-9-], starting with a letter or digit (they appear in key secrets and ids). */
export const TEAM_ID = /^[a-z0-9][a-z0-9-]{2,31}$/;
