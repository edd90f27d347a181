/**
 * Nothing a client sends makes roomd answer 500. A malformed Host (`a b`, `a@b`, `[::1`, a port past 65535) is a
 * 400 before anything else runs; and a seeded property test sends every route the app registers (the list
 * docs/http.md documents, test/docs.test.ts) requests with random Host, Origin, path and method bytes, with and
 * without a key, written byte for byte on a socket: each must be answered by roomd (it carries X-Request-Id) with a
 * status below 500. A failure names its seed and the request, which replays exactly.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appDeps, createApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/log.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { below, pick, prng } from "../support/prng.ts";
import { rawRequest, sendRaw } from "../support/raw-http.ts";
import { type RunningServer, startInProcess, TEAM_A } from "../support/server.ts";
import { sqliteE2e } from "../support/stores.ts";

/** The methods Bun's HTTP parser lets through to the application (any other token closes the connection). */
const METHODS = [
  "GET",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "HEAD",
  "OPTIONS",
  "TRACE",
  "CONNECT",
  "PROPFIND",
  "MKCOL",
  "LOCK",
  "PURGE",
  "SEARCH",
  "QUERY",
  "M-SEARCH",
];

/** The characters of an HTTP method token (RFC 9110 tchar). */
const TCHAR = [..."!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"];

/** Random bytes in [from, 0xff] (plus tab when `tab`): what a header value or a path may carry on the wire. */
function bytes(random: () => number, max: number, from: number, tab = false): Uint8Array {
  const out = new Uint8Array(below(random, max + 1));
  for (let i = 0; i < out.length; i++) {
    out[i] = tab && random() < 0.05 ? 0x09 : from + below(random, 0x100 - from);
  }
  return out;
}

const ascii = (value: string) => new TextEncoder().encode(value);
const join = (...parts: Uint8Array[]) => Buffer.concat(parts.map((p) => Buffer.from(p)));

/** One path segment: a plausible id, raw random bytes, or random (and sometimes broken) percent-escapes. */
function segment(random: () => number): Uint8Array {
  const kind = below(random, 4);
  if (kind === 0) return ascii(`r-${Math.floor(random() * 1e9).toString(36)}`);
  if (kind === 1) return bytes(random, 12, 0x21);
  const escaped = Array.from(bytes(random, 8, 0x00), (b) => `%${b.toString(16).padStart(2, "0")}`).join("");
  return ascii(kind === 2 ? escaped : `${escaped}%${pick(random, ["", "z", "E0%A4", "zz", "%"])}`);
}

/** The route's pattern with each `:param` made random, sometimes with a random tail and query. */
function target(random: () => number, pattern: string): Uint8Array {
  const parts = pattern.split("/").map((part) => (part.startsWith(":") ? segment(random) : ascii(part)));
  const path = join(...parts.flatMap((part, i) => (i === 0 ? [part] : [ascii("/"), part])));
  const tail = random() < 0.2 ? join(ascii("/"), segment(random)) : new Uint8Array();
  const query = random() < 0.3 ? join(ascii("?"), bytes(random, 20, 0x21)) : new Uint8Array();
  return join(path, tail, query);
}

/** With webhooks configured, so their routes are reached (without a signing key they answer 503 by design). */
const WEBHOOKS = { WEBHOOK_SIGNING_KEY: "k".repeat(32) };
/** Requests per route and seed. */
const PER_ROUTE = 20;

describe("hostile requests", () => {
  let store: RoomStore;
  let server: RunningServer;
  let port: number;
  let routes: { method: string; path: string }[];
  beforeAll(async () => {
    store = await sqliteE2e().open();
    server = startInProcess(store, undefined, WEBHOOKS);
    port = Number(new URL(server.url).port);
    // The routes as the app registers them: the list docs/http.md must document.
    routes = createApp(appDeps(loadConfig({}), store, silentLogger, Date.now))
      .routes.filter((r) => ["GET", "POST", "PUT", "PATCH", "DELETE"].includes(r.method))
      .map((r) => ({ method: r.method, path: r.path }));
  });
  afterAll(async () => {
    await server.stop();
    await store.close();
  });

  test("R2-6 a malformed Host header is answered 400 on every kind of route, with or without Origin", async () => {
    const hosts = [
      "a b",
      "a@b",
      "[::1",
      "127.0.0.1:99999",
      "a%b",
      "x/y",
      "x?y",
      ":80",
      "a:b:c",
      "",
      "\u00ff",
      // The host grammar allows these; the URL parser does not (a number past 255, bad punycode).
      "1.2.3.256",
      "xn--a",
    ];
    const paths: [string, string][] = [
      ["GET", "/health"],
      ["POST", "/mcp"],
      ["GET", "/login"],
      ["GET", "/dashboard"],
      ["GET", "/room/r-abc"],
      ["GET", "/admin/rooms"],
    ];
    for (const host of hosts) {
      for (const [method, path] of paths) {
        for (const origin of [undefined, `http://${host}`, "http://127.0.0.1"]) {
          const headers: [string, string][] = [["Host", host]];
          if (origin !== undefined) headers.push(["Origin", origin]);
          const answer = await sendRaw(port, rawRequest(method, path, headers, new Uint8Array()));
          expect({ host, method, path, origin, status: answer?.status }).toEqual({
            host,
            method,
            path,
            origin,
            status: 400,
          });
        }
      }
    }
    // The body names the problem (and nothing of the request).
    const res = await sendRaw(port, rawRequest("GET", "/health", [["Host", "a b"]]));
    expect(res?.headers.get("content-type")).toStartWith("application/json");
    // Well-formed hosts still pass: loopback names and ports, bracketed IPv6.
    for (const host of ["127.0.0.1", `127.0.0.1:${port}`, "localhost", "[::1]:3000", "Example.COM."]) {
      const answer = await sendRaw(port, rawRequest("GET", "/health", [["Host", host]]));
      expect({ host, status: answer?.status }).toEqual({ host, status: 200 });
    }
  });

  for (const seed of [20_260_101, 20_260_102, 20_260_103]) {
    test(`R2-6 no route answers 500 for random Host, Origin, path and method bytes (seed ${seed})`, async () => {
      // A server of its own: the failed-authentication limit (30 a minute per address) starts afresh for each seed.
      const fresh = startInProcess(store, undefined, WEBHOOKS);
      const port = Number(new URL(fresh.url).port);
      const random = prng(seed);
      const own = `127.0.0.1:${port}`;
      let sent = 0;
      for (const route of routes) {
        for (let i = 0; i < PER_ROUTE; i++) {
          // Mostly the route's own method or another the parser knows; now and then any token of random bytes,
          // which Bun's parser may refuse by closing the connection before roomd sees the request.
          const token = random() < 0.1;
          const method = token
            ? Array.from({ length: 1 + below(random, 8) }, () => pick(random, TCHAR)).join("")
            : random() < 0.6
              ? route.method
              : pick(random, METHODS);
          const host = random() < 0.7 ? ascii(own) : bytes(random, 24, 0x20, true);
          const origins = [
            () => ascii(`http://${own}`),
            () => ascii("null"),
            () => join(ascii("http://"), bytes(random, 20, 0x20, true)),
            () => bytes(random, 20, 0x20, true),
          ];
          // Without Origin a third of the time (CLIs and agents send none).
          const origin = random() < 0.33 ? undefined : pick(random, origins)();
          const headers: [string, string | Uint8Array][] = [["Host", host]];
          if (origin !== undefined) headers.push(["Origin", origin]);
          if (random() < 0.5) headers.push(["Authorization", `Bearer ${TEAM_A.secret}`]);
          let body: Uint8Array | undefined;
          if (random() < 0.4) {
            headers.push(["Content-Type", "application/json"]);
            body = random() < 0.5 ? bytes(random, 40, 0x20) : ascii(JSON.stringify({ name: "x", n: i }));
          }
          const request = rawRequest(method, target(random, route.path), headers, body);
          const answer = await sendRaw(port, request);
          sent++;
          const replay = `seed ${seed}, request ${sent}: ${JSON.stringify(request.toString("latin1"))}`;
          // A token the parser does not know: closed, or refused by the parser itself (no X-Request-Id).
          if (token && (answer === null || !answer.headers.has("x-request-id"))) {
            expect(answer?.status ?? 400, replay).toBeLessThan(500);
            continue;
          }
          expect(answer?.headers.has("x-request-id"), replay).toBe(true);
          expect(answer?.status ?? 0, replay).toBeLessThan(500);
        }
      }
      await fresh.stop();
      expect(sent).toBe(routes.length * PER_ROUTE);
    });
  }
});
