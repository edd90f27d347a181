/**
 * Structured logging: one JSON line per record on stderr. Callers pass facts, never secrets: no bearer, key,
 * token or digest is ever a field (tests scan the log for them).
 */
export type LogLevel = "debug" | "info" | "warn" | "error";

export interface Logger {
  log(level: LogLevel, msg: string, fields?: Record<string, unknown>): void;
}

export const stderrLogger: Logger = {
  log(level, msg, fields) {
    process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
  },
};

export const silentLogger: Logger = { log() {} };

/** A short description of an unknown failure for the log: name and message, no stack of user data. */
export function describeError(error: unknown): Record<string, unknown> {
  if (error instanceof Error) {
    return {
      error: error.name,
      message: error.message,
      cause: error.cause ? describeError(error.cause) : undefined,
    };
  }
  return { error: String(error) };
}
