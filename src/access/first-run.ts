/**
 * First run: with no key configured and the embedded store, roomd makes one operator key for team "local",
 * stores only its digest, keeps the secret in a file next to the database (mode 0600) and shows it once.
 * Later starts find the key by digest; if the store was replaced, the key from the file is stored again.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { makePrivateDir } from "../files.ts";
import { iso } from "../protocol/time.ts";
import type { RoomStore } from "../store/types.ts";
import { digestHex, hintOf, newKeyId, newKeySecret, teamOfKey } from "./secrets.ts";

export const LOCAL_TEAM = "local";

export interface FirstRunKey {
  secret: string;
  path: string;
  /** True when the secret was made just now (and may be shown). */
  created: boolean;
}

function readOrCreateSecret(sqlitePath: string): FirstRunKey {
  const dir = dirname(sqlitePath);
  const path = join(dir, "operator.key");
  if (existsSync(path)) {
    const secret = readFileSync(path, "utf8").trim();
    if (teamOfKey(secret) === LOCAL_TEAM) return { secret, path, created: false };
  }
  makePrivateDir(dir);
  const secret = newKeySecret(LOCAL_TEAM);
  writeFileSync(path, `${secret}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return { secret, path, created: true };
}

/**
 * Whether the store holds an operator key of any team (one `bun run migrate` moved from a first-run deployment,
 * or one made by provisioning): then roomd may start on it without keys in its environment. Reads every team's
 * key list once, at start-up.
 */
export async function storeHoldsOperatorKey(store: RoomStore): Promise<boolean> {
  for (const team of await store.listTeams()) {
    if ((await store.listKeys(team)).some((key) => key.kind === "operator")) return true;
  }
  return false;
}

/**
 * The first-run operator key: read from `operator.key` beside the database (made there on the very first start)
 * and stored as its digest when the store does not know it yet.
 */
export async function ensureLocalKey(
  sqlitePath: string,
  store: RoomStore,
  now: number,
): Promise<FirstRunKey> {
  const first = readOrCreateSecret(sqlitePath);
  const digest = digestHex(first.secret);
  if ((await store.resolveKey(LOCAL_TEAM, digest)).key) return first;
  await store.createKey(
    {
      keyId: newKeyId(LOCAL_TEAM),
      teamId: LOCAL_TEAM,
      kind: "operator",
      createdAt: iso(now),
      hint: hintOf(first.secret),
      digest,
      note: "first-run operator key",
    },
    Number.MAX_SAFE_INTEGER,
  );
  return first;
}
