/** A refusal at the level of the MCP request (not a tool's answer): a JSON-RPC error and its HTTP status. */

/** A JSON-RPC error a method answers with (code, message, data), and the HTTP status the modern era sends it with. */
export class McpFailure extends Error {
  override readonly name = "McpFailure";
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
    readonly status = 200,
  ) {
    super(message);
  }
}

export const INVALID_PARAMS = -32602;
export const METHOD_NOT_FOUND = -32601;

/** The -32602 of a resource the caller cannot read (missing, another team's, malformed), naming the URI. */
export const resourceNotFound = (uri: string, why = "Resource not found") =>
  new McpFailure(INVALID_PARAMS, `${why}: ${uri.slice(0, 300)}`, { uri });
