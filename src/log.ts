/**
 * Structured logging: one JSON line per record on stderr. Callers pass facts, never secrets: no bearer, key,
 * token or digest is ever a field (tests scan the log for them).
 */
export type LogLevel = "debug" | "info" | "warn" | "error";

export const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error"];

export interface Logger {
  log(level: LogLevel, msg: string, fields?: Record<string, unknown>): void;
  /**
   * Whether a record of this level would be written: callers with a per-request record (one line per tool call)
   * ask first, so a quieter level costs them nothing. Absent means every level is written.
   */
  enabled?(level: LogLevel): boolean;
}

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** A logger writing records of `level` and above, one JSON line each, through `write` (stderr by default). */
export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stderr.write(line),
): Logger {
  const least = RANK[level];
  return {
    enabled: (at) => RANK[at] >= least,
    log(at, msg, fields) {
      if (RANK[at] < least) return;
      write(`${JSON.stringify({ time: new Date().toISOString(), level: at, msg, ...fields })}\n`);
    },
  };
}

export const silentLogger: Logger = { log() {}, enabled: () => false };

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
