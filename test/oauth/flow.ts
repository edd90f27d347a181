/**
 * The OAuth flow over plain HTTP, as a client and a person's browser would do it (support for the OAuth tests):
 * register, sign in, open the consent page, submit it, exchange the code. Each step returns what it got, so tests
 * can refuse at any of them.
 */
import { createHash, randomBytes } from "node:crypto";

export const REDIRECT = "http://127.0.0.1:5999/callback";

export const pkcePair = () => {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
};

export async function registerClient(base: string, redirectUris = [REDIRECT]): Promise<string> {
  const res = await fetch(`${base}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ client_name: "Test client", redirect_uris: redirectUris }),
  });
  if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { client_id: string }).client_id;
}

const cookieValue = (setCookie: string | null, name: string) =>
  new RegExp(`(?:^|, )${name}=([^;]*)`).exec(setCookie ?? "")?.[1];

/** A person's session id (signed in through the form's JSON route, as the sign-in page does). */
export async function personSession(base: string, key: string): Promise<string> {
  const form = await fetch(`${base}/login`, { headers: { Accept: "text/html" } });
  const nonce = cookieValue(form.headers.get("set-cookie"), "roomd_login") as string;
  const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(await form.text())?.[1] as string;
  const res = await fetch(`${base}/login`, {
    method: "POST",
    headers: {
      Origin: base,
      "Content-Type": "application/json",
      "X-CSRF-Token": csrf,
      Cookie: `roomd_login=${nonce}`,
    },
    body: JSON.stringify({ key }),
  });
  const id = cookieValue(res.headers.get("set-cookie"), "roomd_session");
  if (!id) throw new Error(`sign-in: ${res.status} ${await res.text()}`);
  return id;
}

export interface AuthorizeRequest {
  clientId: string;
  challenge: string;
  redirectUri?: string;
  state?: string;
  resource?: string;
  extra?: Record<string, string>;
}

export function authorizeUrl(base: string, req: AuthorizeRequest): string {
  const url = new URL(`${base}/oauth/authorize`);
  const params: Record<string, string | undefined> = {
    response_type: "code",
    client_id: req.clientId,
    redirect_uri: req.redirectUri ?? REDIRECT,
    state: req.state ?? "st-1",
    code_challenge: req.challenge,
    code_challenge_method: "S256",
    resource: req.resource ?? `${base}/mcp`,
    ...req.extra,
  };
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") url.searchParams.set(k, v);
  return url.toString();
}

/** GET the consent page with a session; its form's fields. */
export async function consentForm(url: string, session: string) {
  const res = await fetch(url, { headers: { Cookie: `roomd_session=${session}` }, redirect: "manual" });
  const body = await res.text();
  const fields: Record<string, string> = {};
  for (const m of body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    fields[m[1] as string] = (m[2] as string)
      .replaceAll("&quot;", '"')
      .replaceAll("&#39;", "'")
      .replaceAll("&lt;", "<")
      .replaceAll("&gt;", ">")
      .replaceAll("&amp;", "&");
  return {
    status: res.status,
    location: res.headers.get("location"),
    body,
    fields,
    csp: res.headers.get("content-security-policy"),
  };
}

/**
 * Submits the consent form (Allow), naming the room(s) (each a checked box), the agent and, with `readOnly`, the
 * read-only box; the redirect it answers.
 */
export async function consent(
  base: string,
  session: string,
  fields: Record<string, string>,
  choice: { room: string | string[]; agent: string; decision?: string; readOnly?: string },
) {
  const body = new URLSearchParams({ ...fields, agent: choice.agent, decision: choice.decision ?? "allow" });
  for (const room of Array.isArray(choice.room) ? choice.room : [choice.room]) body.append("room", room);
  if (choice.readOnly !== undefined) body.set("readOnly", choice.readOnly);
  const res = await fetch(`${base}/oauth/authorize`, {
    method: "POST",
    headers: {
      Cookie: `roomd_session=${session}`,
      Origin: base,
      "Content-Type": "application/x-www-form-urlencoded",
    },
    body,
    redirect: "manual",
  });
  const location = res.headers.get("location");
  return {
    status: res.status,
    location,
    url: location ? new URL(location) : null,
    text: location ? "" : await res.text(),
  };
}

export async function token(base: string, form: Record<string, string>) {
  const res = await fetch(`${base}/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** whoami over /mcp with a bearer. */
export async function whoami(base: string, bearer: string, url = `${base}/mcp`) {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${bearer}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "whoami", arguments: {} },
    }),
  });
  const text = await res.text();
  if (res.status !== 200)
    return { status: res.status, header: res.headers.get("www-authenticate"), me: null };
  const json = JSON.parse(text.startsWith("{") ? text : (/data: (.*)/.exec(text)?.[1] ?? "{}"));
  return { status: res.status, header: null, me: JSON.parse(json.result?.content?.[0]?.text ?? "null") };
}
