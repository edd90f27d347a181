/**
 * Network exposure (docs/security.md#network-exposure): every route has a body cap that is enforced before the body
 * is read past it, and roomd binds only the address HOST names (loopback unless told otherwise). Real
 * `bun src/index.ts` processes, so the memory measured and the sockets probed are the server's own.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { type SpawnedServer, spawnServer, TEAM_A } from "../support/server.ts";
import { sqliteE2e } from "../support/stores.ts";

type Json = Record<string, any>;
const MB = 1024 * 1024;
const CAP = 64 * 1024;

/** Resident memory of a process, in bytes (ps is on every Linux and macOS machine). */
function rssOf(pid: number): number {
  const out = Bun.spawnSync(["ps", "-o", "rss=", "-p", String(pid)])
    .stdout.toString()
    .trim();
  return Number(out) * 1024;
}

/** A body produced only as the server reads it; `pulled()` says how much was taken. */
function lazyBody(total: number) {
  let pulled = 0;
  const chunk = new Uint8Array(64 * 1024).fill(0x61);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= total) return controller.close();
      pulled += chunk.length;
      controller.enqueue(chunk);
    },
  });
  return { stream, pulled: () => pulled };
}

const auth = { Authorization: `Bearer ${TEAM_A.secret}`, "Content-Type": "application/json" };

describe("body caps on a real server process", () => {
  let server: SpawnedServer;
  beforeAll(async () => {
    server = await spawnServer({
      ...(await sqliteE2e().env()),
      API_KEYS: `${TEAM_A.teamId}:${TEAM_A.secret}`,
    });
  });
  afterAll(() => server.stop());

  const post = (
    path: string,
    body: string | ReadableStream<Uint8Array>,
    headers: Record<string, string> = {},
  ) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { ...auth, ...headers },
      body,
      duplex: "half",
    } as RequestInit);

  test("a chunked 32 MB body to /admin is cut off at 64 KB with 413, never read to the end", async () => {
    // Warm the process up (first requests grow the heap whatever they carry), then measure.
    for (let i = 0; i < 3; i++) await (await post("/admin/keys", "x".repeat(CAP + 1))).text();
    const before = rssOf(server.proc.pid);
    for (let round = 0; round < 3; round++) {
      const body = lazyBody(32 * MB);
      const res = await post("/admin/keys", body.stream);
      expect(res.status).toBe(413);
      expect((await res.json()) as Json).toEqual({ error: "Request body too large (max 65536 bytes)" });
      expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f]{8}$/);
      await Bun.sleep(200);
      // What left the client is the server's read (≤ 64 KB) plus what the sockets' buffers hold.
      expect(body.pulled()).toBeLessThan(16 * MB);
    }
    // Had the server buffered the bodies, it would hold 96 MB more.
    expect(rssOf(server.proc.pid) - before).toBeLessThan(24 * MB);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });

  test("a declared Content-Length over 64 KB is refused before any of the body is read", async () => {
    const body = lazyBody(32 * MB);
    const res = await post("/admin/rooms", body.stream, { "Content-Length": String(32 * MB) });
    expect(res.status).toBe(413);
    expect((await res.json()) as Json).toEqual({ error: "Request body too large (max 65536 bytes)" });
    await Bun.sleep(200);
    expect(body.pulled()).toBeLessThan(16 * MB);
  });

  test("64 KB is the cap of /admin and every other route; /mcp keeps 512 KB", async () => {
    // At the cap the route itself answers (a note over 200 chars is its own 400), one byte more is 413.
    const atCap = JSON.stringify({ note: "n".repeat(CAP - 11) });
    expect(atCap.length).toBe(CAP);
    const ok = await post("/admin/keys", atCap);
    expect(ok.status).toBe(400);
    expect(((await ok.json()) as Json).error).toContain("note");
    const over = await post("/admin/keys", `${atCap} `);
    expect(over.status).toBe(413);
    // Routes that take no body and unknown routes are capped too.
    for (const path of ["/admin/me", "/room/some-room", "/not-a-route"]) {
      const res = await fetch(`${server.url}${path}`, {
        method: path === "/admin/me" ? "POST" : "PUT",
        headers: auth,
        body: "x".repeat(CAP + 1),
      });
      expect(res.status, path).toBe(413);
    }
    // /mcp: a 200 KB request reaches MCP (the tool refuses the payload itself); beyond 512 KB → JSON-RPC 413.
    const rpc = (size: number) =>
      post(
        "/mcp",
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: {
            name: "post_event",
            arguments: { roomId: "cap-room", type: "t", from: "a", payload: { t: "y".repeat(size) } },
          },
        }),
        { Accept: "application/json" },
      );
    const mid = await rpc(200 * 1024);
    expect(mid.status).toBe(200);
    expect(((await mid.json()) as Json).result.isError).toBe(true);
    const big = await rpc(600 * 1024);
    expect(big.status).toBe(413);
    expect(((await big.json()) as Json).error.message).toBe("Request body too large (max 524288 bytes)");
  });
});

/** IPv4 addresses of this machine that are not 127.0.0.1, to probe a loopback-bound server from. */
function otherAddresses(): string[] {
  const external = Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && a.family === "IPv4" && !a.internal)
    .map((a) => a!.address);
  // On Linux all of 127.0.0.0/8 is local, yet a socket bound to 127.0.0.1 does not answer on 127.0.0.2.
  return process.platform === "linux" ? [...external, "127.0.0.2"] : external;
}

async function reachable(address: string, port: string): Promise<boolean> {
  try {
    const res = await fetch(`http://${address}:${port}/health`, { signal: AbortSignal.timeout(3000) });
    return res.status === 200;
  } catch {
    return false;
  }
}

describe("HOST", () => {
  test("by default roomd answers on 127.0.0.1 only; HOST=0.0.0.0 answers on every address", async () => {
    const probes = otherAddresses();
    expect(probes.length).toBeGreaterThan(0);
    const env = { ...(await sqliteE2e().env()), API_KEYS: `${TEAM_A.teamId}:${TEAM_A.secret}` };
    const loopback = await spawnServer(env);
    try {
      const port = new URL(loopback.url).port;
      expect(await reachable("127.0.0.1", port)).toBe(true);
      for (const address of probes) expect(await reachable(address, port), address).toBe(false);
      expect(loopback.output()).toContain('"host":"127.0.0.1"');
    } finally {
      await loopback.stop();
    }
    // The same probes do reach a server bound to every interface: the refusals above are the binding's doing.
    const everywhere = await spawnServer({ ...env, HOST: "0.0.0.0" });
    try {
      const port = new URL(everywhere.url).port;
      for (const address of probes) expect(await reachable(address, port), address).toBe(true);
      expect(everywhere.output()).toContain('"host":"0.0.0.0"');
    } finally {
      await everywhere.stop();
    }
  });

  test("the Docker image binds every interface (HOST=0.0.0.0)", () => {
    const dockerfile = readFileSync(join(import.meta.dir, "..", "..", "Dockerfile"), "utf8");
    const env = dockerfile.split("\n").filter((line) => line.startsWith("ENV "));
    expect(env.some((line) => /\bHOST=0\.0\.0\.0\b/.test(line))).toBe(true);
  });
});
