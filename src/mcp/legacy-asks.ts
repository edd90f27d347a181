/**
 * Server-to-client requests of the 2025 era (sampling, elicitation) on a stateless server. The request goes out on
 * the stream of the tools/call that asks; the client answers with a separate POST, which reaches a fresh
 * transport. So the transport that asks is wrapped: each request it sends gets a process-unique id, remembered with
 * the transport, the caller's identity and the request's own id; the answering POST's responses are handed back to
 * that transport by id. Only the caller that was asked may answer, and only within the process that asked (a
 * deployment behind a load balancer needs affinity for it: roomd's own tools never ask).
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Principal } from "../protocol/principal.ts";

interface Pending {
  transport: Transport;
  originalId: string | number;
  caller: string;
  timer: ReturnType<typeof setTimeout>;
}

const pending = new Map<string, Pending>();
/** An unanswered request is forgotten after this long (its tool call gives up with the client's silence). */
const ANSWER_WITHIN_MS = 60_000;

const callerOf = (principal: Principal) =>
  `${principal.teamId}\n${principal.keyId ?? principal.kind}\n${principal.humanId ?? ""}`;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** Wraps `transport` so the requests it sends can be answered by later POSTs of the same caller. */
export function routeAsks(transport: Transport, principal: Principal): void {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const record = message as unknown;
    if (isRecord(record) && typeof record.method === "string" && "id" in record) {
      const routed = `roomd-ask-${crypto.randomUUID()}`;
      const timer = setTimeout(() => pending.delete(routed), ANSWER_WITHIN_MS);
      timer.unref?.();
      pending.set(routed, {
        transport,
        originalId: record.id as string | number,
        caller: callerOf(principal),
        timer,
      });
      return send({ ...message, id: routed } as JSONRPCMessage, options);
    }
    return send(message, options);
  };
  const close = transport.onclose;
  transport.onclose = () => {
    for (const [id, entry] of pending) {
      if (entry.transport !== transport) continue;
      clearTimeout(entry.timer);
      pending.delete(id);
    }
    close?.();
  };
}

/** True when every message of the body is a response (a client answering requests roomd sent). */
export function onlyResponses(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return (
    messages.length > 0 &&
    messages.every((m) => isRecord(m) && !("method" in m) && "id" in m && ("result" in m || "error" in m))
  );
}

/** Hands each response to the transport that asked; answers for others or unknown ids are dropped. */
export function deliverAnswers(body: unknown, principal: Principal): void {
  for (const message of Array.isArray(body) ? body : [body]) {
    const id = (message as { id?: unknown }).id;
    const entry = typeof id === "string" ? pending.get(id) : undefined;
    if (!entry || entry.caller !== callerOf(principal)) continue;
    clearTimeout(entry.timer);
    pending.delete(id as string);
    entry.transport.onmessage?.({ ...(message as object), id: entry.originalId } as JSONRPCMessage);
  }
}
