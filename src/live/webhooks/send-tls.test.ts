/**
 * https with pinning: the receiver has a self-signed certificate for hooks.example.test only (no IP address in
 * it), made here with openssl, and listens on 127.0.0.1. The request connects to the pinned 127.0.0.1 yet the
 * TLS server name and the certificate check use hooks.example.test — or the handshake would fail.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Receiver, startReceiver } from "../../../test/support/webhook-receiver.ts";
import type { Resolver } from "./pin.ts";
import { sendWebhook } from "./send.ts";
import { newWebhookSecret, webhookHeaders } from "./signature.ts";

const HOST = "hooks.example.test";
const BODY = '{"type":"message","roomId":"room-1","event":{}}';
const HEADERS = webhookHeaders({ secret: newWebhookSecret(), id: "room-1.1.wh_1", timestamp: 1, body: BODY });

let dir = "";
let cert = "";
let receiver: Receiver;
const calls: string[] = [];
const loopback: Resolver = async (hostname) => {
  calls.push(hostname);
  return [{ address: "127.0.0.1", family: 4 }];
};

/** A fresh key and a one-day self-signed certificate naming only `host`. */
function selfSigned(host: string): { key: string; cert: string } {
  const args = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  args.push("-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-days", "1");
  args.push("-subj", `/CN=${host}`, "-addext", `subjectAltName=DNS:${host}`);
  const made = Bun.spawnSync(["openssl", ...args], { stderr: "pipe" });
  if (made.exitCode !== 0) throw new Error(`openssl failed: ${made.stderr.toString()}`);
  return {
    key: readFileSync(join(dir, "key.pem"), "utf8"),
    cert: readFileSync(join(dir, "cert.pem"), "utf8"),
  };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "roomd-webhook-tls-"));
  const tls = selfSigned(HOST);
  cert = tls.cert;
  receiver = startReceiver({ hostname: "127.0.0.1", tls });
});

afterAll(async () => {
  await receiver?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const send = (host: string, ca: string | undefined) =>
  sendWebhook({
    url: `https://${host}:${receiver.port}/hook`,
    headers: HEADERS,
    body: BODY,
    allowPrivate: true,
    resolve: loopback,
    ...(ca === undefined ? {} : { ca }),
  });

describe("https to a pinned address", () => {
  test("delivers over TLS to 127.0.0.1 with the name as server name, Host header and certificate identity", async () => {
    calls.length = 0;
    const before = receiver.requests.length;
    expect(await send(HOST, cert)).toMatchObject({ outcome: "delivered", httpStatus: 200 });
    expect(calls).toEqual([HOST]);
    const got = receiver.requests.slice(before);
    expect(got.map((r) => [r.tls, r.peer, r.headers.get("host"), r.body])).toEqual([
      [true, "127.0.0.1", `${HOST}:${receiver.port}`, BODY],
    ]);
  });

  test("the certificate is still verified: a name it does not cover is refused", async () => {
    const before = receiver.requests.length;
    expect(await send("other.example.test", cert)).toMatchObject({
      outcome: "failed",
      error: "TLS certificate not accepted (ERR_TLS_CERT_ALTNAME_INVALID)",
    });
    expect(receiver.requests.length).toBe(before);
  });

  test("without the CA the self-signed certificate is not trusted", async () => {
    const result = await send(HOST, undefined);
    expect(result.outcome).toBe("failed");
    expect(result.error).toBe("TLS certificate not accepted (DEPTH_ZERO_SELF_SIGNED_CERT)");
  });
});
