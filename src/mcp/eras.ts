/**
 * The two eras of MCP one `/mcp` endpoint serves. Legacy (2025-03-26, 2025-06-18, 2025-11-25): a client opens with
 * `initialize` and its requests carry no per-request metadata; the SDK's transport answers them. Modern
 * (2026-07-28): no handshake, every request carries its protocol version and capabilities in `params._meta` and
 * mirrors method, name and version into headers; roomd answers it itself (src/mcp/modern/).
 */

/** The revision served without a handshake. */
export const MODERN_VERSION = "2026-07-28";

/** The handshake revisions, newest first (the SDK also accepts its older drafts, which stay as they were). */
export const LEGACY_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;

/** Every revision served, newest first: server/discover and the unsupported-version error list them. */
export const SUPPORTED_VERSIONS: readonly string[] = [MODERN_VERSION, ...LEGACY_VERSIONS];

/** Versions the legacy transport negotiates itself (its own list includes two 2024 drafts). */
const LEGACY_HEADER = new Set<string>([...LEGACY_VERSIONS, "2024-11-05", "2024-10-07"]);

export const META_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
export const META_CLIENT = "io.modelcontextprotocol/clientInfo";
export const META_LOG_LEVEL = "io.modelcontextprotocol/logLevel";
export const META_SERVER = "io.modelcontextprotocol/serverInfo";
export const META_SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId";

export type Era = "legacy" | "modern";

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** The `params._meta` protocol version a message carries, if any. */
function metaVersion(message: unknown): unknown {
  if (!isRecord(message) || !isRecord(message.params)) return undefined;
  const meta = message.params._meta;
  return isRecord(meta) ? meta[META_VERSION] : undefined;
}

/**
 * Which era a request belongs to. Modern: its body carries a `_meta` protocol version, or its
 * `MCP-Protocol-Version` header names a version the handshake never negotiates (2026-07-28, or one roomd does
 * not know: the modern path answers it with the list of supported versions). Legacy: everything else — no
 * header (a 2025-03-26 client) or a handshake version, and no per-request metadata — exactly as before.
 */
export function eraOf(headerVersion: string | null, body: unknown): Era {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.some((m) => metaVersion(m) !== undefined)) return "modern";
  if (headerVersion === null || headerVersion.trim() === "") return "legacy";
  return LEGACY_HEADER.has(headerVersion.trim()) ? "legacy" : "modern";
}
