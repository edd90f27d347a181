/**
 * Files and directories only their owner may read: roomd's data directory (0700), its database, keys, journals and
 * exports (0600), whatever the umask of the process that writes them. A umask only takes bits away from the mode
 * asked at creation, so each is also chmod-ed to exactly that mode.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { dirname, resolve } from "node:path";

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Makes `dir` and its missing parents, each 0700. A directory that exists already keeps its mode (it may be
 * shared, like /tmp or a home directory): returns false for it, true when this call created it.
 */
export function makePrivateDir(dir: string): boolean {
  const first = mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (first === undefined) return false;
  const top = resolve(first);
  for (let at = resolve(dir); ; at = dirname(at)) {
    chmodSync(at, PRIVATE_DIR_MODE);
    if (at === top || at === dirname(at)) break;
  }
  return true;
}

/**
 * Makes `path` an owner-only file: created empty (0600) when missing, its mode set to 0600 when it exists. With
 * `truncate`, an existing file is emptied too (a file about to be written from its start).
 */
export function privateFile(path: string, options: { truncate?: boolean } = {}): void {
  closeSync(openSync(path, options.truncate ? "w" : "a", PRIVATE_FILE_MODE));
  chmodSync(path, PRIVATE_FILE_MODE);
}

/** Sets existing files to 0600 (skipping missing ones), e.g. a database's -wal and -shm left by an older roomd. */
export function keepPrivate(paths: readonly string[]): void {
  for (const path of paths) if (existsSync(path)) chmodSync(path, PRIVATE_FILE_MODE);
}
