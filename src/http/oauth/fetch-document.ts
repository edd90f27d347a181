/**
 * Fetching a Client ID Metadata Document (docs/security.md#oauth) with the webhooks' SSRF guard: the host is resolved
 * once, refused when any answer is internal, and the connection goes to that one checked address (so a DNS answer
 * that changes between the check and the connection cannot redirect it). A GET over https only, no redirect
 * followed, at most `maxBytes` read, abandoned at `timeoutMs`.
 */
import type { IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { pinAddress, type Resolver, systemResolver } from "../../live/webhooks/pin.ts";

export interface DocumentFetch {
  /** Resolves the host once; the system resolver by default (tests inject theirs). */
  resolve?: Resolver;
  /** Connect to internal addresses too: tests only (no setting exposes it). */
  allowPrivate?: boolean;
  /** Certificates (PEM) to trust instead of the system store: tests only. */
  ca?: string;
  timeoutMs: number;
  maxBytes: number;
}

export type Fetched = { ok: true; text: string } | { ok: false; error: string };

export async function fetchDocumentText(url: URL, options: DocumentFetch): Promise<Fetched> {
  if (url.protocol !== "https:")
    return { ok: false, error: "the client's metadata document URL is not https" };
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const pin = await pinAddress(host, {
    resolve: options.resolve ?? systemResolver,
    allowPrivate: options.allowPrivate === true,
  });
  if (!pin.ok) return { ok: false, error: `the client's metadata document is not reachable (${pin.error})` };
  const target = pin.target;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (answer: Fetched) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(answer);
    };
    const timer = setTimeout(
      () => finish({ ok: false, error: "the client's metadata document did not answer in time" }),
      options.timeoutMs,
    );
    const lookup: LookupFunction = (_host, lookupOptions, callback) => {
      if (lookupOptions?.all) callback(null, [{ address: target.address, family: target.family }]);
      else callback(null, target.address, target.family);
    };
    const request = httpsRequest(
      {
        host,
        port: url.port === "" ? 443 : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: "GET",
        headers: { host: url.host, accept: "application/json" },
        agent: false,
        lookup,
        ...(options.ca !== undefined ? { ca: options.ca } : {}),
      },
      (response: IncomingMessage) => {
        const status = response.statusCode ?? 0;
        if (status !== 200)
          return finish({ ok: false, error: `the client's metadata document answered ${status}` });
        const chunks: Buffer[] = [];
        let bytes = 0;
        response.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > options.maxBytes)
            return finish({ ok: false, error: "the client's metadata document is too large" });
          chunks.push(chunk);
        });
        response.on("end", () => finish({ ok: true, text: Buffer.concat(chunks).toString("utf8") }));
        response.on("error", () =>
          finish({ ok: false, error: "the client's metadata document could not be read" }),
        );
      },
    );
    request.on("error", () =>
      finish({ ok: false, error: "the client's metadata document could not be fetched" }),
    );
    request.end();
  });
}
