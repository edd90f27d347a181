/**
 * A signed delivery of one room event and a sender preset for loopback receivers, shared by the send tests.
 * The host name is in `.test`, which never resolves in public DNS: only the injected resolver knows it.
 */
import { webhookBody, webhookMessageId } from "../../src/live/webhooks/message.ts";
import type { Resolver } from "../../src/live/webhooks/pin.ts";
import { type SendOptions, sendWebhook } from "../../src/live/webhooks/send.ts";
import { newWebhookSecret, unixSeconds, webhookHeaders } from "../../src/live/webhooks/signature.ts";
import type { RoomEvent } from "../../src/protocol/records.ts";

export const HOST = "hooks.example.test";

/** Every name is 127.0.0.1. */
export const loopbackResolver: Resolver = async () => [{ address: "127.0.0.1", family: 4 }];

/** Its payload carries a marker that must never show up in an error string. */
export const TEST_EVENT: RoomEvent = {
  id: "evt_1",
  seq: 3,
  type: "message",
  from: "agent-a",
  to: "*",
  payload: { text: "body-marker-do-not-log" },
  timestamp: "2026-01-01T00:00:00.000Z",
  read_by: [],
};

/** Body and headers of TEST_EVENT in room-1 for webhook wh_1, signed now with `secret`. */
export function signedDelivery(secret = newWebhookSecret()) {
  const body = webhookBody("room-1", TEST_EVENT);
  const id = webhookMessageId("room-1", TEST_EVENT.seq, "wh_1");
  const headers = webhookHeaders({ secret, id, timestamp: unixSeconds(Date.now()), body });
  return { secret, body, headers };
}

/** Sends a fresh signed delivery to http://hooks.example.test:<port><path>, pinned to 127.0.0.1. */
export function sendToLoopback(port: number, extra: Partial<SendOptions> = {}, path = "/hook?x=1") {
  const { body, headers } = signedDelivery();
  return sendWebhook({
    url: `http://${HOST}:${port}${path}`,
    headers,
    body,
    allowHttp: true,
    allowPrivate: true,
    resolve: loopbackResolver,
    ...extra,
  });
}
