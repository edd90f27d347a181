/**
 * roomctl's only way to the server: fetch. JSON routes (`/admin/*`, `/rooms/:roomId/*`) and MCP tools, the latter
 * as one raw JSON-RPC `tools/call` per request over POST /mcp. roomd's MCP endpoint is stateless (no initialize
 * handshake, no session), so a tool call is a single POST: the SDK client would add a handshake round trip and
 * its module graph to every command for nothing. Failures become one-line CliErrors carrying the server's message
 * and status; a key never appears in one.
 */
import pkg from "../../package.json" with { type: "json" };
import { type Credentials, resolveCredentials } from "./credentials.ts";
import { CliError } from "./kit.ts";

/** A request that takes longer than this fails (watch streams are not requests: they have their own rules). */
const REQUEST_MS = 30_000;

export const USER_AGENT = `roomctl/${pkg.version}`;

export interface Api {
  url: string;
  get<T = unknown>(path: string): Promise<T>;
  post<T = unknown>(path: string, body?: unknown): Promise<T>;
  put<T = unknown>(path: string, body: unknown): Promise<T>;
  del<T = unknown>(path: string): Promise<T>;
  /** One MCP tool call; resolves to its result (structuredContent, or the parsed text). */
  tool<T = unknown>(name: string, args: Record<string, unknown>): Promise<T>;
}

/** Why fetch failed, in a few words (no URL: the caller names the server). */
export function networkReason(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === "TimeoutError") return "timed out";
    const code = (error as { code?: string }).code;
    if (code === "ConnectionRefused" || code === "ECONNREFUSED") return "connection refused";
    if (code) return code;
    return error.message.split("\n")[0] ?? error.name;
  }
  return String(error);
}

/** The message of a failed answer: `{"error": …}` on routes, a JSON-RPC error on /mcp, else the status text. */
function failure(status: number, body: unknown, text: string): CliError {
  const error = (body as { error?: unknown } | undefined)?.error;
  const nested = (error as { message?: unknown } | undefined)?.message;
  const message =
    typeof error === "string"
      ? error
      : typeof nested === "string"
        ? nested
        : text.trim().slice(0, 200) || `HTTP ${status}`;
  const hint =
    status === 401 ? ": the server does not know this key (run roomctl login, or check ROOMD_KEY)" : "";
  return new CliError(`${message} (${status})${hint}`);
}

/**
 * roomd's error message of a failed answer read outside createApi (the streamed export, import and watch), as
 * the other commands show it: `<message> (<status>)`.
 */
export async function answerFailure(res: Response): Promise<CliError> {
  const text = await res.text();
  let message = text.trim().slice(0, 200) || `HTTP ${res.status}`;
  try {
    message = (JSON.parse(text) as { error?: string }).error ?? message;
  } catch {}
  return new CliError(`${message} (${res.status})`);
}

export function createApi(credentials: Credentials): Api {
  const { url, key } = credentials;
  const headers = {
    Authorization: `Bearer ${key}`,
    "User-Agent": USER_AGENT,
    Accept: "application/json, text/event-stream",
  };

  async function request(method: string, path: string, body?: unknown): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(`${url}${path}`, {
        method,
        headers: body === undefined ? headers : { ...headers, "Content-Type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(REQUEST_MS),
      });
    } catch (error) {
      throw new CliError(`roomd not reached at ${url} (${networkReason(error)})`);
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!res.ok) throw failure(res.status, parsed, text);
    if (parsed === undefined && text !== "")
      throw new CliError(`roomd answered ${path} with something not JSON`);
    return parsed;
  }

  return {
    url,
    get: (path) => request("GET", path) as Promise<never>,
    post: (path, body = {}) => request("POST", path, body) as Promise<never>,
    put: (path, body) => request("PUT", path, body) as Promise<never>,
    del: (path) => request("DELETE", path) as Promise<never>,
    async tool(name, args) {
      const answer = (await request("POST", "/mcp", {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name, arguments: args },
      })) as {
        error?: { message?: string };
        result?: {
          isError?: boolean;
          structuredContent?: unknown;
          content?: { type: string; text?: string }[];
        };
      };
      if (answer?.error) throw new CliError(answer.error.message ?? `tool ${name} failed`);
      const result = answer?.result;
      const text = result?.content?.find((c) => c.type === "text")?.text ?? "";
      if (result?.isError) throw new CliError(text.replace(/^Error:\s*/, "") || `tool ${name} failed`);
      if (result?.structuredContent !== undefined) return result.structuredContent as never;
      try {
        return JSON.parse(text);
      } catch {
        throw new CliError(`tool ${name} answered something not JSON`);
      }
    },
  };
}

/** The API with the credentials of the environment or the saved file. */
export const connect = (): Api => createApi(resolveCredentials());

/** A path segment: ids go into paths encoded, whatever they hold. */
export const seg = (value: string): string => encodeURIComponent(value);
