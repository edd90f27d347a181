/** Small HTTP helpers for route tests: JSON requests with a bearer, and raw tools/call. */
export interface JsonResponse {
  status: number;
  body: any;
  headers: Headers;
}

/** POSTs one tools/call as raw JSON-RPC (no SDK) to a roomd at `base`; the caller reads the answer. */
export function postTool(
  base: string,
  secret: string,
  name: string,
  args: Record<string, unknown>,
  signal?: AbortSignal,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${base}/mcp`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${secret}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
    signal,
  });
}

/** GETs a probe (/livez, /readyz, /health), optionally from a browser's `origin`: its status and JSON body. */
export async function probe(
  url: string,
  path: string,
  origin?: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}${path}`, origin ? { headers: { Origin: origin } } : {});
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

export function httpClient(base: string) {
  const request = async (
    method: string,
    path: string,
    secret?: string,
    body?: unknown,
  ): Promise<JsonResponse> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(secret ? { Authorization: `Bearer ${secret}` } : {}),
        ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
      },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: res.status, body: parsed, headers: res.headers };
  };
  /** One tools/call as raw JSON-RPC (no SDK), returning the HTTP status, result and headers. */
  const tool = async (
    secret: string,
    name: string,
    args: Record<string, unknown>,
    headers: Record<string, string> = {},
  ) => {
    const res = await postTool(base, secret, name, args, undefined, headers);
    const body = res.headers.get("content-type")?.includes("json")
      ? ((await res.json()) as any)
      : await res.text();
    const text: string = body?.result?.content?.[0]?.text ?? "";
    return { status: res.status, isError: body?.result?.isError === true, text, headers: res.headers, body };
  };
  return {
    get: (path: string, secret?: string) => request("GET", path, secret),
    post: (path: string, secret?: string, body?: unknown) => request("POST", path, secret, body ?? {}),
    put: (path: string, secret?: string, body?: unknown) => request("PUT", path, secret, body ?? {}),
    del: (path: string, secret?: string) => request("DELETE", path, secret),
    tool,
  };
}
