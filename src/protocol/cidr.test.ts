import { expect, test } from "bun:test";
import { parseAddress, parseCidr, peerAllowed } from "./cidr.ts";

const cidrs = (...list: string[]) =>
  list.map(
    (c) =>
      parseCidr(c) ??
      (() => {
        throw new Error(c);
      })(),
  );

test("IPv4 ranges: inside, outside, single hosts, /0", () => {
  const ranges = cidrs("10.0.0.0/8", "192.168.1.7");
  expect(peerAllowed("10.255.3.4", ranges)).toBe(true);
  expect(peerAllowed("11.0.0.1", ranges)).toBe(false);
  expect(peerAllowed("192.168.1.7", ranges)).toBe(true);
  expect(peerAllowed("192.168.1.8", ranges)).toBe(false);
  expect(peerAllowed("203.0.113.9", cidrs("0.0.0.0/0"))).toBe(true);
  expect(peerAllowed("172.16.0.1", cidrs("172.16.0.0/12"))).toBe(true);
  expect(peerAllowed("172.32.0.1", cidrs("172.16.0.0/12"))).toBe(false);
});

test("IPv6 ranges, compressed forms, and IPv4-mapped peers compared as IPv4", () => {
  expect(peerAllowed("::1", cidrs("::1/128"))).toBe(true);
  expect(peerAllowed("fd00:1234::5", cidrs("fd00::/8"))).toBe(true);
  expect(peerAllowed("fe80::1", cidrs("fd00::/8"))).toBe(false);
  expect(peerAllowed("::ffff:127.0.0.1", cidrs("127.0.0.0/8"))).toBe(true);
  expect(peerAllowed("::ffff:7f00:1", cidrs("127.0.0.1"))).toBe(true);
  expect(peerAllowed("127.0.0.1", cidrs("::1"))).toBe(false);
  expect(parseAddress("2001:db8::8a2e:370:7334")).toEqual(
    new Uint8Array([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0x8a, 0x2e, 0x03, 0x70, 0x73, 0x34]),
  );
});

test("malformed ranges and peers are refused, never matched", () => {
  for (const bad of [
    "10.0.0.0/33",
    "10.0.0/8",
    "256.1.1.1",
    "::1/129",
    "1:2:3:4:5:6:7:8:9",
    "a::b::c",
    "10.0.0.1/8/8",
    "01.2.3.4",
    "x",
  ]) {
    expect(parseCidr(bad)).toBeNull();
  }
  expect(peerAllowed("unknown", cidrs("0.0.0.0/0", "::/0"))).toBe(false);
});
