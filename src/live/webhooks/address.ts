/**
 * The SSRF guard's address rules: which IP addresses a webhook may never reach (unless WEBHOOK_ALLOW_PRIVATE=true).
 * Pure functions over canonical byte forms, so every spelling of an address (compressed IPv6, IPv4-mapped IPv6,
 * a zone id) meets the same table.
 *
 * Decisions beyond the spec's list (see docs/security.md, "Webhooks: the SSRF guard"):
 * - IPv4 0/8, 240/4 (reserved, holds the broadcast address), 192.0.0/24, 198.18/15 and the TEST-NETs are refused:
 *   none is a legitimate receiver and some (198.18/15) are used inside private networks.
 * - IPv6 ::/96 (deprecated IPv4-compatible), 64:ff9b:1::/48 (local-use NAT64), Teredo 2001::/32, fec0::/10,
 *   100::/64 and 2001:db8::/32 are refused whole: deprecated, local or documentation-only.
 * - IPv6 forms that carry an IPv4 address a gateway would reach (IPv4-mapped ::ffff:0:0/96, IPv4-translated
 *   ::ffff:0:0:0/96, the NAT64 well-known prefix 64:ff9b::/96 and 6to4 2002::/16) are judged by that IPv4
 *   address: refused when it is, allowed otherwise (IPv6-only networks reach public IPv4 hosts through NAT64).
 */

/** Why an address is refused: its kind and the range it fell in, e.g. `loopback (127.0.0.0/8)`. */
export interface RefusedRange {
  kind: string;
  cidr: string;
  /** Set when an IPv6 address was judged by the IPv4 address it embeds. */
  via?: string;
}

interface Range {
  bytes: number[];
  bits: number;
  kind: string;
  cidr: string;
}

const v4 = (cidr: string, kind: string): Range => {
  const [addr = "", bits = "32"] = cidr.split("/");
  return { bytes: addr.split(".").map(Number), bits: Number(bits), kind, cidr };
};

const v6 = (cidr: string, kind: string): Range => {
  const [addr = "", bits = "128"] = cidr.split("/");
  const bytes = parseIpv6(addr);
  if (!bytes) throw new Error(`bad range ${cidr}`);
  return { bytes: Array.from(bytes), bits: Number(bits), kind, cidr };
};

// First match wins, so the narrower, better-named ranges come first.
const IPV4_REFUSED: Range[] = [
  v4("255.255.255.255/32", "broadcast"),
  v4("0.0.0.0/8", "unspecified"),
  v4("10.0.0.0/8", "private"),
  v4("100.64.0.0/10", "carrier-grade NAT"),
  v4("127.0.0.0/8", "loopback"),
  v4("169.254.0.0/16", "link-local"),
  v4("172.16.0.0/12", "private"),
  v4("192.0.0.0/24", "IETF protocol assignments"),
  v4("192.0.2.0/24", "documentation"),
  v4("192.168.0.0/16", "private"),
  v4("198.18.0.0/15", "benchmarking"),
  v4("198.51.100.0/24", "documentation"),
  v4("203.0.113.0/24", "documentation"),
  v4("224.0.0.0/4", "multicast"),
  v4("240.0.0.0/4", "reserved"),
];

const IPV6_REFUSED: Range[] = [
  v6("::/128", "unspecified"),
  v6("::1/128", "loopback"),
  v6("::/96", "IPv4-compatible (deprecated)"),
  v6("64:ff9b:1::/48", "local-use NAT64"),
  v6("100::/64", "discard-only"),
  v6("2001::/32", "Teredo"),
  v6("2001:db8::/32", "documentation"),
  v6("fc00::/7", "unique-local"),
  v6("fe80::/10", "link-local"),
  v6("fec0::/10", "site-local (deprecated)"),
  v6("ff00::/8", "multicast"),
];

/** IPv6 prefixes followed by an IPv4 address that the packet ends up reaching; `at` = byte offset of it. */
const IPV6_EMBEDDING: { range: Range; at: number }[] = [
  { range: v6("::ffff:0:0/96", "IPv4-mapped IPv6"), at: 12 },
  { range: v6("::ffff:0:0:0/96", "IPv4-translated IPv6"), at: 12 },
  { range: v6("64:ff9b::/96", "NAT64"), at: 12 },
  { range: v6("2002::/16", "6to4"), at: 2 },
];

/** Dotted-decimal IPv4 (exactly four parts, 0-255, no leading zeros) → 4 bytes, or null. */
export function parseIpv4(text: string): Uint8Array | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const bytes = new Uint8Array(4);
  for (const [i, part] of parts.entries()) {
    // Leading zeros are refused rather than guessed at: some parsers read them as octal.
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part) || Number(part) > 255) return null;
    bytes[i] = Number(part);
  }
  return bytes;
}

/** IPv6 text (compressed `::`, a dotted IPv4 tail, optional brackets or `%zone`) → 16 bytes, or null. */
export function parseIpv6(text: string): Uint8Array | null {
  let s = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  s = s.replace(/%[^%]+$/, ""); // a zone id scopes a link-local address; it does not change which address it is
  let tail: Uint8Array | null = null;
  const lastColon = s.lastIndexOf(":");
  if (s.includes(".", lastColon)) {
    tail = parseIpv4(s.slice(lastColon + 1));
    if (!tail) return null;
    s = `${s.slice(0, lastColon + 1)}0:0`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const groups = (half: string | undefined) => (half ? half.split(":") : []);
  const head = groups(halves[0]);
  const rest = groups(halves[1]);
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...rest];
  const bytes = new Uint8Array(16);
  for (const [i, group] of all.entries()) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return null;
    const value = Number.parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  }
  if (tail) bytes.set(tail, 12);
  return bytes;
}

function inRange(bytes: Uint8Array, range: Range): boolean {
  for (let bit = 0; bit < range.bits; bit += 8) {
    const i = bit / 8;
    const mask = range.bits - bit >= 8 ? 0xff : (0xff << (8 - (range.bits - bit))) & 0xff;
    if (((bytes[i] ?? 0) & mask) !== ((range.bytes[i] ?? 0) & mask)) return false;
  }
  return true;
}

const found = (range: Range, via?: string): RefusedRange =>
  via === undefined ? { kind: range.kind, cidr: range.cidr } : { kind: range.kind, cidr: range.cidr, via };

/**
 * The refused range an IP address falls in, or null when a webhook may reach it. Text that is not an IP address
 * throws: the caller decides (a URL host that is not an IP is a name; a resolver answer that is not one is refused).
 */
export function refusedRange(address: string): RefusedRange | null {
  const four = parseIpv4(address);
  if (four) {
    const range = IPV4_REFUSED.find((r) => inRange(four, r));
    return range ? found(range) : null;
  }
  const six = parseIpv6(address);
  if (!six) throw new TypeError("not an IP address");
  for (const { range, at } of IPV6_EMBEDDING) {
    if (!inRange(six, range)) continue;
    const inner = IPV4_REFUSED.find((r) => inRange(six.subarray(at, at + 4), r));
    return inner ? found(inner, range.kind) : null;
  }
  const range = IPV6_REFUSED.find((r) => inRange(six, r));
  return range ? found(range) : null;
}

/** Whether text is an IPv4 or IPv6 address in a form refusedRange reads. */
export const isIpAddress = (text: string): boolean => parseIpv4(text) !== null || parseIpv6(text) !== null;

/** `loopback (127.0.0.0/8)`, `loopback (127.0.0.0/8) inside IPv4-mapped IPv6`: for error messages. */
export const describeRange = (r: RefusedRange): string =>
  `${r.kind} (${r.cidr})${r.via ? ` inside ${r.via}` : ""}`;
