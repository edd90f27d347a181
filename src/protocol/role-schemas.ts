/** The input schemas of roles (protocol/roles.ts), apart so the room page's script does not bundle zod. */
import { z } from "zod";
import { HUMAN_ID, HUMAN_PREFIX } from "./principal.ts";
import { EVERYONE, ROLE_LIMITS } from "./roles.ts";

/** A key of a room's roles: a person's humanId, or `*`. */
export const roleKeySchema = z.string().refine((v) => v === EVERYONE || HUMAN_ID.test(v), {
  error: 'must be a person\'s id (1-64 chars of A-Z, a-z, 0-9, _ . @ -) or "*" for everyone not named',
});

/** An approval's approvers as request_approval takes them: people's ids, with or without `human:`. */
export const approversSchema = z
  .array(
    z.string().refine((v) => HUMAN_ID.test(v.startsWith(HUMAN_PREFIX) ? v.slice(HUMAN_PREFIX.length) : v), {
      error: "must be a person's id (alice, or human:alice)",
    }),
  )
  .min(1)
  .max(ROLE_LIMITS.approversMax);
