/**
 * Approvals, handoffs and verdicts over HTTP (docs/people.md#approvals, #handoffs, #verdicts): only people decide
 * approvals; people and agent keys offer handoffs (a person on behalf of the room); everyone in the room reads them.
 */
import { Hono } from "hono";
import { z } from "zod";
import { APPROVAL_STATUSES, HANDOFF_STATUSES, PEOPLE_LIMITS, peopleErrors } from "../../protocol/people.ts";
import { personOf } from "../../protocol/principal.ts";
import { FIELDS } from "../../protocol/record-fields.ts";
import { checkApprover } from "../../protocol/roles.ts";
import type { AuthEnv } from "../auth.ts";
import { parseBody } from "../errors.ts";
import {
  agentFor,
  agentSchema,
  checkAct,
  personFor,
  type RoomContext,
  type RoomRouteDeps,
  recordIdSchema,
  scopeOf,
  statusQuery,
} from "./shared.ts";

const decisionBody = z.strictObject({
  decision: z.enum(["approve", "reject"]),
  note: FIELDS.approvalNote.optional(),
});
const ids = z.array(recordIdSchema).max(PEOPLE_LIMITS.handoffItemsMax);
const offerBody = z.strictObject({
  from: agentSchema.optional(),
  to: agentSchema.describe('an agent id, or "any"'),
  taskIds: ids.optional(),
  contextIds: ids.optional(),
  note: FIELDS.handoffNote,
});
const handoffAction = z.strictObject({ action: z.literal("cancel"), agentId: agentSchema.optional() });

/** A record id from the path: one that cannot be an id names nothing, so it is simply not found. */
function pathId(c: RoomContext, name: string, notFound: (id: string) => Error): string {
  const id = c.req.param(name) ?? "";
  if (!recordIdSchema.safeParse(id).success) throw notFound(id.slice(0, 100));
  return id;
}

export function workRoutes(deps: RoomRouteDeps): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();

  app.get("/:roomId/approvals", async (c) => {
    const scope = scopeOf(c);
    const status = statusQuery(c, APPROVAL_STATUSES);
    return c.json({ approvals: await deps.store.listApprovals(scope, status) });
  });

  app.post("/:roomId/approvals/:approvalId", async (c) => {
    const scope = scopeOf(c);
    const decidedBy = personFor(c, "decide approvals");
    const id = pathId(c, "approvalId", peopleErrors.approvalNotFound);
    const body = await parseBody(c, decisionBody);
    await checkAct(deps, c, scope, "decide");
    // Approvers are fixed when the approval is asked for, so reading them before the decision cannot race it.
    checkApprover(await deps.store.getApproval(scope, id), decidedBy);
    return c.json(
      await deps.store.decideApproval(scope, { id, decidedBy, decision: body.decision, note: body.note }),
    );
  });

  app.get("/:roomId/handoffs", async (c) => {
    const scope = scopeOf(c);
    const status = statusQuery(c, HANDOFF_STATUSES);
    return c.json({ handoffs: await deps.store.listHandoffs(scope, status) });
  });

  app.post("/:roomId/handoffs", async (c) => {
    const scope = scopeOf(c);
    const body = await parseBody(c, offerBody);
    const principal = c.get("principal");
    const person = personOf(principal);
    // A person offers on behalf of the room (from human:<id>), or an agent's work when naming it; an agent key
    // offers its own (bound) or the one it names.
    const from = person !== undefined ? (body.from ?? person) : agentFor(principal, body.from, "from");
    await checkAct(deps, c, scope, "handoff");
    const handoff = await deps.store.offerHandoff(scope, {
      from,
      to: body.to,
      taskIds: body.taskIds ?? [],
      contextIds: body.contextIds ?? [],
      note: body.note,
      offeredBy: person ?? from,
      agentOffer: person === undefined,
    });
    return c.json(handoff, 201);
  });

  app.post("/:roomId/handoffs/:handoffId", async (c) => {
    const scope = scopeOf(c);
    const id = pathId(c, "handoffId", peopleErrors.handoffNotFound);
    const body = await parseBody(c, handoffAction);
    const principal = c.get("principal");
    const by = personOf(principal) ?? agentFor(principal, body.agentId, "agentId");
    await checkAct(deps, c, scope, "handoff");
    return c.json(await deps.store.cancelHandoff(scope, { id, by }));
  });

  app.get("/:roomId/verdicts", async (c) => c.json({ verdicts: await deps.store.listVerdicts(scopeOf(c)) }));
  return app;
}
