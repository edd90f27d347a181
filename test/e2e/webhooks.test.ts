/**
 * The webhook admin routes over real HTTP on every store, with real receivers on loopback and the delivery worker
 * running beside the server: the secret shown once (and nowhere else: not in listings, logs or the store), a
 * delivery verified with the shown secret by an independent verifier, the test route, the delivery log, and clear
 * 4xx answers that change nothing for every kind of bad input. The SSRF rules without the flags, and the 503
 * without a signing key, are checked on servers configured that way.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { lookup } from "node:dns/promises";
import { hostname } from "node:os";
import { createWebhookWorker, type WebhookWorker } from "../../src/live/webhooks/worker.ts";
import type { Logger } from "../../src/log.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { OPERATOR, type RunningServer, startInProcess, TEAM_B } from "../support/server.ts";
import { verifyStandardWebhook } from "../support/standard-webhooks.ts";
import { scanStoreForSecrets } from "../support/store-scan.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";
import { receiverPool } from "../support/webhook-receiver.ts";

const SIGNING_KEY = "e2e-webhook-signing-key-0123456789abcdef";
const FLAGS = { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true" };
const BASE = { WEBHOOK_SIGNING_KEY: SIGNING_KEY, WEBHOOKS_PER_ROOM: "3" };
const ACCESS_DENIED = { error: "Room not found or access denied" };
const NOT_FOUND = { error: "Webhook not found" };

const receivers = receiverPool();
afterEach(() => receivers.stopAll());

/** Everything the server logged, to check that no secret is ever in it. */
const logged: string[] = [];
const logger: Logger = {
  log: (level, msg, fields) => logged.push(JSON.stringify({ level, msg, ...fields })),
};

/**
 * A name the system resolver (here /etc/hosts) maps to loopback only and that the registration rules do not
 * catch (they refuse `localhost` by name): this machine's host name, when it resolves that way.
 */
async function loopbackHostName(): Promise<string | null> {
  const name = hostname();
  const addresses = await lookup(name, { all: true }).catch(() => []);
  const loopback = addresses.length > 0 && addresses.every((a) => /^(127\.|::1$)/.test(a.address));
  return loopback && !name.endsWith("localhost") ? name : null;
}
const LOOPBACK_NAME = await loopbackHostName();

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

for (const make of E2E_STORES) {
  const backing = make();
  describe(`webhook routes (${backing.name})`, () => {
    let store: RoomStore;
    let server: RunningServer;
    let strict: RunningServer; // no WEBHOOK_ALLOW_* flags
    let keyless: RunningServer; // no WEBHOOK_SIGNING_KEY
    let worker: WebhookWorker;
    let http: ReturnType<typeof httpClient>;
    const secrets: string[] = [];
    /**
     * A team of this file's own, provisioned by the operator: the shared Redis keeps every file's rooms and rate
     * window per team, so the fixed test teams' budgets are left to the files that count on them.
     */
    let teamKey = "";

    beforeAll(async () => {
      store = await backing.open();
      server = startInProcess(store, logger, { ...BASE, ...FLAGS });
      strict = startInProcess(store, logger, BASE);
      keyless = startInProcess(store, logger);
      worker = createWebhookWorker({
        store,
        logger,
        signingKey: SIGNING_KEY,
        allowHttp: true,
        allowPrivate: true,
      });
      worker.start();
      http = httpClient(server.url);
      const teamId = `wh-${crypto.randomUUID().slice(0, 8)}`;
      teamKey = (await http.post("/admin/keys/provision", OPERATOR.secret, { teamId })).body.secret;
    });
    afterAll(async () => {
      await Promise.all([server.stop(), strict.stop(), keyless.stop()]);
      await worker.stop();
      // Shown once, kept nowhere: not in the store (SQLite file and WAL, every Redis key), not in any log line.
      expect(secrets.length).toBeGreaterThan(3);
      expect(await scanStoreForSecrets(backing, [...secrets, ...secrets.map((s) => s.slice(6))])).toEqual([]);
      for (const secret of secrets) expect(logged.join("\n")).not.toContain(secret.slice(6));
      await store.close();
    });

    /** A room of team A with one webhook to `url`; the registration answer. */
    async function registered(url: string, body: Record<string, unknown> = {}) {
      const roomId = newRoomId();
      expect((await http.post("/admin/rooms", teamKey, { roomId })).status).toBe(201);
      const res = await http.post(`/admin/rooms/${roomId}/webhooks`, teamKey, { url, ...body });
      expect(res.status).toBe(201);
      secrets.push(res.body.secret);
      return { roomId, ...res.body } as { roomId: string; webhookId: string; secret: string; url: string };
    }

    test("registration answers 201 with the secret, once; the listing shows the webhook without it", async () => {
      const receiver = receivers.start();
      const url = `http://127.0.0.1:${receiver.port}/hook?x=1#frag`;
      const roomId = newRoomId();
      await http.post("/admin/rooms", teamKey, { roomId });
      const res = await http.post(`/admin/rooms/${roomId}/webhooks`, teamKey, {
        url,
        types: ["build_failed", "note", "note"],
        description: "CI alerts",
      });
      expect(res.status).toBe(201);
      secrets.push(res.body.secret);
      expect(res.body).toEqual({
        webhookId: expect.stringMatching(/^wh_[0-9a-z]{16}$/),
        url: `http://127.0.0.1:${receiver.port}/hook?x=1`,
        types: ["build_failed", "note"],
        description: "CI alerts",
        createdAt: expect.any(String),
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
        message: "Store this secret now: it is shown only once and cannot be recovered.",
      });
      expect(Buffer.from(res.body.secret.slice(6), "base64")).toHaveLength(32);
      const listed = await http.get(`/admin/rooms/${roomId}/webhooks`, teamKey);
      expect(listed.body).toEqual({
        roomId,
        webhooks: [
          {
            webhookId: res.body.webhookId,
            url: res.body.url,
            types: ["build_failed", "note"],
            description: "CI alerts",
            createdAt: res.body.createdAt,
            status: "active",
            consecutiveFailures: 0,
          },
        ],
      });
      // Operators manage their own team's webhooks like any team key.
      const opsRoom = newRoomId();
      await http.post("/admin/rooms", OPERATOR.secret, { roomId: opsRoom });
      const ops = await http.post(`/admin/rooms/${opsRoom}/webhooks`, OPERATOR.secret, { url });
      expect(ops.status).toBe(201);
      secrets.push(ops.body.secret);
    });

    test("an event posted by an agent reaches the receiver, signed with the shown secret; the log records it", async () => {
      const receiver = receivers.start();
      const hook = await registered(`http://127.0.0.1:${receiver.port}/in`, { types: ["build_failed"] });
      await http.tool(teamKey, "post_event", { roomId: hook.roomId, type: "chatter", from: "alice" });
      const posted = await http.tool(teamKey, "post_event", {
        roomId: hook.roomId,
        type: "build_failed",
        from: "alice",
        payload: { job: 42 },
      });
      expect(posted.isError).toBe(false);
      await until(() => receiver.requests.length >= 1, "the delivery");
      const [request] = receiver.requests;
      expect(request?.headers.get("webhook-id")).toBe(`${hook.roomId}.2.${hook.webhookId}`);
      expect(request?.headers.get("user-agent")).toMatch(/^roomd\/\d+\.\d+\.\d+$/);
      expect(request?.headers.get("content-type")).toBe("application/json");
      expect(
        await verifyStandardWebhook({ secret: hook.secret, headers: request!.headers, body: request!.body }),
      ).toEqual({
        ok: true,
      });
      expect(JSON.parse(request!.body)).toMatchObject({
        type: "build_failed",
        roomId: hook.roomId,
        event: { seq: 2, type: "build_failed", from: "alice", payload: { job: 42 } },
      });
      await until(async () => {
        const log = await http.get(
          `/admin/rooms/${hook.roomId}/webhooks/${hook.webhookId}/deliveries`,
          teamKey,
        );
        return log.body.deliveries?.length === 1;
      }, "the log");
      const log = await http.get(
        `/admin/rooms/${hook.roomId}/webhooks/${hook.webhookId}/deliveries`,
        teamKey,
      );
      expect(log.body).toEqual({
        webhookId: hook.webhookId,
        deliveries: [
          {
            eventSeq: 2,
            attempt: 1,
            outcome: "delivered",
            httpStatus: 200,
            durationMs: expect.any(Number),
            at: expect.any(String),
          },
        ],
      });
      const [listed] = (await http.get(`/admin/rooms/${hook.roomId}/webhooks`, teamKey)).body.webhooks;
      expect(listed.lastDeliveryAt).toBe(log.body.deliveries[0].at);
      expect(receiver.requests).toHaveLength(1);
    });

    test("the test route sends webhook.test at once and answers what came of it; the log keeps it as event 0", async () => {
      const answers = [204, 503];
      const receiver = receivers.start({
        respond: () => new Response(null, { status: answers.shift() ?? 200 }),
      });
      const hook = await registered(`http://127.0.0.1:${receiver.port}/t`);
      const ok = await http.post(`/admin/rooms/${hook.roomId}/webhooks/${hook.webhookId}/test`, teamKey);
      expect(ok).toMatchObject({ status: 200, body: { delivered: true, httpStatus: 204 } });
      const failed = await http.post(`/admin/rooms/${hook.roomId}/webhooks/${hook.webhookId}/test`, teamKey);
      expect(failed.body).toEqual({ delivered: false, httpStatus: 503, error: "HTTP 503" });
      const [first] = receiver.requests;
      expect(JSON.parse(first!.body)).toMatchObject({
        type: "webhook.test",
        roomId: hook.roomId,
        event: { seq: 0, type: "webhook.test", from: "system", payload: { webhookId: hook.webhookId } },
      });
      expect(first?.headers.get("webhook-id")).toMatch(
        new RegExp(`^${hook.roomId}\\.test-[0-9a-z]{12}\\.${hook.webhookId}$`),
      );
      expect(receiver.requests[1]?.headers.get("webhook-id")).not.toBe(first?.headers.get("webhook-id"));
      expect(
        await verifyStandardWebhook({ secret: hook.secret, headers: first!.headers, body: first!.body }),
      ).toEqual({
        ok: true,
      });
      const log = await http.get(
        `/admin/rooms/${hook.roomId}/webhooks/${hook.webhookId}/deliveries`,
        teamKey,
      );
      expect(log.body.deliveries.map((d: any) => [d.eventSeq, d.attempt, d.outcome, d.httpStatus])).toEqual([
        [0, 1, "failed", 503],
        [0, 1, "delivered", 204],
      ]);
      // A test changes nothing else: no event in the room, the webhook still active.
      const [listed] = (await http.get(`/admin/rooms/${hook.roomId}/webhooks`, teamKey)).body.webhooks;
      expect(listed).toMatchObject({ status: "active", consecutiveFailures: 0 });
      const events = await http.tool(teamKey, "read_events", { roomId: hook.roomId });
      expect(events.text).not.toContain("webhook.test");
    });

    test("delete: {ok, webhookId}; then 404 Webhook not found on every route of it", async () => {
      const hook = await registered("https://hooks.example.com/x");
      const base = `/admin/rooms/${hook.roomId}/webhooks/${hook.webhookId}`;
      expect((await http.del(base, teamKey)).body).toEqual({ ok: true, webhookId: hook.webhookId });
      expect(await http.del(base, teamKey)).toMatchObject({ status: 404, body: NOT_FOUND });
      expect(await http.get(`${base}/deliveries`, teamKey)).toMatchObject({
        status: 404,
        body: NOT_FOUND,
      });
      expect(await http.post(`${base}/test`, teamKey)).toMatchObject({ status: 404, body: NOT_FOUND });
      expect((await http.get(`/admin/rooms/${hook.roomId}/webhooks`, teamKey)).body.webhooks).toEqual([]);
    });

    test("bad input gets a clear 4xx and changes nothing: unknown room, other team, invite, bound key, bad URL, bad types, limit", async () => {
      const hook = await registered("https://hooks.example.com/a");
      const { roomId, webhookId } = hook;
      const before = (await http.get(`/admin/rooms/${roomId}/webhooks`, teamKey)).body;
      const routes = (room: string, id = webhookId) =>
        [
          ["POST", `/admin/rooms/${room}/webhooks`],
          ["GET", `/admin/rooms/${room}/webhooks`],
          ["DELETE", `/admin/rooms/${room}/webhooks/${id}`],
          ["GET", `/admin/rooms/${room}/webhooks/${id}/deliveries`],
          ["POST", `/admin/rooms/${room}/webhooks/${id}/test`],
        ] as const;
      const send = (
        method: string,
        path: string,
        secret: string,
        body: unknown = { url: "https://h.example.com/" },
      ) =>
        method === "GET"
          ? http.get(path, secret)
          : method === "DELETE"
            ? http.del(path, secret)
            : http.post(path, secret, body);
      // Another team's room, an unknown room and an invalid room id all read as missing.
      for (const room of [roomId, newRoomId(), "Not_A_Room!"]) {
        for (const [method, path] of routes(room)) {
          const secret = room === roomId ? TEAM_B.secret : teamKey;
          expect({ path, ...(await send(method, path, secret)) }).toMatchObject({
            path,
            status: 404,
            body: ACCESS_DENIED,
          });
        }
      }
      // Invites and bound keys have no admin routes.
      const invite = (await http.post(`/admin/rooms/${roomId}/invite`, teamKey, {})).body.token;
      const bound = (await http.post("/admin/keys", teamKey, { boundAgentId: "alice" })).body.secret;
      for (const [method, path] of routes(roomId)) {
        expect(await send(method, path, invite)).toMatchObject({
          status: 403,
          body: { error: "Invite tokens cannot access admin endpoints" },
        });
        expect(await send(method, path, bound)).toMatchObject({
          status: 403,
          body: { error: "Keys bound to an agent can only use GET /admin/me" },
        });
        expect((await send(method, path, "")).status).toBe(401);
      }
      // Webhook ids that cannot exist.
      for (const id of ["wh_nope", "wh_0000000000000000"]) {
        expect(await http.del(`/admin/rooms/${roomId}/webhooks/${id}`, teamKey)).toMatchObject({
          status: 404,
          body: NOT_FOUND,
        });
      }
      // Bodies.
      const post = (body: unknown) => http.post(`/admin/rooms/${roomId}/webhooks`, teamKey, body);
      const refusals: [unknown, string | RegExp][] = [
        [{}, /^Invalid arguments: url: required/],
        ["{not json", "Invalid JSON body"],
        [
          { url: "not a url" },
          "Webhook URL is malformed (expected an absolute URL such as https://host/path)",
        ],
        [{ url: "ftp://h.example.com/" }, "Webhook URL must use https or http"],
        [{ url: "https://user:pw@h.example.com/" }, "Webhook URL must not contain a user name or password"],
        [
          { url: `https://h.example.com/${"a".repeat(2100)}` },
          "Webhook URL is too long (at most 2048 characters)",
        ],
        [{ url: "https://h.example.com/", types: [] }, /types: must list at least one event type/],
        [{ url: "https://h.example.com/", types: "note" }, /types/],
        [{ url: "https://h.example.com/", types: [""] }, /types/],
        [{ url: "https://h.example.com/", types: ["a\u0001b"] }, /types.*control characters/],
        [{ url: "https://h.example.com/", types: Array.from({ length: 21 }, (_, i) => `t${i}`) }, /types/],
        [{ url: "https://h.example.com/", description: "x".repeat(201) }, /description/],
        [{ url: "https://h.example.com/", secret: "whsec_mine" }, /secret/],
      ];
      for (const [body, message] of refusals) {
        const res = await post(body);
        expect({ body, status: res.status }).toEqual({ body, status: 400 });
        expect(res.body.error).toMatch(message);
      }
      // The room's limit (WEBHOOKS_PER_ROOM=3).
      expect((await post({ url: "https://h.example.com/2" })).status).toBe(201);
      expect((await post({ url: "https://h.example.com/3" })).status).toBe(201);
      expect(await post({ url: "https://h.example.com/4" })).toMatchObject({
        status: 403,
        body: {
          error:
            "Webhook limit reached: a room may have at most 3 webhooks (WEBHOOKS_PER_ROOM); delete one first",
        },
      });
      const after = (await http.get(`/admin/rooms/${roomId}/webhooks`, teamKey)).body;
      expect(after.webhooks.slice(0, 1)).toEqual(before.webhooks);
      expect(after.webhooks).toHaveLength(3);
      for (const w of after.webhooks.slice(1))
        await http.del(`/admin/rooms/${roomId}/webhooks/${w.webhookId}`, teamKey);
    });

    test("without the flags: http, localhost and private addresses are refused at registration, naming the rule", async () => {
      const strictHttp = httpClient(strict.url);
      const roomId = newRoomId();
      await strictHttp.post("/admin/rooms", teamKey, { roomId });
      const post = (url: string) => strictHttp.post(`/admin/rooms/${roomId}/webhooks`, teamKey, { url });
      const cases: [string, string][] = [
        [
          "http://hooks.example.com/",
          "Webhook URL must use https (set WEBHOOK_ALLOW_HTTP=true to allow http)",
        ],
        [
          "https://127.0.0.1/",
          "Webhook URL must not point at a loopback (127.0.0.0/8) address (set WEBHOOK_ALLOW_PRIVATE=true to allow private addresses)",
        ],
        [
          "https://0x7f.1:8443/",
          "Webhook URL must not point at a loopback (127.0.0.0/8) address (set WEBHOOK_ALLOW_PRIVATE=true to allow private addresses)",
        ],
        [
          "https://localhost/",
          "Webhook URL must not point at localhost (set WEBHOOK_ALLOW_PRIVATE=true to allow private addresses)",
        ],
        [
          "https://169.254.169.254/latest/meta-data/",
          "Webhook URL must not point at a link-local (169.254.0.0/16) address (set WEBHOOK_ALLOW_PRIVATE=true to allow private addresses)",
        ],
        [
          "https://[::ffff:10.0.0.1]/",
          "Webhook URL must not point at a private (10.0.0.0/8) inside IPv4-mapped IPv6 address (set WEBHOOK_ALLOW_PRIVATE=true to allow private addresses)",
        ],
      ];
      for (const [url, error] of cases)
        expect({ url, ...(await post(url)) }).toMatchObject({ url, status: 400, body: { error } });
      expect((await strictHttp.get(`/admin/rooms/${roomId}/webhooks`, teamKey)).body.webhooks).toEqual([]);
    });

    test.skipIf(LOOPBACK_NAME === null)(
      `without WEBHOOK_ALLOW_PRIVATE, a name the system resolves to loopback (${LOOPBACK_NAME ?? "this machine's host name does not"}) is refused at send time`,
      async () => {
        const name = LOOPBACK_NAME as string;
        const receiver = receivers.start();
        const plain = startInProcess(store, logger, { ...BASE, WEBHOOK_ALLOW_HTTP: "true" });
        try {
          const client = httpClient(plain.url);
          const roomId = newRoomId();
          await client.post("/admin/rooms", teamKey, { roomId });
          const made = await client.post(`/admin/rooms/${roomId}/webhooks`, teamKey, {
            url: `http://${name}:${receiver.port}/`,
          });
          expect(made.status).toBe(201); // a name is not resolved at registration: DNS can change
          secrets.push(made.body.secret);
          const tested = await client.post(
            `/admin/rooms/${roomId}/webhooks/${made.body.webhookId}/test`,
            teamKey,
          );
          expect(tested.body).toEqual({
            delivered: false,
            error:
              "refused: the host resolves to a loopback (127.0.0.0/8) address (set WEBHOOK_ALLOW_PRIVATE=true to allow private addresses)",
          });
          expect(receiver.requests).toHaveLength(0);
        } finally {
          await plain.stop();
        }
      },
    );

    test("without a signing key every webhook route answers 503 and says what to set", async () => {
      const client = httpClient(keyless.url);
      const roomId = newRoomId();
      await client.post("/admin/rooms", teamKey, { roomId });
      const id = "wh_0000000000000000";
      for (const res of [
        await client.post(`/admin/rooms/${roomId}/webhooks`, teamKey, {
          url: "https://h.example.com/",
        }),
        await client.get(`/admin/rooms/${roomId}/webhooks`, teamKey),
        await client.del(`/admin/rooms/${roomId}/webhooks/${id}`, teamKey),
        await client.get(`/admin/rooms/${roomId}/webhooks/${id}/deliveries`, teamKey),
        await client.post(`/admin/rooms/${roomId}/webhooks/${id}/test`, teamKey),
      ]) {
        expect(res).toMatchObject({ status: 503, body: { error: "Webhooks need WEBHOOK_SIGNING_KEY" } });
      }
      expect((await client.get(`/admin/rooms/${roomId}/webhooks`)).status).toBe(401);
    });
  });
}
