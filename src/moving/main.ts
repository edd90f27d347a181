#!/usr/bin/env bun
/**
 * `bun run migrate -- --from <store> --to <store>`: copies every team's keys, rooms, invites and webhooks from one
 * store to another and checks them (docs/operations.md, "Moving to another store"). A store is named by a spec
 * (store/specs.ts: sqlite:///path, redis://…, redis-cluster://…, upstash+https://…?token=…, postgres://…) or by the
 * environment file of a deployment (env:/path/to/.env, read like roomd reads its environment). Safe to rerun.
 */
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig, type StoreSettings } from "../config.ts";
import { sha256Hex } from "../protocol/canonical-json.ts";
import { openStore } from "../store/index.ts";
import { redactSpec, settingsFromSpec } from "../store/specs.ts";
import type { RoomStore } from "../store/types.ts";
import { migrate, openJournal } from "./migrate.ts";

const USAGE = `usage: bun run migrate -- --from <store> --to <store> [--journal <file>]

  <store>  sqlite:///path/to/roomd.sqlite | redis://… | rediss://… | redis-cluster://host:port,… |
           upstash+https://<endpoint>?token=<token> | postgres://user:password@host:5432/database |
           env:/path/to/.env (a deployment's environment file)
  --journal  where to note the rooms being written, so a rerun after an interruption can finish them
             (default: roomd-migrate-<pair>.journal beside the SQLite file of either store, else in the
             system's temporary directory; removed once the copy is verified)

Copies every team's keys (as digests), rooms (export/import, same ids, seqs and times), invites and active
webhooks, then checks every item on both sides. Stop the servers writing to the source first. Safe to rerun.
`;

/** KEY=value lines (comments, blank lines and `export ` prefixes allowed; values may be quoted). */
export function parseEnvFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const raw of text.split("\n")) {
    const line = raw.trim().replace(/^export\s+/, "");
    if (line === "" || line.startsWith("#")) continue;
    const eq = line.indexOf("=");
    if (eq <= 0) continue;
    const value = line.slice(eq + 1).trim();
    env[line.slice(0, eq).trim()] = /^(['"]).*\1$/.test(value) ? value.slice(1, -1) : value;
  }
  return env;
}

/** The store a --from / --to names. */
export function storeSettings(spec: string): StoreSettings {
  if (!spec.startsWith("env:")) return settingsFromSpec(spec);
  const config = loadConfig(parseEnvFile(readFileSync(spec.slice("env:".length), "utf8")));
  return config;
}

/**
 * Where the journal lives unless --journal says: beside the data — the directory of the SQLite file of either
 * store, the target's first — or else in the system's temporary directory, named after the pair of stores so that
 * migrations between other stores never share one. Never the working directory (a checkout).
 */
export function defaultJournal(from: string, to: string): string {
  const name = `roomd-migrate-${sha256Hex(`${from}\n${to}`).slice(0, 16)}.journal`;
  for (const spec of [to, from]) {
    const settings = storeSettings(spec);
    if (settings.store === "sqlite") return join(dirname(resolve(settings.sqlitePath)), name);
  }
  return join(tmpdir(), name);
}

async function open(spec: string): Promise<RoomStore> {
  const settings = storeSettings(spec);
  // The migration is the operator's: no room limit, a patient timeout, no retention. A store named by its URL does
  // not say how long its rooms live (ROOM_TTL_DAYS, ARCHIVE_DIR): opened with the default 30 days, it would hide —
  // and on SQL stores sweep away — rooms its deployment keeps longer, so such a store drops no room here. An env:
  // spec carries the deployment's own setting.
  return openStore({
    ...(spec.startsWith("env:") ? {} : { roomTtlDays: 0 }),
    ...settings,
    storeTimeoutMs: 30_000,
    roomsPerTeam: Number.MAX_SAFE_INTEGER,
    eventRetentionDays: 0,
    eventRetentionMax: 0,
  });
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      from: { type: "string" },
      to: { type: "string" },
      journal: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (!values.from || !values.to) {
    process.stderr.write(`migrate: --from and --to are required\n${USAGE}`);
    return 2;
  }
  if (values.from === values.to) {
    process.stderr.write("migrate: --from and --to name the same store\n");
    return 2;
  }
  const from = await open(values.from);
  const to = await open(values.to);
  try {
    const path = values.journal ?? defaultJournal(values.from, values.to);
    const journal = openJournal(path, `${values.from}\n${values.to}`);
    process.stdout.write(`migrating ${redactSpec(values.from)} → ${redactSpec(values.to)}\n`);
    process.stdout.write(`journal: ${path} (removed once the copy is verified)\n`);
    const report = await migrate({ from, to, journal, log: (line) => process.stdout.write(`${line}\n`) });
    // Verified on both sides: nothing is left for a rerun to finish.
    rmSync(path, { force: true });
    const kinds = Object.entries(report.kinds)
      .map(([name, k]) => `${name} ${k.verified} (${k.copied} copied, ${k.skipped} already there)`)
      .join(", ");
    process.stdout.write(`done: ${report.teams} team${report.teams === 1 ? "" : "s"}; verified ${kinds}\n`);
    return 0;
  } finally {
    await Promise.all([from.close(), to.close()]);
  }
}

if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`migrate: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
