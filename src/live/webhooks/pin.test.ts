import { describe, expect, test } from "bun:test";
import { describeNetworkError } from "./failure.ts";
import { pinAddress, type ResolvedAddress, systemResolver } from "./pin.ts";

/** A resolver with fixed answers that records its calls. */
function fixed(answers: ResolvedAddress[]) {
  const calls: string[] = [];
  const resolve = async (host: string) => {
    calls.push(host);
    return answers;
  };
  return { calls, resolve };
}

const v4 = (address: string): ResolvedAddress => ({ address, family: 4 });
const v6 = (address: string): ResolvedAddress => ({ address, family: 6 });

describe("pinAddress", () => {
  test("refuses a name when ANY answer is refused, even if the first is public", async () => {
    // Nothing connects here (pinAddress only decides), so a public answer in the list sends no traffic.
    const { resolve } = fixed([v4("8.8.8.8"), v4("10.0.0.5")]);
    expect(await pinAddress("hooks.example.test", { resolve, allowPrivate: false })).toEqual({
      ok: false,
      error:
        "refused: the host resolves to a private (10.0.0.0/8) address (set WEBHOOK_ALLOW_PRIVATE=true to allow private addresses)",
    });
  });

  test("pins the first answer when all are allowed, calling the resolver once", async () => {
    const { calls, resolve } = fixed([v6("2606:4700:4700::1111"), v4("1.1.1.1")]);
    expect(await pinAddress("hooks.example.test", { resolve, allowPrivate: false })).toEqual({
      ok: true,
      target: v6("2606:4700:4700::1111"),
    });
    expect(calls).toEqual(["hooks.example.test"]);
  });

  test("allowPrivate lets refused ranges through", async () => {
    const { resolve } = fixed([v4("127.0.0.1"), v6("fd00::1")]);
    expect(await pinAddress("hooks.example.test", { resolve, allowPrivate: true })).toEqual({
      ok: true,
      target: v4("127.0.0.1"),
    });
  });

  test("an IP literal is used as it is, without a lookup, and checked like an answer", async () => {
    const { calls, resolve } = fixed([v4("1.1.1.1")]);
    expect(await pinAddress("::1", { resolve, allowPrivate: true })).toEqual({ ok: true, target: v6("::1") });
    expect(await pinAddress("169.254.169.254", { resolve, allowPrivate: false })).toMatchObject({
      ok: false,
    });
    expect(calls).toEqual([]);
  });

  test("the family is read from the address, not taken from the resolver", async () => {
    const { resolve } = fixed([{ address: "::1", family: 4 }]);
    expect(await pinAddress("h.example.test", { resolve, allowPrivate: true })).toEqual({
      ok: true,
      target: v6("::1"),
    });
  });

  test("fails closed on answers that are not addresses, on no answer and on lookup errors", async () => {
    const opts = (answers: ResolvedAddress[]) => ({ resolve: fixed(answers).resolve, allowPrivate: true });
    expect(await pinAddress("h.example.test", opts([v4("8.8.8.8"), v4("evil.example")]))).toEqual({
      ok: false,
      error: "DNS lookup returned something that is not an IP address",
    });
    expect(await pinAddress("h.example.test", opts([]))).toEqual({
      ok: false,
      error: "DNS lookup returned no address",
    });
    const failing = async () => {
      throw Object.assign(new Error("queryA ETIMEOUT h.example.test with secret stuff"), {
        code: "EAI_AGAIN",
      });
    };
    expect(await pinAddress("h.example.test", { resolve: failing, allowPrivate: true })).toEqual({
      ok: false,
      error: "DNS lookup failed: DNS lookup failed temporarily",
    });
  });
});

test("systemResolver answers from the system (here /etc/hosts for localhost) with typed families", async () => {
  const answers = await systemResolver("localhost");
  expect(answers.length).toBeGreaterThan(0);
  for (const { address, family } of answers) {
    expect(["127.0.0.1", "::1"]).toContain(address);
    expect(family).toBe(address === "::1" ? 6 : 4);
  }
});

describe("describeNetworkError", () => {
  test("maps codes to short phrases and never repeats an error's message", () => {
    const err = (code: unknown, message = "connect to https://x/secret-path failed") =>
      Object.assign(new Error(message), { code });
    expect(describeNetworkError(err("ECONNREFUSED"))).toBe("connection refused");
    expect(describeNetworkError(err("ECONNRESET"))).toBe("connection reset");
    expect(describeNetworkError(err("DEPTH_ZERO_SELF_SIGNED_CERT"))).toBe(
      "TLS certificate not accepted (DEPTH_ZERO_SELF_SIGNED_CERT)",
    );
    expect(describeNetworkError(err("ERR_TLS_CERT_ALTNAME_INVALID"))).toBe(
      "TLS certificate not accepted (ERR_TLS_CERT_ALTNAME_INVALID)",
    );
    expect(describeNetworkError(err("EWHATEVER"))).toBe("request failed (EWHATEVER)");
    expect(describeNetworkError(err("not a code: /secret-path"))).toBe("request failed");
    expect(describeNetworkError(err(42))).toBe("request failed");
    expect(describeNetworkError("plain string /secret-path")).toBe("request failed");
    expect(describeNetworkError(null)).toBe("request failed");
  });
});
