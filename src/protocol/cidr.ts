/**
 * Address ranges (CIDR) for TRUSTED_PROXY_CIDRS: which TCP peers may assert a person's identity in a header.
 * IPv4 and IPv6; an IPv4-mapped IPv6 peer (::ffff:10.0.0.1, as a dual-stack socket reports IPv4 clients) is
 * compared as the IPv4 address it is. The address parsers are shared with the webhooks' SSRF guard
 * (src/live/webhooks/address.ts).
 */

export interface Cidr {
  /** 4 bytes for IPv4, 16 for IPv6. */
  bytes: Uint8Array;
  prefix: number;
  /** As configured, for messages. */
  text: string;
}

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

/** Bare IPv6 text (compressed `::`, a dotted IPv4 tail; no brackets, no `%zone`) → 16 bytes, or null. */
export function parseIpv6(text: string): Uint8Array | null {
  let head = text;
  let tail4: Uint8Array | null = null;
  const lastColon = text.lastIndexOf(":");
  if (text.slice(lastColon + 1).includes(".")) {
    tail4 = parseIpv4(text.slice(lastColon + 1));
    if (!tail4) return null;
    head = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = head.split("::");
  if (halves.length > 2) return null;
  const group = (s: string) => (s === "" ? [] : s.split(":"));
  const left = group(halves[0] ?? "");
  const right = halves.length === 2 ? group(halves[1] ?? "") : [];
  const missing = 8 - left.length - right.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const words = [...left, ...Array(halves.length === 2 ? missing : 0).fill("0"), ...right];
  const bytes = new Uint8Array(16);
  for (const [i, word] of words.entries()) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(word)) return null;
    const n = Number.parseInt(word, 16);
    bytes[i * 2] = n >> 8;
    bytes[i * 2 + 1] = n & 0xff;
  }
  if (tail4) bytes.set(tail4, 12);
  return bytes;
}

/** The bytes of an address, IPv4-mapped IPv6 as IPv4; null when it is not an IP address. */
export function parseAddress(text: string): Uint8Array | null {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const v4 = parseIpv4(bare);
  if (v4) return v4;
  const v6 = parseIpv6(bare.split("%")[0] ?? "");
  if (!v6) return null;
  const mapped = v6.slice(0, 10).every((b) => b === 0) && v6[10] === 0xff && v6[11] === 0xff;
  return mapped ? v6.slice(12) : v6;
}

/** `10.0.0.0/8`, `fd00::/8`, or one address (a /32 or /128); null when malformed. */
export function parseCidr(text: string): Cidr | null {
  const [address, prefixText, extra] = text.trim().split("/");
  if (address === undefined || extra !== undefined) return null;
  const bytes = parseAddress(address);
  if (!bytes) return null;
  const max = bytes.length * 8;
  if (prefixText !== undefined && !/^(0|[1-9][0-9]{0,2})$/.test(prefixText)) return null;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) return null;
  return { bytes, prefix, text: text.trim() };
}

/** True when the address lies in the range (an IPv4 address never lies in an IPv6 range, and the reverse). */
export function inCidr(address: Uint8Array, cidr: Cidr): boolean {
  if (address.length !== cidr.bytes.length) return false;
  let bits = cidr.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((address[i] ?? 0) & mask) !== ((cidr.bytes[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** True when the peer (as the socket reports it) lies in any of the ranges. */
export function peerAllowed(peer: string, cidrs: readonly Cidr[]): boolean {
  const address = parseAddress(peer);
  return address !== null && cidrs.some((cidr) => inCidr(address, cidr));
}
