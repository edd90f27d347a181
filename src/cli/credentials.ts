/**
 * Where roomctl's server and key come from: ROOMD_URL + ROOMD_KEY in the environment, or the file `roomctl login`
 * writes ($XDG_CONFIG_HOME/roomd/credentials.json, else ~/.config/roomd/credentials.json; mode 0600 in a 0700
 * directory). The environment wins over the file. A key from the file is only ever sent to the URL it was saved
 * with: ROOMD_URL naming another server without ROOMD_KEY is an error, never a leak of the saved key.
 */
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { CliError, UsageError } from "./kit.ts";

export interface Credentials {
  url: string;
  key: string;
  /** Where they came from: "env" or the file's path. */
  source: string;
}

type Env = Record<string, string | undefined>;

/** roomd's config directory; XDG_CONFIG_HOME counts only when absolute, as the XDG spec says. */
export function configDir(env: Env = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), ".config");
  return join(base, "roomd");
}

export const credentialsPath = (env: Env = process.env): string => join(configDir(env), "credentials.json");

/** A server URL as roomctl keeps it: http(s), no credentials, query or fragment, no trailing slash. */
export function normaliseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`not a URL: ${JSON.stringify(raw.slice(0, 100))} (e.g. http://localhost:3000)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`the server URL must be http or https, got ${url.protocol}`);
  if (url.username || url.password)
    throw new UsageError("the server URL must not carry a user name or password");
  if (url.search || url.hash) throw new UsageError("the server URL must not carry a query or fragment");
  return `${url.origin}${url.pathname}`.replace(/\/+$/, "");
}

/** The saved credentials, or undefined when there is no file. */
export function readCredentialsFile(env: Env = process.env): { url: string; key: string } | undefined {
  const path = credentialsPath(env);
  if (!existsSync(path)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    throw new CliError(`${path} is not valid JSON: run roomctl logout, then roomctl login <url>`);
  }
  const p = parsed as { url?: unknown; key?: unknown };
  if (typeof p?.url !== "string" || typeof p.key !== "string" || p.key === "")
    throw new CliError(`${path} does not hold {url, key}: run roomctl logout, then roomctl login <url>`);
  // Like ssh with a private key: a file others can read is worth a warning (the key still works).
  if ((statSync(path).mode & 0o077) !== 0)
    process.stderr.write(`roomctl: warning: ${path} is readable by others; run chmod 600 ${path}\n`);
  return { url: p.url, key: p.key };
}

/** Writes the file atomically, mode 0600 from its creation (never briefly readable by others). */
export function writeCredentialsFile(url: string, key: string, env: Env = process.env): string {
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = credentialsPath(env);
  const temp = `${path}.${process.pid}.tmp`;
  const fd = openSync(temp, "w", 0o600);
  try {
    writeSync(fd, `${JSON.stringify({ url, key }, null, 2)}\n`);
  } finally {
    closeSync(fd);
  }
  chmodSync(temp, 0o600);
  renameSync(temp, path);
  return path;
}

/** Removes the file; false when there was none. */
export function removeCredentialsFile(env: Env = process.env): boolean {
  const path = credentialsPath(env);
  if (!existsSync(path)) return false;
  rmSync(path);
  return true;
}

const NOT_LOGGED_IN = "not logged in: run roomctl login <url>, or set ROOMD_URL and ROOMD_KEY";

/** The server only (commands that print configuration need no key). */
export function resolveUrl(env: Env = process.env): string {
  if (env.ROOMD_URL) return normaliseUrl(env.ROOMD_URL);
  const file = readCredentialsFile(env);
  if (!file) throw new CliError(NOT_LOGGED_IN);
  return file.url;
}

/** The server and key to use: the environment's, else the file's (only for the server it was saved with). */
export function resolveCredentials(env: Env = process.env): Credentials {
  if (env.ROOMD_KEY) {
    const url = env.ROOMD_URL ? normaliseUrl(env.ROOMD_URL) : readCredentialsFile(env)?.url;
    if (!url) throw new CliError("ROOMD_KEY is set but ROOMD_URL is not (and roomctl login was not run)");
    return { url, key: env.ROOMD_KEY, source: "env" };
  }
  const file = readCredentialsFile(env);
  if (!file) throw new CliError(NOT_LOGGED_IN);
  if (env.ROOMD_URL && normaliseUrl(env.ROOMD_URL) !== file.url) {
    throw new CliError(
      `ROOMD_URL (${normaliseUrl(env.ROOMD_URL)}) is not the server you logged in to (${file.url}): set ROOMD_KEY too, or run roomctl login ${normaliseUrl(env.ROOMD_URL)}`,
    );
  }
  return { ...file, source: credentialsPath(env) };
}
