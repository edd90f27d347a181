/**
 * Security properties, each with its own test: digests only (no secret kept in memory structures or files
 * beyond the first-run key file), constant-time comparison over every key, no secret in logs or errors.
 * Cross-team denial in every tool is checked catalog-wide on every store (test/e2e/catalog.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sameDigest, sha256 } from "../src/access/digest.ts";
import { createKeyRing } from "../src/access/keyring.ts";
import { connect, type RoomClient } from "./support/mcp-client.ts";
import { type SpawnedServer, spawnServer, TEAM_A, TEAM_B } from "./support/server.ts";
import { E2E_STORES, newRoomId } from "./support/stores.ts";

type Json = Record<string, any>;

describe("key ring", () => {
  test("compares the digest against every configured key, whichever matches", () => {
    const keys = Array.from({ length: 6 }, (_, i) => ({
      teamId: `team-${i}`,
      secret: `secret-number-${i}-0123456789`,
    }));
    let comparisons = 0;
    const ring = createKeyRing({ operatorKeys: keys.slice(0, 2), apiKeys: keys.slice(2) }, (a, b) => {
      comparisons++;
      return sameDigest(a, b);
    });
    for (const secret of [keys[0]!.secret, keys[5]!.secret, "no-such-secret-0123456789"]) {
      comparisons = 0;
      ring.resolve(secret);
      expect(comparisons).toBe(6);
    }
    // Operator keys are people's keys (docs/people.md#people-and-agents): the person is "operator" unless
    // OPERATOR_KEYS names one.
    expect(ring.resolve(keys[0]!.secret)).toEqual({
      teamId: "team-0",
      kind: "operator",
      humanId: "operator",
    });
    expect(ring.resolve(keys[3]!.secret)).toEqual({ teamId: "team-3", kind: "static" });
    expect(ring.resolve("no-such-secret-0123456789")).toBeNull();
  });

  test("keeps only SHA-256 digests of the secrets", () => {
    const secret = "a-secret-that-must-not-be-kept";
    const ring = createKeyRing({ operatorKeys: [], apiKeys: [{ teamId: "t1", secret }] });
    const seen = new Set<unknown>();
    const strings: string[] = [];
    const walk = (value: unknown) => {
      if (value === null || seen.has(value)) return;
      if (typeof value === "string") strings.push(value);
      if (typeof value !== "object" && typeof value !== "function") return;
      seen.add(value);
      for (const key of Object.getOwnPropertyNames(value)) walk((value as Record<string, unknown>)[key]);
    };
    walk(ring);
    expect(strings.some((s) => s.includes(secret))).toBe(false);
    expect(sha256(secret)).toHaveLength(32);
  });
});

for (const make of E2E_STORES) {
  describe(`isolation and logs, roomd process on ${make().name}`, () => {
    let server: SpawnedServer;
    let a: RoomClient;
    let b: RoomClient;
    beforeAll(async () => {
      server = await spawnServer({
        ...(await make().env()),
        API_KEYS: `${TEAM_A.teamId}:${TEAM_A.secret},${TEAM_B.teamId}:${TEAM_B.secret}`,
      });
      a = await connect(server.url, TEAM_A.secret);
      b = await connect(server.url, TEAM_B.secret);
    });
    afterAll(async () => {
      await a.close();
      await b.close();
      await server.stop();
    });

    // Another team's room in every tool: checked catalog-wide on every store (test/e2e/catalog.test.ts).
    test("no secret appears in the server's output or in any answer", async () => {
      const wrong = `${TEAM_A.secret.slice(0, -3)}zzz`;
      // Issue a dynamic key and an invite and use them, so their secrets have every chance to reach the log.
      const admin = (path: string, body: unknown) =>
        fetch(`${server.url}${path}`, {
          method: "POST",
          headers: { Authorization: `Bearer ${TEAM_A.secret}` },
          body: JSON.stringify(body),
        }).then((r) => r.json() as Promise<any>);
      const roomId = newRoomId();
      const key = (await admin("/admin/keys", {})).secret as string;
      await admin("/admin/rooms", { roomId });
      const token = (await admin(`/admin/rooms/${roomId}/invite`, {})).token as string;
      for (const secret of [key, token]) {
        const c = await connect(server.url, secret);
        await c.raw("heartbeat", { roomId, agentId: "nobody-in-particular" });
        await c.close();
      }
      const res = await fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${wrong}`,
          "Content-Type": "application/json",
          Accept: "application/json",
        },
        body: "{}",
      });
      const text = await res.text();
      await b.raw("read_plan", { roomId: "Bad Room" });
      await Bun.sleep(100);
      for (const secret of [
        TEAM_A.secret,
        TEAM_B.secret,
        wrong,
        key,
        token,
        sha256(TEAM_A.secret).toString("hex"),
        sha256(key).toString("hex"),
      ]) {
        expect(server.output()).not.toContain(secret);
        expect(text).not.toContain(secret);
      }
    });
  });
}

describe("first run", () => {
  test("creates a 0600 operator key next to the database, prints it once with client configuration", async () => {
    const dir = mkdtempSync(join(tmpdir(), "roomd-first-"));
    const env = { SQLITE_PATH: join(dir, "roomd.sqlite") };
    const first = await spawnServer(env);
    await Bun.sleep(200);
    await first.stop();
    const keyFile = join(dir, "operator.key");
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const secret = (await Bun.file(keyFile).text()).trim();
    const out = first.output();
    expect(out).toContain(secret);
    for (const needle of [
      "claude mcp add --transport http roomd",
      "mcpServers",
      "[mcp_servers.roomd]",
      "httpUrl",
      "Start every session with `summary`",
    ]) {
      expect(out).toContain(needle);
    }
    const second = await spawnServer(env);
    try {
      await Bun.sleep(200);
      expect(second.output()).not.toContain(secret);
      expect(second.output()).toContain("operator.key");
      const c = await connect(second.url, secret);
      expect((await c.call<Json>("read_plan", { roomId: "first-room" })).tasks).toEqual([]);
      await c.close();
    } finally {
      await second.stop();
    }
  });

  test("refuses to start on Redis without keys, naming what to set", async () => {
    const proc = Bun.spawn(["bun", "src/index.ts"], {
      cwd: join(import.meta.dir, ".."),
      env: { PATH: process.env.PATH ?? "", STORE: "redis", REDIS_URL: "redis://127.0.0.1:1", PORT: "0" },
      stderr: "pipe",
    });
    expect(await proc.exited).toBe(1);
    expect(await new Response(proc.stderr).text()).toContain("API_KEYS or OPERATOR_KEYS");
  });
});
