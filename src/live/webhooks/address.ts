/**
 * The SSRF guard's address rules: which IP addresses a webhook may never reach (unless WEBHOOK_ALLOW_PRIVATE=true).
 * Pure functions over canonical byte forms, so every spelling of an address (compressed IPv6, IPv4-mapped IPv6,
 * a zone id) meets the same table.
 *
 * Refused beyond loopback, private, link-local, CGNAT, unique-local, multicast and broadcast addresses
 * (docs/security.md#webhooks-the-ssrf-guard):
 * - IPv4 0/8, 240/4 (reserved, holds the broadcast address), 192.0.0/24, 198.18/15 and the TEST-NETs are refused:
 *   none is a legitimate receiver and some (198.18/15) are used inside private networks.
 * - IPv6 ::/96 (deprecated IPv4-compatible), 64:ff9b:1::/48 (local-use NAT64), Teredo 2001::/32, fec0::/10,
 *   100::/64 and 2001:db8::/32 are refused whole: deprecated, local or documentation-only.
 * - IPv6 forms that carry an IPv4 address a gateway would reach (IPv4-mapped ::ffff:0:0/96, IPv4-translated
 *   ::ffff:0:0:0/96, the NAT64 well-known prefix 64:ff9b::/96 and 6to4 2002::/16) are judged by that IPv4
 *   address: refused when it is, allowed otherwise (IPv6-only networks reach public IPv4 hosts through NAT64).
 */

import { type Cidr, inCidr, parseIpv6 as parseBareIpv6, parseIpv4 } from "../../protocol/cidr.ts";

/** Why an address is refused: its kind and the range it fell in, e.g. `loopback (127.0.0.0/8)`. */
export interface RefusedRange {
  kind: string;
  cidr: string;
  /** Set when an IPv6 address was judged by the IPv4 address it embeds. */
  via?: string;
}

/** A range of the tables below: the address range and its name. */
interface Range extends Cidr {
  kind: string;
}

const block = (cidr: string, kind: string): Range => {
  const [addr = "", bits] = cidr.split("/");
  const bytes = parseIpv4(addr) ?? parseIpv6(addr);
  if (!bytes) throw new Error(`bad range ${cidr}`);
  return { bytes, prefix: bits === undefined ? bytes.length * 8 : Number(bits), text: cidr, kind };
};

// First match wins, so the narrower, better-named ranges come first.
const IPV4_REFUSED: Range[] = [
  block("255.255.255.255/32", "broadcast"),
  block("0.0.0.0/8", "unspecified"),
  block("10.0.0.0/8", "private"),
  block("100.64.0.0/10", "carrier-grade NAT"),
  block("127.0.0.0/8", "loopback"),
  block("169.254.0.0/16", "link-local"),
  block("172.16.0.0/12", "private"),
  block("192.0.0.0/24", "IETF protocol assignments"),
  block("192.0.2.0/24", "documentation"),
  block("192.168.0.0/16", "private"),
  block("198.18.0.0/15", "benchmarking"),
  block("198.51.100.0/24", "documentation"),
  block("203.0.113.0/24", "documentation"),
  block("224.0.0.0/4", "multicast"),
  block("240.0.0.0/4", "reserved"),
];

const IPV6_REFUSED: Range[] = [
  block("::/128", "unspecified"),
  block("::1/128", "loopback"),
  block("::/96", "IPv4-compatible (deprecated)"),
  block("64:ff9b:1::/48", "local-use NAT64"),
  block("100::/64", "discard-only"),
  block("2001::/32", "Teredo"),
  block("2001:db8::/32", "documentation"),
  block("fc00::/7", "unique-local"),
  block("fe80::/10", "link-local"),
  block("fec0::/10", "site-local (deprecated)"),
  block("ff00::/8", "multicast"),
];

/** IPv6 prefixes followed by an IPv4 address that the packet ends up reaching; `at` = byte offset of it. */
const IPV6_EMBEDDING: { range: Range; at: number }[] = [
  { range: block("::ffff:0:0/96", "IPv4-mapped IPv6"), at: 12 },
  { range: block("::ffff:0:0:0/96", "IPv4-translated IPv6"), at: 12 },
  { range: block("64:ff9b::/96", "NAT64"), at: 12 },
  { range: block("2002::/16", "6to4"), at: 2 },
];

export { parseIpv4 };

/** IPv6 text (compressed `::`, a dotted IPv4 tail, optional brackets or `%zone`) → 16 bytes, or null. */
export function parseIpv6(text: string): Uint8Array | null {
  const s = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  // A zone id scopes a link-local address; it does not change which address it is.
  return parseBareIpv6(s.replace(/%[^%]+$/, ""));
}

const found = (range: Range, via?: string): RefusedRange =>
  via === undefined ? { kind: range.kind, cidr: range.text } : { kind: range.kind, cidr: range.text, via };

/**
 * The refused range an IP address falls in, or null when a webhook may reach it. Text that is not an IP address
 * throws: the caller decides (a URL host that is not an IP is a name; a resolver answer that is not one is refused).
 */
export function refusedRange(address: string): RefusedRange | null {
  const four = parseIpv4(address);
  if (four) {
    const range = IPV4_REFUSED.find((r) => inCidr(four, r));
    return range ? found(range) : null;
  }
  const six = parseIpv6(address);
  if (!six) throw new TypeError("not an IP address");
  for (const { range, at } of IPV6_EMBEDDING) {
    if (!inCidr(six, range)) continue;
    const inner = IPV4_REFUSED.find((r) => inCidr(six.subarray(at, at + 4), r));
    return inner ? found(inner, range.kind) : null;
  }
  const range = IPV6_REFUSED.find((r) => inCidr(six, r));
  return range ? found(range) : null;
}

/** Whether text is an IPv4 or IPv6 address in a form refusedRange reads. */
export const isIpAddress = (text: string): boolean => parseIpv4(text) !== null || parseIpv6(text) !== null;

/** `loopback (127.0.0.0/8)`, `loopback (127.0.0.0/8) inside IPv4-mapped IPv6`: for error messages. */
export const describeRange = (r: RefusedRange): string =>
  `${r.kind} (${r.cidr})${r.via ? ` inside ${r.via}` : ""}`;
