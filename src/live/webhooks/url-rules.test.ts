import { describe, expect, test } from "bun:test";
import { RoomError } from "../../protocol/errors.ts";
import { checkWebhookUrl, inspectWebhookUrl, isLocalhostName, MAX_WEBHOOK_URL_LENGTH } from "./url-rules.ts";

const STRICT = { allowHttp: false, allowPrivate: false };
const HTTP_ONLY = { allowHttp: true, allowPrivate: false };
const OPEN = { allowHttp: true, allowPrivate: true };

/** The rule that refuses a URL under the given flags, or its normalised form when accepted. */
const judge = (raw: string, flags = HTTP_ONLY) => {
  const verdict = inspectWebhookUrl(raw, flags);
  return verdict.ok ? verdict.url.href : verdict.rule;
};

describe("registration refuses plainly private targets without the flags", () => {
  // Run with http allowed, so each case is refused for where it points, not for its scheme.
  test.each([
    ["http://127.0.0.1/hook", "refused_address"],
    ["http://localhost/hook", "localhost"],
    ["http://LOCALHOST./hook", "localhost"],
    ["http://api.localhost:8080/", "localhost"],
    ["http://[::1]/", "refused_address"],
    ["http://10.1.2.3/", "refused_address"],
    ["http://169.254.169.254/latest/meta-data/", "refused_address"],
    ["http://[::ffff:127.0.0.1]/", "refused_address"],
    ["http://[0:0:0:0:0:ffff:a9fe:a9fe]/", "refused_address"],
    ["http://[fe80::1]/", "refused_address"],
    ["http://[fd00::1]/", "refused_address"],
    ["http://100.64.0.1/", "refused_address"],
    ["http://0/", "refused_address"], // the parser reads "0" as 0.0.0.0
    ["http://255.255.255.255/", "refused_address"],
    ["http://224.0.0.1/", "refused_address"],
    // Other spellings of IPv4 that the WHATWG parser turns into dotted decimal before any rule looks.
    ["http://2130706433/", "refused_address"], // decimal 127.0.0.1
    ["http://0x7f.1/", "refused_address"], // hex + short form
    ["http://0x7f000001/", "refused_address"],
    ["http://0177.0.0.1/", "refused_address"], // octal
    ["http://017700000001/", "refused_address"],
    ["http://127.1/", "refused_address"],
    ["http://%31%32%37.0.0.1/", "refused_address"], // percent-encoded host
    ["http://0xa9.0xfe.0xa9.0xfe/", "refused_address"], // 169.254.169.254
  ])("%s → %s", (raw, rule) => {
    expect(judge(raw)).toBe(rule);
    // Without either flag, the https form is refused for the same reason.
    expect(judge(raw.replace(/^http:/, "https:"), STRICT)).toBe(rule);
  });

  test("the message names the rule, the range and the flag that would allow it", () => {
    const verdict = inspectWebhookUrl("http://2130706433/", HTTP_ONLY);
    expect(verdict).toEqual({
      ok: false,
      rule: "refused_address",
      message:
        "Webhook URL must not point at a loopback (127.0.0.0/8) address (set WEBHOOK_ALLOW_PRIVATE=true to allow private addresses)",
    });
    const mapped = inspectWebhookUrl("http://[::ffff:10.0.0.1]/", HTTP_ONLY);
    expect(mapped.ok ? "" : mapped.message).toContain("private (10.0.0.0/8) inside IPv4-mapped IPv6");
    const local = inspectWebhookUrl("https://localhost/", STRICT);
    expect(local.ok ? "" : local.message).toBe(
      "Webhook URL must not point at localhost (set WEBHOOK_ALLOW_PRIVATE=true to allow private addresses)",
    );
  });

  test("WEBHOOK_ALLOW_PRIVATE=true lets them through, normalised", () => {
    expect(judge("http://2130706433/hook", OPEN)).toBe("http://127.0.0.1/hook");
    expect(judge("http://[::ffff:127.0.0.1]:8080/", OPEN)).toBe("http://[::ffff:7f00:1]:8080/");
    expect(judge("http://localhost:3000/x", OPEN)).toBe("http://localhost:3000/x");
  });
});

describe("scheme, credentials, shape", () => {
  test("https only unless WEBHOOK_ALLOW_HTTP=true, and never another scheme", () => {
    const plain = inspectWebhookUrl("http://hooks.example.com/", STRICT);
    expect(plain).toEqual({
      ok: false,
      rule: "scheme",
      message: "Webhook URL must use https (set WEBHOOK_ALLOW_HTTP=true to allow http)",
    });
    expect(judge("http://hooks.example.com/", HTTP_ONLY)).toBe("http://hooks.example.com/");
    for (const raw of [
      "ftp://hooks.example.com/",
      "file:///etc/passwd",
      "ws://hooks.example.com/",
      "gopher://x/",
    ]) {
      expect(judge(raw, OPEN)).toBe("scheme");
    }
    const other = inspectWebhookUrl("ftp://hooks.example.com/", OPEN);
    expect(other.ok ? "" : other.message).toBe("Webhook URL must use https or http");
  });

  test("credentials in the URL are refused, whatever the flags", () => {
    expect(judge("https://user:pass@hooks.example.com/", OPEN)).toBe("credentials");
    expect(judge("https://user@hooks.example.com/", OPEN)).toBe("credentials");
    expect(judge("https://:pass@hooks.example.com/", OPEN)).toBe("credentials");
  });

  test("malformed URLs", () => {
    for (const raw of [
      "",
      "hooks.example.com/x",
      "https://",
      "https://exa mple.com/",
      "https://[::1/",
      "https://1.2.3.256/",
    ]) {
      expect(judge(raw, OPEN)).toBe("malformed");
    }
    expect(judge("https://hooks.example.com:0/", OPEN)).toBe("malformed");
    expect(inspectWebhookUrl("nope", STRICT)).toMatchObject({
      message: expect.stringContaining("malformed"),
    });
  });

  test("length is capped at 2048 characters, before and after normalisation", () => {
    const base = "https://hooks.example.com/";
    const fits = base + "a".repeat(MAX_WEBHOOK_URL_LENGTH - base.length);
    expect(judge(fits, STRICT)).toBe(fits);
    expect(judge(`${fits}a`, STRICT)).toBe("too_long");
    // Spaces become %20 when normalised: 1000 of them fit as typed but not once encoded.
    expect(judge(`${base}${" x".repeat(1000)}`, STRICT)).toBe("too_long");
  });

  test("normalisation: lower-case host, default port dropped, punycode, fragment dropped, query kept", () => {
    expect(judge("HTTPS://Hooks.Example.COM:443/A/b?x=1&y=%20#frag", STRICT)).toBe(
      "https://hooks.example.com/A/b?x=1&y=%20",
    );
    expect(judge("https://bücher.example/hook", STRICT)).toBe("https://xn--bcher-kva.example/hook");
    expect(judge("https://hooks.example.com:8443", STRICT)).toBe("https://hooks.example.com:8443/");
  });

  test("public names and addresses pass; names are not resolved at registration", () => {
    expect(judge("https://8.8.8.8/hook", STRICT)).toBe("https://8.8.8.8/hook");
    expect(judge("https://[2606:4700:4700::1111]/", STRICT)).toBe("https://[2606:4700:4700::1111]/");
    // localhost lookalikes are names like any other; send time resolves and checks them.
    expect(judge("https://localhost.example.com/", STRICT)).toBe("https://localhost.example.com/");
    expect(judge("https://mylocalhost/", STRICT)).toBe("https://mylocalhost/");
  });
});

describe("checkWebhookUrl (registration)", () => {
  test("returns the normalised URL", () => {
    expect(checkWebhookUrl("https://Hooks.Example.com/x#y", STRICT)).toBe("https://hooks.example.com/x");
  });

  test("throws an invalid RoomError (HTTP 400) carrying the rule's message", () => {
    let caught: unknown;
    try {
      checkWebhookUrl("http://hooks.example.com/", STRICT);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(RoomError);
    expect((caught as RoomError).kind).toBe("invalid");
    expect((caught as RoomError).message).toBe(
      "Webhook URL must use https (set WEBHOOK_ALLOW_HTTP=true to allow http)",
    );
  });
});

test("isLocalhostName", () => {
  for (const name of ["localhost", "LocalHost", "localhost.", "a.localhost", "a.b.localhost.."]) {
    expect(isLocalhostName(name)).toBe(true);
  }
  for (const name of ["localhost.com", "notlocalhost", "localhostx", "example.com"]) {
    expect(isLocalhostName(name)).toBe(false);
  }
});
