/**
 * One webhook delivery attempt: POST the signed body to the URL, connecting only to the address pinned by
 * pin.ts, and classify the answer.
 *
 * Why node:http(s) with a `lookup` option: the client asks our lookup function (which hands back the pinned
 * address) instead of DNS, while the URL's host name still drives the Host header, TLS SNI and certificate
 * verification — no override of a standard header or of TLS identity checks is needed. Bun's fetch would also
 * connect to an IP with a Host header and `tls.serverName`, but it honours HTTP_PROXY/HTTPS_PROXY, and a proxy
 * resolves the name again (defeating the pin); node:http does not use proxy variables. `agent: false` gives every
 * attempt its own connection, so no pooled socket to an earlier address is ever reused.
 */

import type { IncomingMessage } from "node:http";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { type Clock, systemClock } from "../../protocol/time.ts";
import { describeNetworkError } from "./failure.ts";
import type { SendOutcome } from "./message.ts";
import { pinAddress, type ResolvedAddress, type Resolver, systemResolver } from "./pin.ts";
import { bareHost, inspectWebhookUrl } from "./url-rules.ts";

export interface SendResult {
  outcome: SendOutcome;
  /** The receiver's status, when it answered. */
  httpStatus?: number;
  /** Why it failed, in a few words; never a secret, a header value or response bytes. */
  error?: string;
  durationMs: number;
  /** Response body bytes read (at most maxResponseBytes). */
  responseBytes: number;
}

export interface SendOptions {
  /** The registered (normalised) webhook URL; checked again here in case the flags changed since. */
  url: string;
  /** From webhookHeaders(); `host` and `content-length` are set here. */
  headers: Record<string, string>;
  /** The exact string that was signed. */
  body: string;
  /** WEBHOOK_ALLOW_PRIVATE: connect to refused ranges too. */
  allowPrivate: boolean;
  /** WEBHOOK_ALLOW_HTTP: plain http too. */
  allowHttp?: boolean;
  /** Resolves the host once; the system resolver by default. */
  resolve?: Resolver;
  /** Bound on the whole attempt (lookup, connect, answer); a 2xx within it is a delivery. */
  timeoutMs?: number;
  /** Response body bytes read at most; the rest is never read. */
  maxResponseBytes?: number;
  /** Certificates (PEM) to trust instead of the system store: on-premises receivers with a private CA, tests. */
  ca?: string | string[];
  /** Clock for durationMs. */
  now?: Clock;
}

/** A result before its duration is measured. */
type Answer = Omit<SendResult, "durationMs">;

/** Classifies a receiver's status: 2xx delivered, 410 gone, anything else (redirects included) failed. */
function byStatus(status: number, responseBytes: number): Answer {
  if (status >= 200 && status <= 299) return { outcome: "delivered", httpStatus: status, responseBytes };
  if (status === 410) return { outcome: "gone", httpStatus: status, error: "HTTP 410 Gone", responseBytes };
  const error = status >= 300 && status <= 399 ? `redirect not followed (HTTP ${status})` : `HTTP ${status}`;
  return { outcome: "failed", httpStatus: status, error, responseBytes };
}

/**
 * Sends one delivery attempt and reports its outcome; never throws for a network or receiver failure. The host is
 * resolved once (with `resolve`), refused if any answer is in a refused range (unless allowPrivate), and the
 * connection goes to the first answer only. Redirects are not followed; at most maxResponseBytes of the response
 * body are read; the attempt is abandoned at timeoutMs.
 */
export async function sendWebhook(options: SendOptions): Promise<SendResult> {
  const now = options.now ?? systemClock;
  const started = now();
  const timeoutMs = options.timeoutMs ?? 5000;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  const timedOut: Answer = { outcome: "failed", error: `timed out after ${timeoutMs} ms`, responseBytes: 0 };
  const attempt = async (): Promise<Answer> => {
    const verdict = inspectWebhookUrl(options.url, {
      allowHttp: options.allowHttp ?? false,
      allowPrivate: options.allowPrivate,
    });
    if (!verdict.ok) return { outcome: "failed", error: verdict.message, responseBytes: 0 };
    const pinning = pinAddress(bareHost(verdict.url), {
      resolve: options.resolve ?? systemResolver,
      allowPrivate: options.allowPrivate,
    });
    const pin = await untilAborted(pinning, deadline.signal);
    if (pin === undefined) return timedOut;
    if (!pin.ok) return { outcome: "failed", error: pin.error, responseBytes: 0 };
    return exchange(verdict.url, pin.target, options, deadline.signal, timedOut);
  };
  try {
    const answer = await attempt();
    return { ...answer, durationMs: Math.max(0, Math.round(now() - started)) };
  } finally {
    clearTimeout(timer);
  }
}

/** The promise's value, or undefined as soon as the signal aborts (a lookup cannot be cancelled, only left). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** The HTTP exchange with the pinned address. */
function exchange(
  url: URL,
  target: ResolvedAddress,
  options: SendOptions,
  signal: AbortSignal,
  timedOut: Answer,
): Promise<Answer> {
  const maxBytes = options.maxResponseBytes ?? 65_536;
  const https = url.protocol === "https:";
  return new Promise((resolve) => {
    let status: number | undefined;
    let bytes = 0;
    let settled = false;
    const finish = (answer: Answer) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      request.destroy(); // closes the socket: nothing more is read, whatever the receiver still sends
      resolve(answer);
    };
    // Once a status is in, it decides the outcome; a later abort or error only ends the body read.
    const settle = (failure: Answer) => finish(status === undefined ? failure : byStatus(status, bytes));
    const onAbort = () => settle(timedOut);
    // The pinned address, whatever the client asks (it asks with `all: true` in Bun, without in Node).
    const lookup: LookupFunction = (_host, lookupOptions, callback) => {
      if (lookupOptions?.all) callback(null, [{ address: target.address, family: target.family }]);
      else callback(null, target.address, target.family);
    };
    // Lower-cased so that a caller's `Host` or `Content-Length` cannot sit beside the ones set here.
    const headers = Object.fromEntries(Object.entries(options.headers).map(([k, v]) => [k.toLowerCase(), v]));
    const request = (https ? httpsRequest : httpRequest)(
      {
        host: bareHost(url),
        port: url.port === "" ? (https ? 443 : 80) : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: "POST",
        headers: {
          ...headers,
          host: url.host,
          "content-length": String(Buffer.byteLength(options.body)),
        },
        agent: false,
        lookup,
        ...(https && options.ca !== undefined ? { ca: options.ca } : {}),
      },
      (response: IncomingMessage) => {
        const answered = response.statusCode ?? 0;
        status = answered;
        const done = () => finish(byStatus(answered, bytes));
        if (maxBytes <= 0) return done();
        response.on("data", (chunk: Buffer) => {
          bytes = Math.min(maxBytes, bytes + chunk.length);
          if (bytes >= maxBytes) done();
        });
        // The body ended, broke off, or failed: the status is what counts.
        response.on("end", done);
        response.on("close", done);
        response.on("error", done);
      },
    );
    request.on("error", (error) =>
      settle({ outcome: "failed", error: describeNetworkError(error), responseBytes: 0 }),
    );
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) return onAbort();
    request.end(options.body);
  });
}
