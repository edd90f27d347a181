import type { Context } from "hono";
import type { z } from "zod";
import type { Config } from "../../config.ts";
import { describeIssues } from "../../mcp/registry.ts";
import type { Clock } from "../../protocol/time.ts";
import type { RoomStore } from "../../store/types.ts";
import { jsonBody } from "../errors.ts";

export interface AdminDeps {
  store: RoomStore;
  now: Clock;
  limits: Pick<Config, "keysPerTeam" | "invitesPerRoom" | "roomsPerTeam">;
  /** Teams configured through API_KEYS / OPERATOR_KEYS: provisioning them again is a conflict. */
  staticTeams: ReadonlySet<string>;
}

/** The route's JSON body checked against its schema, or the 400 to answer (same wording as the tools). */
export async function parseBody<S extends z.ZodType>(
  c: Context,
  schema: S,
): Promise<{ data: z.output<S> } | { response: Response }> {
  const raw = await jsonBody(c);
  if (raw === null) return { response: c.json({ error: "Invalid JSON body" }, 400) };
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return { response: c.json({ error: describeIssues(parsed.error.issues) }, 400) };
  return { data: parsed.data };
}
