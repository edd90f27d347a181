/**
 * POST /rooms/:roomId/bridge: the one request of a harness hook (docs/claude-code-bridge.md, `roomctl hook`). The
 * agent's own key speaks for it: a bound key is that agent, an unbound one names it. The answer carries what waits
 * for the agent (interrupt, steers, messages, digest); the store took it in the same atomic step, so it is delivered
 * once.
 */
import { Hono } from "hono";
import { z } from "zod";
import { RoomError } from "../../protocol/errors.ts";
import { BRIDGE_HOOKS, PEOPLE_LIMITS } from "../../protocol/people.ts";
import { personOf } from "../../protocol/principal.ts";
import { line } from "../../protocol/validation.ts";
import type { AuthEnv } from "../auth.ts";
import { parseBody } from "../errors.ts";
import { agentFor, agentSchema, type RoomRouteDeps, scopeOf } from "./shared.ts";

const bridgeBody = z.strictObject({
  agentId: agentSchema.optional(),
  hook: z.enum(BRIDGE_HOOKS),
  step: z
    .strictObject({
      tool: line(1, 100),
      target: z.string().max(PEOPLE_LIMITS.stepTargetMax),
      ok: z.boolean(),
    })
    .optional(),
});

export function bridgeRoutes(deps: RoomRouteDeps): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  app.post("/:roomId/bridge", async (c) => {
    const scope = scopeOf(c);
    // The bridge hands an agent what waits for it and takes it in the same step: a person's key would take an
    // agent's steers and messages away from it.
    if (personOf(c.get("principal")) !== undefined)
      throw new RoomError("forbidden", "The bridge speaks for an agent: use the agent's key, not a person's");
    const body = await parseBody(c, bridgeBody);
    const agentId = agentFor(c.get("principal"), body.agentId, "agentId");
    const step = body.hook === "PostToolUse" ? body.step : undefined;
    const result = await deps.store.bridge(scope, { agentId, hook: body.hook, ...(step ? { step } : {}) });
    return c.json({ agentId, ...result });
  });
  return app;
}
