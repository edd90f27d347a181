/**
 * The room board's side of the MCP Apps protocol (ext-apps specification 2026-01-26): JSON-RPC 2.0 over
 * postMessage with the host that renders the board (its parent window). The board asks (`ui/initialize`,
 * `tools/call`, which the host passes on to roomd with the person's connection), tells (`ui/notifications/…`),
 * and answers the host's requests (`ping`, `ui/resource-teardown`). Only messages from the parent window count.
 */

export type Params = Record<string, unknown>;

export interface Handlers {
  /** A notification from the host (tool input, tool result, host context changed, …). */
  notified(method: string, params: Params): void;
  /** The host is about to remove the board: stop what runs. */
  teardown(): void;
}

/** An error the host answered a request with. */
export class HostError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "HostError";
  }
}

const isRecord = (value: unknown): value is Params =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** How long a request may wait for its answer (a poll holds a call open for up to 10 s). */
const REQUEST_MS = 30_000;

export interface Bridge {
  request(method: string, params: Params): Promise<Params>;
  notify(method: string, params: Params): void;
}

export function connectBridge(handlers: Handlers): Bridge {
  let nextId = 1;
  const waiting = new Map<number, { resolve(result: Params): void; reject(error: Error): void }>();
  // The host's origin is not known to the board (hosts sandbox it on origins of their own); what the board sends
  // is the person's own view of their room and their acts, which only the parent receives.
  const post = (message: Params) => window.parent.postMessage({ jsonrpc: "2.0", ...message }, "*");

  window.addEventListener("message", (event) => {
    if (event.source !== window.parent || !isRecord(event.data) || event.data.jsonrpc !== "2.0") return;
    const message = event.data;
    if (typeof message.method === "string") {
      const params = isRecord(message.params) ? message.params : {};
      if (message.id === undefined) {
        handlers.notified(message.method, params);
        return;
      }
      if (message.method === "ui/resource-teardown") handlers.teardown();
      const known = message.method === "ping" || message.method === "ui/resource-teardown";
      post(
        known
          ? { id: message.id, result: {} }
          : { id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } },
      );
      return;
    }
    const pending = typeof message.id === "number" ? waiting.get(message.id) : undefined;
    if (!pending) return;
    waiting.delete(message.id as number);
    if (isRecord(message.error)) {
      const { code, message: text } = message.error;
      pending.reject(new HostError(typeof code === "number" ? code : -32603, String(text ?? "error")));
    } else pending.resolve(isRecord(message.result) ? message.result : {});
  });

  return {
    request(method, params) {
      const id = nextId++;
      post({ id, method, params });
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new HostError(-32001, `The host did not answer ${method} in time`));
        }, REQUEST_MS);
        waiting.set(id, {
          resolve: (result) => {
            clearTimeout(timer);
            resolve(result);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        });
      });
    },
    notify(method, params) {
      post({ method, params });
    },
  };
}
