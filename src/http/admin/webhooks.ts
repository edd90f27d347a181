/**
 * /admin/rooms/:roomId/webhooks: the room owner registers, lists, deletes and tests webhooks and reads their
 * delivery log. The signing secret is derived from the webhook id (live/webhooks/signing-key.ts) and shown once,
 * at registration; nothing secret is stored. Without a signing key every route answers 503.
 */
import { Hono } from "hono";
import { z } from "zod";
import { shortId } from "../../access/secrets.ts";
import { deliverOnce } from "../../live/webhooks/deliver.ts";
import { webhookSecret } from "../../live/webhooks/signing-key.ts";
import { checkWebhookUrl } from "../../live/webhooks/url-rules.ts";
import { errors, RoomError } from "../../protocol/errors.ts";
import { isRoomId } from "../../protocol/ids.ts";
import type { RoomEvent } from "../../protocol/records.ts";
import { iso } from "../../protocol/time.ts";
import { line } from "../../protocol/validation.ts";
import { WEBHOOK_ID, WEBHOOK_LIMITS } from "../../protocol/webhooks.ts";
import type { WebhookRecord } from "../../store/types.ts";
import type { AuthEnv } from "../auth.ts";
import { parseBody } from "../errors.ts";
import type { AdminDeps } from "./shared.ts";

const NO_KEY = "Webhooks need WEBHOOK_SIGNING_KEY";
/** The event type of a test delivery. */
export const TEST_EVENT_TYPE = "webhook.test";

const createBody = z.strictObject({
  url: z.string({ error: "required, an absolute https URL" }),
  types: z
    .array(line(1, 64))
    .min(1, { error: "must list at least one event type (leave it out to get every type)" })
    .max(WEBHOOK_LIMITS.typesMax)
    .optional(),
  description: line(0, WEBHOOK_LIMITS.descriptionMax).optional(),
});

const webhookNotFound = () => new RoomError("not_found", "Webhook not found");
const newWebhookId = () => `wh_${shortId(16)}`;

/** A webhook as the routes show it: without roomId (it is in the path). */
function shown({ roomId: _roomId, ...webhook }: WebhookRecord) {
  return webhook;
}

/** The event of a test delivery: not in the room's log (seq 0), addressed to everyone. */
function testEvent(webhookId: string, now: number): RoomEvent {
  return {
    id: `evt-test-${shortId(12)}`,
    seq: 0,
    type: TEST_EVENT_TYPE,
    from: "system",
    to: "all",
    payload: { webhookId, message: "A test delivery from roomd" },
    timestamp: iso(now),
    read_by: [],
  };
}

/** Routes throw RoomErrors; the app's onError answers them with their status (http/errors.ts). */
export function webhookRoutes(deps: AdminDeps): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  const settings = deps.limits;
  const flags = { allowHttp: settings.webhookAllowHttp, allowPrivate: settings.webhookAllowPrivate };
  const scopeOf = (c: {
    get: (k: "principal") => { teamId: string };
    req: { param: (k: "roomId") => string };
  }) => ({
    roomId: c.req.param("roomId"),
    teamId: c.get("principal").teamId,
  });
  /** The signing key, the room id and the webhook id are checked before anything else. */
  const checked = (path: string) =>
    app.use(path, async (c, next) => {
      if (settings.webhookSigningKey === undefined) return c.json({ error: NO_KEY }, 503);
      if (!isRoomId(c.req.param("roomId") ?? "")) throw errors.denied();
      const webhookId = c.req.param("webhookId");
      if (webhookId !== undefined && !WEBHOOK_ID.test(webhookId)) throw webhookNotFound();
      await next();
    });
  checked("/rooms/:roomId/webhooks");
  checked("/rooms/:roomId/webhooks/:webhookId");
  checked("/rooms/:roomId/webhooks/:webhookId/*");
  const signingKey = () => settings.webhookSigningKey as string;

  app.post("/rooms/:roomId/webhooks", async (c) => {
    const body = await parseBody(c, createBody);
    const url = checkWebhookUrl(body.url, flags);
    const webhookId = newWebhookId();
    const webhook = await deps.store.createWebhook(
      scopeOf(c),
      {
        webhookId,
        url,
        types: [...new Set(body.types ?? [])],
        ...(body.description ? { description: body.description } : {}),
        createdAt: iso(deps.now()),
      },
      settings.webhooksPerRoom,
    );
    const { webhookId: id, url: stored, types, description, createdAt } = webhook;
    return c.json(
      {
        webhookId: id,
        url: stored,
        types,
        ...(description !== undefined ? { description } : {}),
        createdAt,
        secret: webhookSecret(signingKey(), id),
        message: "Store this secret now: it is shown only once and cannot be recovered.",
      },
      201,
    );
  });

  app.get("/rooms/:roomId/webhooks", async (c) => {
    const webhooks = await deps.store.listWebhooks(scopeOf(c));
    return c.json({ roomId: c.req.param("roomId"), webhooks: webhooks.map(shown) });
  });

  app.delete("/rooms/:roomId/webhooks/:webhookId", async (c) => {
    const webhookId = c.req.param("webhookId");
    if (!(await deps.store.deleteWebhook(scopeOf(c), webhookId))) throw webhookNotFound();
    return c.json({ ok: true, webhookId });
  });

  app.get("/rooms/:roomId/webhooks/:webhookId/deliveries", async (c) => {
    const webhookId = c.req.param("webhookId");
    const deliveries = await deps.store.webhookDeliveries(scopeOf(c), webhookId);
    if (deliveries === null) throw webhookNotFound();
    return c.json({ webhookId, deliveries });
  });

  app.post("/rooms/:roomId/webhooks/:webhookId/test", async (c) => {
    const scope = scopeOf(c);
    const webhookId = c.req.param("webhookId");
    const webhook = (await deps.store.listWebhooks(scope)).find((w) => w.webhookId === webhookId);
    if (!webhook) throw webhookNotFound();
    const startedAt = deps.now();
    const result = await deliverOnce(
      {
        roomId: scope.roomId,
        webhookId,
        url: webhook.url,
        event: testEvent(webhookId, startedAt),
        messageId: `${scope.roomId}.test-${shortId(12)}.${webhookId}`,
      },
      { ...flags, signingKey: signingKey() },
      deps.now,
    );
    const delivered = result.outcome === "delivered";
    const details = {
      ...(result.httpStatus !== undefined ? { httpStatus: result.httpStatus } : {}),
      ...(result.error !== undefined ? { error: result.error } : {}),
    };
    // Logged, and nothing else: a test neither counts toward disabling nor disables (not even on 410).
    await deps.store.logTestDelivery(scope, webhookId, {
      eventSeq: 0,
      attempt: 1,
      outcome: delivered ? "delivered" : "failed",
      ...details,
      durationMs: result.durationMs,
      at: iso(startedAt),
    });
    return c.json({ delivered, ...details });
  });

  return app;
}
