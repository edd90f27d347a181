/**
 * First run: with no key configured and the embedded store, roomd makes one operator key for team "local",
 * keeps the secret in a file next to the database (mode 0600) and shows it once. Later starts reuse the file.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { StaticKey } from "../config.ts";
import { newSecret } from "./digest.ts";

export const LOCAL_TEAM = "local";

export interface FirstRunKey {
  key: StaticKey;
  path: string;
  /** True when the secret was made just now (and may be shown). */
  created: boolean;
}

export function ensureLocalKey(sqlitePath: string): FirstRunKey {
  const dir = dirname(sqlitePath);
  const path = join(dir, "operator.key");
  if (existsSync(path)) {
    const secret = readFileSync(path, "utf8").trim();
    if (secret.length >= 16) return { key: { teamId: LOCAL_TEAM, secret }, path, created: false };
  }
  mkdirSync(dir, { recursive: true });
  const secret = newSecret("rmd");
  writeFileSync(path, `${secret}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return { key: { teamId: LOCAL_TEAM, secret }, path, created: true };
}
