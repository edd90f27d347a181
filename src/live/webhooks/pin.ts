/**
 * The send-time half of the SSRF guard: a webhook's host is resolved exactly once per send, every answer is
 * checked, and the first answer is the only address the request may connect to. Because nothing resolves the
 * name again, a DNS server that answers "public" to the check and "private" to the connection (DNS rebinding)
 * cannot redirect the request.
 */
import { lookup } from "node:dns/promises";
import { describeRange, parseIpv4, parseIpv6, refusedRange } from "./address.ts";
import { describeNetworkError } from "./failure.ts";

/** One address a name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to its addresses, in the order to try them. Injected so tests control DNS. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (getaddrinfo, so /etc/hosts counts too), every answer in the order it gave them. */
export const systemResolver: Resolver = async (hostname) => {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/** The one address to connect to, or why there is none (a short reason for the delivery log). */
export type PinResult = { ok: true; target: ResolvedAddress } | { ok: false; error: string };

const ALLOW_PRIVATE = "set WEBHOOK_ALLOW_PRIVATE=true to allow private addresses";

/** The family of an IP address text, or null when it is not one. */
function familyOf(address: string): 4 | 6 | null {
  if (parseIpv4(address)) return 4;
  return parseIpv6(address) ? 6 : null;
}

/**
 * The one address to connect to for `host` (a name, or an IP literal without brackets). An IP literal is used as
 * it is; a name is resolved once with `resolve`. Refused when the lookup fails or answers nothing, when an answer
 * is not an IP address, or — unless allowPrivate — when ANY answer lies in a refused range: a name that also
 * points inside the network is not trusted with its public answers either.
 */
export async function pinAddress(
  host: string,
  options: { resolve: Resolver; allowPrivate: boolean },
): Promise<PinResult> {
  const literal = familyOf(host);
  let answers: ResolvedAddress[];
  if (literal !== null) {
    answers = [{ address: host, family: literal }];
  } else {
    try {
      answers = await options.resolve(host);
    } catch (error) {
      return { ok: false, error: `DNS lookup failed: ${describeNetworkError(error)}` };
    }
  }
  if (answers.length === 0) return { ok: false, error: "DNS lookup returned no address" };
  const checked: ResolvedAddress[] = [];
  for (const answer of answers) {
    // The family comes from the text itself, not from what the resolver claims.
    const family = familyOf(answer.address);
    if (family === null)
      return { ok: false, error: "DNS lookup returned something that is not an IP address" };
    const range = options.allowPrivate ? null : refusedRange(answer.address);
    if (range) {
      return {
        ok: false,
        error: `refused: the host resolves to a ${describeRange(range)} address (${ALLOW_PRIVATE})`,
      };
    }
    checked.push({ address: answer.address, family });
  }
  return { ok: true, target: checked[0] as ResolvedAddress };
}
