/**
 * The Upstash REST front must answer like the real service, or the Upstash driver's tests prove nothing: these
 * drive it with the real @upstash/redis client (base64 on, as the client defaults, and off) and with raw HTTP.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Redis } from "@upstash/redis";
import { type RedisServer, startRedisServer } from "./redis-server.ts";
import { startUpstashFront, type UpstashFront } from "./upstash-front.ts";

let server: RedisServer;
let front: UpstashFront;
/** What the roomd driver uses: raw strings back, base64 on the wire (the client's default encoding). */
let raw: Redis;
/** The client's defaults: JSON-parses values. */
let plain: Redis;
/** Base64 off, to check the front's UTF-8 path too. */
let utf8: Redis;

const key = (name: string) => `front-test:${crypto.randomUUID().slice(0, 8)}:${name}`;

/** Posts to the front by hand, to check the wire format itself. */
async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${front.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${front.token}`, ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}
const b64 = (s: string | Uint8Array) => Buffer.from(s).toString("base64");

beforeAll(async () => {
  server = await startRedisServer();
  front = await startUpstashFront({ redisUrl: server.url });
  raw = new Redis({
    url: front.url,
    token: front.token,
    automaticDeserialization: false,
    enableTelemetry: false,
  });
  plain = new Redis({ url: front.url, token: front.token, enableTelemetry: false });
  utf8 = new Redis({
    url: front.url,
    token: front.token,
    automaticDeserialization: false,
    enableTelemetry: false,
    responseEncoding: false,
  });
});

afterAll(async () => {
  await front?.stop();
  await server?.stop();
});

describe("through @upstash/redis", () => {
  test("set/get keeps a numeric-looking string a string only without automatic deserialization", async () => {
    const k = key("port");
    expect(await raw.set(k, "8080")).toBe("OK");
    expect(await raw.get<string>(k)).toBe("8080");
    expect(await utf8.get<string>(k)).toBe("8080");
    expect(await plain.get(k)).toBe(8080);
    expect(await raw.get(key("missing"))).toBeNull();
  });

  test("hset/hgetall and incr", async () => {
    const h = key("hash");
    expect(await raw.hset(h, { a: "1", b: "two" })).toBe(2);
    // RESP2 shape: a flat field/value array, which the client folds into an object only when deserializing.
    expect(await raw.hgetall(h)).toEqual(["a", "1", "b", "two"] as never);
    expect(await plain.hgetall(h)).toEqual({ a: 1, b: "two" });
    const n = key("n");
    expect(await raw.incr(n)).toBe(1);
    expect(await raw.incrby(n, 41)).toBe(42);
  });

  test("eval and evalsha, NOSCRIPT for an unknown sha", async () => {
    const script = "return redis.call('INCRBY', KEYS[1], ARGV[1])";
    const k = key("lua");
    expect(await raw.eval(script, [k], ["5"])).toBe(5);
    const sha = await raw.scriptLoad(script);
    expect(await raw.evalsha(sha, [k], ["2"])).toBe(7);
    await expect(raw.evalsha("0".repeat(40), [k], [])).rejects.toThrow(/NOSCRIPT/);
    // Script.exec relies on that message to fall back from EVALSHA to EVAL.
    const fresh = raw.createScript(`return '${crypto.randomUUID()}'`);
    expect(await fresh.exec([], [])).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("Lua returns nil, integers, strings, statuses and nested arrays", async () => {
    expect(await raw.eval("return nil", [], [])).toBeNull();
    expect(await raw.eval("return false", [], [])).toBeNull();
    expect(await raw.eval("return 3.9", [], [])).toBe(3); // Lua numbers become integers
    expect(await raw.eval("return 'élan'", [], [])).toBe("élan");
    expect(await raw.eval("return redis.call('SET', KEYS[1], 'v')", [key("s")], [])).toBe("OK");
    const nested = "return {1, 'a', {2, 'b', {redis.status_reply('OK')}}, redis.call('PING')}";
    expect(await raw.eval(nested, [], [])).toEqual([1, "a", [2, "b", ["OK"]], "PONG"]);
    expect(await utf8.eval(nested, [], [])).toEqual([1, "a", [2, "b", ["OK"]], "PONG"]);
    await expect(raw.eval("return redis.error_reply('MYERR boom')", [], [])).rejects.toThrow(/MYERR boom/);
  });

  test("pipeline runs each command independently", async () => {
    const k = key("p");
    const results = await raw.pipeline().set(k, "x").incr(k).get(k).exec({ keepErrors: true });
    expect(results.map((r) => r.result)).toEqual(["OK", undefined, "x"]);
    expect(results[1]?.error).toMatch(/not an integer/);
    await expect(raw.pipeline().set(k, "y").incr(k).exec()).rejects.toThrow(/Command 2 \[ incr \] failed/);
  });

  test("multi runs a transaction and reports per-command errors", async () => {
    const k = key("m");
    expect(await raw.multi().set(k, "1").incr(k).get(k).exec()).toEqual(["OK", 2, "2"]);
    const results = await raw.multi().set(k, "x").incr(k).get(k).exec({ keepErrors: true });
    expect(results.map((r) => r.result)).toEqual(["OK", undefined, "x"]);
    expect(results[1]?.error).toMatch(/not an integer/);
  });

  test("a wrong token makes the client throw", async () => {
    const wrong = new Redis({ url: front.url, token: "nope", enableTelemetry: false });
    await expect(wrong.get(key("any"))).rejects.toThrow(/Unauthorized/);
  });

  test("binary-ish and unicode values round-trip", async () => {
    const values = [
      "\u0000\u0001\u007f\u0080\u00ff",
      "héllo wörld ✓ 漢字 🚀",
      '{"a":1}',
      "  \r\n\t ",
      "OK",
      "T0s=",
    ];
    for (const value of values) {
      const k = key("bin");
      await raw.set(k, value);
      expect(await raw.get<string>(k)).toBe(value);
      expect(await utf8.get<string>(k)).toBe(value);
      expect(await raw.pipeline().get(k).exec()).toEqual([value]);
    }
  });

  test("large values (100 KB, 4 MB) round-trip", async () => {
    for (const size of [100 * 1024, 4 * 1024 * 1024]) {
      const k = key("big");
      const value = "ab✓".repeat(Math.ceil(size / 5)).slice(0, size);
      await raw.set(k, value);
      expect(await raw.get<string>(k)).toBe(value);
      expect(await utf8.get<string>(k)).toBe(value);
    }
  });

  test("200 concurrent INCRs all land", async () => {
    const k = key("c");
    await Promise.all(Array.from({ length: 200 }, () => raw.incr(k)));
    expect(await raw.get<string>(k)).toBe("200");
  });

  test("concurrent transactions do not interleave with other traffic", async () => {
    const k = key("tx");
    const txs = Array.from({ length: 50 }, () => raw.multi().incr(k).incr(k).incr(k).exec());
    const noise = Array.from({ length: 100 }, () => raw.incr(k));
    const results = (await Promise.all(txs)) as number[][];
    await Promise.all(noise);
    for (const [a, b, c] of results) expect([b, c]).toEqual([(a as number) + 1, (a as number) + 2]);
    expect(await raw.get<string>(k)).toBe("250");
  });
});

describe("wire format", () => {
  test("base64 encodes bulk and status strings, but not a top-level OK, integers or nil", async () => {
    const k = key("wire");
    const enc = { "upstash-encoding": "base64" };
    expect(await post("/", ["SET", k, "bar"], enc)).toEqual({ status: 200, body: { result: "OK" } });
    expect(await post("/", ["GET", k], enc)).toEqual({ status: 200, body: { result: b64("bar") } });
    expect(await post("/", ["PING"], enc)).toEqual({ status: 200, body: { result: b64("PONG") } });
    expect(await post("/", ["INCR", key("i")], enc)).toEqual({ status: 200, body: { result: 1 } });
    expect(await post("/", ["GET", key("none")], enc)).toEqual({ status: 200, body: { result: null } });
    const arr = await post("/", ["EVAL", "return {redis.status_reply('OK'), 7, ARGV[1]}", 0, "x"], enc);
    expect(arr.body).toEqual({ result: [b64("OK"), 7, b64("x")] });
    expect(await post("/pipeline", [["SET", k, "v"], ["GET", k], ["NOPE"]], enc)).toEqual({
      status: 200,
      body: [{ result: "OK" }, { result: b64("v") }, { error: expect.stringContaining("unknown command") }],
    });
  });

  test("raw bytes: base64 carries them exactly, JSON replaces invalid UTF-8 with U+FFFD", async () => {
    const k = key("bytes");
    await post("/", ["EVAL", "return redis.call('SET', KEYS[1], string.char(255, 0, 104))", 1, k]);
    expect((await post("/", ["GET", k], { "upstash-encoding": "base64" })).body).toEqual({
      result: b64(new Uint8Array([255, 0, 104])),
    });
    expect((await post("/", ["GET", k])).body).toEqual({ result: "\ufffd\u0000h" });
  });

  test("errors, auth and refused commands", async () => {
    expect(await post("/", ["GET"])).toEqual({
      status: 400,
      body: { error: "ERR wrong number of arguments for 'get' command" },
    });
    expect(await post("/", ["MULTI"])).toMatchObject({ status: 400 });
    expect(await post("/", ["SET", key("o"), { no: 1 }])).toMatchObject({ status: 400 });
    const bad = await fetch(front.url, { method: "POST", body: JSON.stringify(["PING"]) });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toEqual({ error: "Unauthorized" });
    const tx = await post("/multi-exec", [["SET", key("t"), "1"], ["GET"]]);
    expect(tx).toEqual({ status: 400, body: { error: "ERR wrong number of arguments for 'get' command" } });
  });

  test("path form, _token, numeric arguments and the request counter", async () => {
    const k = key("path");
    const before = front.requests;
    const set = await fetch(`${front.url}/set/${encodeURIComponent(k)}/v%2F1?EX=100&_token=${front.token}`);
    expect(await set.json()).toEqual({ result: "OK" });
    expect((await post(`/get/${encodeURIComponent(k)}`, undefined)).body).toEqual({ result: "v/1" });
    expect((await post("/", ["TTL", k])).body).toEqual({ result: 100 });
    expect((await post("/", ["INCRBY", key("num"), 5])).body).toEqual({ result: 5 });
    expect(front.requests - before).toBe(4);
  });
});

test("Redis restart: errors while it is down, recovers after", async () => {
  const own = await startRedisServer();
  const ownFront = await startUpstashFront({ redisUrl: own.url, token: "t" });
  try {
    const client = new Redis({
      url: ownFront.url,
      token: "t",
      automaticDeserialization: false,
      retry: false,
    });
    expect(await client.incr("k")).toBe(1);
    await own.stop();
    await expect(client.incr("k")).rejects.toThrow(/Redis unavailable/);
    await own.restart();
    expect(await client.incr("k")).toBe(1); // a fresh, empty server
  } finally {
    await ownFront.stop();
    await own.stop();
  }
});
