import { describe, expect, test } from "bun:test";
import { BlockList } from "node:net";
import { describeRange, isIpAddress, parseIpv4, parseIpv6, refusedRange } from "./address.ts";

// [address, expected kind or null when allowed, expected cidr]
const REFUSED: [string, string, string][] = [
  ["0.0.0.0", "unspecified", "0.0.0.0/8"],
  ["0.1.2.3", "unspecified", "0.0.0.0/8"],
  ["10.0.0.1", "private", "10.0.0.0/8"],
  ["10.255.255.255", "private", "10.0.0.0/8"],
  ["100.64.0.1", "carrier-grade NAT", "100.64.0.0/10"],
  ["100.127.255.254", "carrier-grade NAT", "100.64.0.0/10"],
  ["127.0.0.1", "loopback", "127.0.0.0/8"],
  ["127.255.0.9", "loopback", "127.0.0.0/8"],
  ["169.254.169.254", "link-local", "169.254.0.0/16"],
  ["172.16.0.1", "private", "172.16.0.0/12"],
  ["172.31.255.255", "private", "172.16.0.0/12"],
  ["192.168.1.1", "private", "192.168.0.0/16"],
  ["192.0.0.170", "IETF protocol assignments", "192.0.0.0/24"],
  ["192.0.2.10", "documentation", "192.0.2.0/24"],
  ["198.18.0.1", "benchmarking", "198.18.0.0/15"],
  ["198.19.255.255", "benchmarking", "198.18.0.0/15"],
  ["198.51.100.7", "documentation", "198.51.100.0/24"],
  ["203.0.113.9", "documentation", "203.0.113.0/24"],
  ["224.0.0.1", "multicast", "224.0.0.0/4"],
  ["239.255.255.250", "multicast", "224.0.0.0/4"],
  ["240.0.0.1", "reserved", "240.0.0.0/4"],
  ["255.255.255.255", "broadcast", "255.255.255.255/32"],
  ["::", "unspecified", "::/128"],
  ["0:0:0:0:0:0:0:0", "unspecified", "::/128"],
  ["::1", "loopback", "::1/128"],
  ["0000:0000:0000:0000:0000:0000:0000:0001", "loopback", "::1/128"],
  ["[::1]", "loopback", "::1/128"],
  ["::127.0.0.1", "IPv4-compatible (deprecated)", "::/96"],
  ["::8.8.8.8", "IPv4-compatible (deprecated)", "::/96"],
  ["fe80::1", "link-local", "fe80::/10"],
  ["fe80::1%eth0", "link-local", "fe80::/10"],
  ["febf:ffff::1", "link-local", "fe80::/10"],
  ["fec0::1", "site-local (deprecated)", "fec0::/10"],
  ["fc00::1", "unique-local", "fc00::/7"],
  ["fd12:3456:789a::1", "unique-local", "fc00::/7"],
  ["ff02::1", "multicast", "ff00::/8"],
  ["FF05::1:3", "multicast", "ff00::/8"],
  ["2001:db8::1", "documentation", "2001:db8::/32"],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo", "2001::/32"],
  ["64:ff9b:1::a00:1", "local-use NAT64", "64:ff9b:1::/48"],
  ["100::1", "discard-only", "100::/64"],
];

// IPv6 forms judged by the IPv4 address inside: [address, inner kind, cidr, via]
const EMBEDDED: [string, string, string, string][] = [
  ["::ffff:127.0.0.1", "loopback", "127.0.0.0/8", "IPv4-mapped IPv6"],
  ["::ffff:7f00:1", "loopback", "127.0.0.0/8", "IPv4-mapped IPv6"],
  ["0:0:0:0:0:ffff:10.0.0.1", "private", "10.0.0.0/8", "IPv4-mapped IPv6"],
  ["::FFFF:A9FE:A9FE", "link-local", "169.254.0.0/16", "IPv4-mapped IPv6"],
  ["::ffff:0:192.168.0.1", "private", "192.168.0.0/16", "IPv4-translated IPv6"],
  ["64:ff9b::10.1.2.3", "private", "10.0.0.0/8", "NAT64"],
  ["64:ff9b::7f00:1", "loopback", "127.0.0.0/8", "NAT64"],
  ["2002:a9fe:a9fe::1", "link-local", "169.254.0.0/16", "6to4"],
  ["2002:c0a8:0101::", "private", "192.168.0.0/16", "6to4"],
];

const ALLOWED = [
  "8.8.8.8",
  "1.1.1.1",
  "100.63.255.255", // just below CGNAT
  "100.128.0.0", // just above CGNAT
  "172.15.255.255", // just below 172.16/12
  "172.32.0.0", // just above
  "169.253.255.255",
  "192.167.255.255",
  "192.169.0.0",
  "198.17.255.255",
  "198.20.0.0",
  "223.255.255.255", // just below multicast
  "2606:4700:4700::1111",
  "2a00:1450:4001:81c::200e",
  "::ffff:8.8.8.8", // mapped public IPv4
  "64:ff9b::808:808", // NAT64 of a public IPv4: how IPv6-only networks reach IPv4 hosts
  "2002:808:808::1", // 6to4 of a public IPv4
  "fbff:ffff::1", // just below fc00::/7
  "fe00::1", // between fc00::/7 and fe80::/10
];

describe("refusedRange", () => {
  test.each(REFUSED)("%s is refused as %s", (address, kind, cidr) => {
    expect(refusedRange(address)).toEqual({ kind, cidr });
  });

  test.each(EMBEDDED)("%s is refused as %s inside its IPv6 form", (address, kind, cidr, via) => {
    expect(refusedRange(address)).toEqual({ kind, cidr, via });
  });

  test.each(ALLOWED)("%s is allowed", (address) => {
    expect(refusedRange(address)).toBeNull();
  });

  test("text that is not an IP address throws instead of passing as allowed", () => {
    for (const text of ["example.com", "127.1", "0x7f.0.0.1", "0177.0.0.1", "1.2.3", "1::2::3", ""]) {
      expect(() => refusedRange(text)).toThrow("not an IP address");
    }
  });

  test("describeRange names the kind, the range and the IPv6 wrapper", () => {
    expect(describeRange(refusedRange("10.1.2.3")!)).toBe("private (10.0.0.0/8)");
    expect(describeRange(refusedRange("::ffff:127.0.0.1")!)).toBe(
      "loopback (127.0.0.0/8) inside IPv4-mapped IPv6",
    );
  });
});

describe("parsing", () => {
  test("IPv4: four decimal parts, 0-255, no leading zeros (which some parsers read as octal)", () => {
    expect(Array.from(parseIpv4("192.168.0.255")!)).toEqual([192, 168, 0, 255]);
    for (const bad of ["256.0.0.1", "1.2.3", "1.2.3.4.5", "01.2.3.4", "1.2.3.-4", "1.2.3.4 ", "a.b.c.d"]) {
      expect(parseIpv4(bad)).toBeNull();
    }
  });

  test("IPv6: compression, a dotted tail, brackets and zones give the same 16 bytes", () => {
    const loop = Array.from(parseIpv6("::1")!);
    expect(loop).toEqual([...Array(15).fill(0), 1]);
    expect(Array.from(parseIpv6("[0:0::0:1]")!)).toEqual(loop);
    expect(Array.from(parseIpv6("::ffff:1.2.3.4")!)).toEqual(Array.from(parseIpv6("::ffff:102:304")!));
    expect(Array.from(parseIpv6("1:2:3:4:5:6:7:8")!)).toEqual([
      0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8,
    ]);
    expect(Array.from(parseIpv6("fe80::1%25eth0")!)).toEqual(Array.from(parseIpv6("fe80::1")!));
  });

  test("IPv6: malformed forms are not addresses", () => {
    for (const bad of [
      "1:2:3:4:5:6:7",
      "1:2:3:4:5:6:7:8:9",
      "1::2::3",
      ":1",
      "1:",
      "12345::",
      "g::1",
      "::1.2.3",
    ]) {
      expect(parseIpv6(bad)).toBeNull();
    }
    expect(isIpAddress("1:2:3:4:5:6:7:8")).toBe(true);
    expect(isIpAddress("hooks.example.test")).toBe(false);
  });
});

describe("agreement with node:net BlockList, an independent range matcher", () => {
  // The same ranges, written out again as the plain CIDR list an operator would read.
  const IPV4 = ["0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12"];
  IPV4.push("192.0.0.0/24", "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24");
  IPV4.push("203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4");
  const IPV6 = ["::/96", "64:ff9b:1::/48", "100::/64", "2001::/32", "2001:db8::/32", "fc00::/7", "fe80::/10"];
  IPV6.push("fec0::/10", "ff00::/8");
  const list = new BlockList();
  for (const cidr of IPV4) list.addSubnet(cidr.split("/")[0]!, Number(cidr.split("/")[1]), "ipv4");
  for (const cidr of IPV6) list.addSubnet(cidr.split("/")[0]!, Number(cidr.split("/")[1]), "ipv6");

  // xorshift32: reproducible, so a failure names an address that can be replayed.
  let state = 0x9e3779b9;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
  // Half the samples start with a first octet that sits in or next to a refused range, to hit the edges.
  const NEAR = [
    0, 9, 10, 11, 99, 100, 101, 126, 127, 128, 168, 169, 170, 171, 172, 173, 191, 192, 193, 197, 198,
  ];
  NEAR.push(199, 202, 203, 204, 223, 224, 239, 240, 255);
  const ipv4 = () => {
    const n = next();
    const first = n & 1 ? NEAR[n % NEAR.length]! : n >>> 24;
    return [first, (next() >>> 24) & 0xff, (next() >>> 16) & 0xff, next() & 0xff].join(".");
  };
  const PREFIX6 = [
    0x0000, 0x0064, 0x0100, 0x2001, 0x2002, 0x2606, 0xfbff, 0xfc00, 0xfdff, 0xfe80, 0xfec0, 0xff02,
  ];
  const ipv6 = () => {
    const groups = [PREFIX6[next() % PREFIX6.length]!];
    // Second group often zero, 0db8 or ff9b so the /32 and /48 prefixes are actually exercised.
    const second = [0, 0x0db8, 0xff9b, next() & 0xffff];
    groups.push(second[next() % second.length]!);
    for (let i = 2; i < 8; i++) groups.push(next() % 3 === 0 ? 0 : next() & 0xffff);
    return groups.map((g) => g.toString(16)).join(":");
  };

  test("IPv4, plain and IPv4-mapped", () => {
    for (let i = 0; i < 10_000; i++) {
      const address = ipv4();
      const expected = list.check(address, "ipv4") || address === "255.255.255.255";
      expect({ address, refused: refusedRange(address) !== null }).toEqual({ address, refused: expected });
      expect({ address, mapped: refusedRange(`::ffff:${address}`) !== null }).toEqual({
        address,
        mapped: expected,
      });
    }
  });

  test("IPv6 outside the IPv4-embedding prefixes", () => {
    let checked = 0;
    while (checked < 10_000) {
      const address = ipv6();
      if (/^(0:0:0:0:0:ffff|0:0:0:0:ffff:0|64:ff9b:0:0:0:0|2002):/.test(address)) continue;
      checked++;
      const expected = list.check(address, "ipv6");
      expect({ address, refused: refusedRange(address) !== null }).toEqual({ address, refused: expected });
    }
  });
});
