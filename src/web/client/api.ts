/**
 * The pages' requests to roomd's JSON routes: same-origin fetch with the session cookie, and on every state-changing
 * request the session's CSRF token (from the page's <meta name="csrf-token">) in X-CSRF-Token. The browser adds
 * the Origin header itself.
 */

const csrf = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? "";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface CallOptions {
  /** "omit" for a public viewer's reads: no cookie, so the public answer. */
  credentials?: RequestCredentials;
}

export async function api<T>(
  method: string,
  path: string,
  body?: unknown,
  options: CallOptions = {},
): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET" && csrf !== "") headers["X-CSRF-Token"] = csrf;
  const res = await fetch(path, {
    method,
    headers,
    credentials: options.credentials ?? "same-origin",
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text === "" ? null : JSON.parse(text);
  } catch {
    parsed = null;
  }
  if (!res.ok) {
    const error = (parsed as { error?: unknown } | null)?.error;
    throw new ApiError(res.status, typeof error === "string" ? error : `Request failed (${res.status})`);
  }
  return parsed as T;
}

/** Signed out meanwhile (the session ended, or its key was revoked): back to the sign-in page. */
export function toSignIn(): void {
  location.assign(`/login?next=${encodeURIComponent(location.pathname)}`);
}

/** The header's sign-out button, on every page that has one. */
export function bindSignOut(): void {
  const button = document.getElementById("sign-out");
  button?.addEventListener("click", async () => {
    try {
      await api("POST", "/logout");
    } finally {
      location.assign("/login");
    }
  });
}
