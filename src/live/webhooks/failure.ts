/**
 * Short, fixed descriptions of delivery failures for the delivery log. They are built from error codes only —
 * never from an error's message, which can quote the URL (whose path may hold a receiver's token), a header or
 * response bytes.
 */

const CODE = /^[A-Z][A-Z0-9_]{0,63}$/;

/** An error's `code` when it has the shape of a runtime error code (`ECONNREFUSED`, `ERR_TLS_…`), else undefined. */
export function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && CODE.test(code) ? code : undefined;
}

const KNOWN: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  EPIPE: "connection closed while sending",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "connection timed out",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "DNS lookup failed temporarily",
  HPE_HEADER_OVERFLOW: "response headers too large",
};

// Certificate problems come with OpenSSL-style codes (DEPTH_ZERO_SELF_SIGNED_CERT, CERT_HAS_EXPIRED, …) or
// Node-style ones (ERR_TLS_CERT_ALTNAME_INVALID).
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|.*CERT|.*_SIGNATURE$|.*ISSUER|SELF_SIGNED)/;

/** `connection refused`, `TLS certificate not accepted (CERT_HAS_EXPIRED)`, `request failed (EFOO)`. */
export function describeNetworkError(error: unknown): string {
  const code = codeOf(error);
  if (code === undefined) return "request failed";
  const known = KNOWN[code];
  if (known) return known;
  if (TLS_CODE.test(code)) return `TLS certificate not accepted (${code})`;
  return `request failed (${code})`;
}
