/**
 * People talking to agents (docs/people.md#who-can-do-what): messages queued for an agent's next turn, and the driver
 * — taking and releasing the wheel, steering and interrupting under epoch fencing (one atomic store operation each).
 */
import { Hono } from "hono";
import { z } from "zod";
import { RoomError } from "../../protocol/errors.ts";
import { PEOPLE_LIMITS } from "../../protocol/people.ts";
import { BROADCAST } from "../../protocol/records.ts";
import type { AuthEnv } from "../auth.ts";
import { parseBody } from "../errors.ts";
import { agentSchema, checkAct, personFor, type RoomRouteDeps, scopeOf } from "./shared.ts";

const text = (max: number) => z.string().min(1).max(max);
const epoch = z.number().int().min(0);
/** One agent: steering and interrupting address the running agent, never "all". */
const oneAgent = agentSchema.refine((v) => v !== BROADCAST, { error: "must name one agent (not all)" });

const messageBody = z.strictObject({
  to: agentSchema.describe('an agent id, or "all"'),
  text: text(PEOPLE_LIMITS.messageMax),
});
const driverBody = z.discriminatedUnion("action", [
  z.strictObject({ action: z.literal("take"), force: z.boolean().optional() }),
  z.strictObject({ action: z.literal("release"), epoch }),
]);
const steerBody = z.strictObject({ epoch, to: oneAgent, text: text(PEOPLE_LIMITS.messageMax) });
const interruptBody = z.strictObject({ epoch, to: oneAgent, reason: text(PEOPLE_LIMITS.reasonMax) });

export function talkRoutes(deps: RoomRouteDeps): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();

  app.post("/:roomId/messages", async (c) => {
    const scope = scopeOf(c);
    const from = personFor(c, "post messages");
    const body = await parseBody(c, messageBody);
    await checkAct(deps, c, scope, "message");
    const event = await deps.store.postEvent(scope, {
      type: "human_message",
      from,
      to: body.to,
      payload: { text: body.text },
    });
    return c.json({ eventId: event.id, seq: event.seq }, 201);
  });

  app.get("/:roomId/driver", async (c) => c.json(await deps.store.getDriver(scopeOf(c))));

  app.post("/:roomId/driver", async (c) => {
    const scope = scopeOf(c);
    const holder = personFor(c, "take the wheel");
    const body = await parseBody(c, driverBody);
    if (body.action === "release") {
      return c.json(await deps.store.releaseDriver(scope, { holder, epoch: body.epoch }));
    }
    await checkAct(deps, c, scope, "drive");
    if (body.force === true && c.get("principal").kind !== "operator") {
      throw new RoomError("forbidden", "Only an operator can take the wheel from another person (force)");
    }
    return c.json(await deps.store.takeDriver(scope, { holder, kind: "human", force: body.force === true }));
  });

  app.post("/:roomId/steer", async (c) => {
    const scope = scopeOf(c);
    const by = personFor(c, "steer");
    const body = await parseBody(c, steerBody);
    await checkAct(deps, c, scope, "drive");
    const event = await deps.store.driverAct(scope, {
      type: "steer",
      by,
      epoch: body.epoch,
      to: body.to,
      text: body.text,
    });
    return c.json({ eventId: event.id, seq: event.seq, epoch: body.epoch }, 201);
  });

  app.post("/:roomId/interrupt", async (c) => {
    const scope = scopeOf(c);
    const by = personFor(c, "interrupt");
    const body = await parseBody(c, interruptBody);
    await checkAct(deps, c, scope, "drive");
    const event = await deps.store.driverAct(scope, {
      type: "interrupt",
      by,
      epoch: body.epoch,
      to: body.to,
      text: body.reason,
    });
    return c.json({ eventId: event.id, seq: event.seq, epoch: body.epoch }, 201);
  });
  return app;
}
