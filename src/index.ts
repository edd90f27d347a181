#!/usr/bin/env bun
/**
 * Entry: loadConfig(env) → openStore(config) → createApp(deps) → Bun.serve. Also the compiled `roomd` executable's
 * entry, whose other commands (healthcheck, --version, --help) are in commands.ts.
 */
import { statSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { ensureLocalKey, storeHoldsOperatorKey } from "./access/first-run.ts";
import { appDeps, createApp } from "./app.ts";
import { connectBlock } from "./clients.ts";
import { healthcheck, parseCommand, USAGE, VERSION } from "./commands.ts";
import { type Config, ConfigError, DEFAULT_OPERATOR_NAME, loadConfig, noKeysError } from "./config.ts";
import { readOrCreateSigningKey } from "./live/webhooks/signing-key.ts";
import { createWebhookWorker } from "./live/webhooks/worker.ts";
import { createLogger, describeError, type Logger } from "./log.ts";
import { boardHtml } from "./mcp/board/board-html.ts";
import { checkArchiveDir, createArchiver } from "./moving/archive.ts";
import { roomLifetimeMs } from "./protocol/limits.ts";
import { systemClock } from "./protocol/time.ts";
import { openStore } from "./store/index.ts";
import { assets } from "./web/assets.ts";

/** The URL a person on this machine types: localhost when bound to loopback or to every interface. */
function browsableUrl(host: string, port: number): string {
  const local = ["0.0.0.0", "::", "127.0.0.1", "::1", "localhost"].includes(host);
  const name = local ? "localhost" : host.includes(":") ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

function suggestedRoomId(): string {
  const name = basename(process.cwd())
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^[-_]+|_{2,}/g, "");
  return name.length >= 2 ? name.slice(0, 64) : "my-project";
}

/**
 * The webhook signing key: WEBHOOK_SIGNING_KEY, or on the embedded store the key kept next to the database (made on
 * first use). A shared store without it has no webhooks: every process must be given the same key.
 */
function webhookSigningKey(config: Config): string | undefined {
  if (config.webhookSigningKey !== undefined) return config.webhookSigningKey;
  return config.store === "sqlite" ? readOrCreateSigningKey(config.sqlitePath).key : undefined;
}

/**
 * A data directory roomd did not make keeps its mode (it may be shared): when others may read or enter it, say so
 * at start, with the command that fixes it. roomd makes its own 0700.
 */
function warnOpenDataDir(config: Config, logger: Logger): void {
  if (config.store !== "sqlite" || config.sqlitePath === ":memory:") return;
  const dir = dirname(resolve(config.sqlitePath));
  const mode = statSync(dir, { throwIfNoEntry: false })?.mode;
  if (mode === undefined || (mode & 0o077) === 0) return;
  logger.log("warn", "the data directory is open to other users", {
    dir,
    mode: (mode & 0o777).toString(8),
    fix: `chmod 700 ${shellQuote(dir)}`,
  });
}

async function main(): Promise<void> {
  const command = parseCommand(process.argv.slice(2));
  if (typeof command === "object") {
    process.stderr.write(command.error);
    process.exit(2);
  }
  if (command === "version") return void process.stdout.write(`roomd ${VERSION}\n`);
  if (command === "help") return void process.stdout.write(USAGE);
  if (command === "healthcheck") process.exit(await healthcheck(loadConfig(process.env)));
  const loaded = loadConfig(process.env);
  const logger = createLogger(loaded.logLevel);
  const signingKey = webhookSigningKey(loaded);
  const config: Config = signingKey ? { ...loaded, webhookSigningKey: signingKey } : loaded;
  // Tracing first (only when configured: the SDK is not even loaded otherwise), so the store's round trips are seen.
  const tracing = config.tracing
    ? (await import("./telemetry/tracing.ts")).startTracing(config.tracing, { version: VERSION })
    : undefined;
  if (config.archiveDir !== undefined) {
    try {
      checkArchiveDir(config.archiveDir);
    } catch (error) {
      throw new ConfigError(
        `Invalid configuration:\n  - ARCHIVE_DIR: ${config.archiveDir} cannot be written (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  }
  const store = await openStore(config);
  warnOpenDataDir(config, logger);
  const noKeys = config.apiKeys.length === 0 && config.operatorKeys.length === 0;
  // A shared store without keys in the environment needs an operator key of its own (moved there by `bun run
  // migrate`); first-run keys are made only on the embedded store.
  if (noKeys && config.store !== "sqlite") {
    const held = await storeHoldsOperatorKey(store).catch((error: unknown) =>
      error instanceof Error ? error.message : String(error),
    );
    if (held !== true) {
      await store.close().catch(() => {});
      throw noKeysError(config.store, held === false ? undefined : held);
    }
  }
  const firstRun =
    noKeys && config.store === "sqlite"
      ? await ensureLocalKey(config.sqlitePath, store, systemClock())
      : undefined;
  const deps = appDeps(config, store, logger, systemClock, [], tracing);
  const app = createApp(deps);
  // Rooms past ROOM_TTL_DAYS are archived (ARCHIVE_DIR) before they go; the store keeps them until then.
  const lifetimeMs = roomLifetimeMs(config.roomTtlDays);
  const archiveDir = config.archiveDir;
  const archiver =
    archiveDir !== undefined && lifetimeMs > 0
      ? createArchiver({ store: deps.store, dir: archiveDir, ttlMs: lifetimeMs, now: systemClock, logger })
      : undefined;
  // wait_for_events holds a request up to 30 s without sending anything: the idle timeout must outlast it.
  const server = Bun.serve({ hostname: config.host, port: config.port, fetch: app.fetch, idleTimeout: 60 });
  // The outbox worker: delivers the webhooks of every room of the store, sharing the work with other processes.
  // It uses the app's store, so its operations are counted with the rest.
  const worker = signingKey
    ? createWebhookWorker({
        store: deps.store,
        logger,
        onAttempt: deps.metrics.webhookDelivery,
        signingKey,
        allowHttp: config.webhookAllowHttp,
        allowPrivate: config.webhookAllowPrivate,
      })
    : undefined;
  worker?.start();
  archiver?.start();
  // The pages' bundles and the room board's document are built on first use; start now so the first page and
  // the first board are served at once.
  assets().catch((error: unknown) =>
    logger.log("error", "building the web pages failed", describeError(error)),
  );
  boardHtml().catch((error: unknown) =>
    logger.log("error", "building the room board failed", describeError(error)),
  );
  logger.log("info", "roomd listening", {
    host: config.host,
    port: server.port,
    store: store.driver,
    webhooks: worker ? "on" : "off (set WEBHOOK_SIGNING_KEY)",
    tracing: config.tracing ? { endpoint: new URL(config.tracing.url).origin } : "off",
    roomTtlDays: config.roomTtlDays ?? 30,
    archive: archiveDir ?? "off",
    eventRetention:
      (config.eventRetentionDays ?? 0) > 0 || (config.eventRetentionMax ?? 0) > 0
        ? { days: config.eventRetentionDays ?? 0, maxEvents: config.eventRetentionMax ?? 0 }
        : "off",
  });
  if (config.conformanceFixtures) {
    logger.log(
      "warn",
      "CONFORMANCE_FIXTURES is set: /mcp?profile=conformance serves the MCP conformance suite's fixtures; never set it in production",
      {},
    );
    process.stderr.write(
      "\nWARNING: CONFORMANCE_FIXTURES=1 — /mcp?profile=conformance serves test fixtures for the MCP conformance suite. Never set it in production.\n\n",
    );
  }
  if (firstRun && !firstRun.created) {
    // A restart: the key and the snippets were shown at the first start; say where they are, in one line.
    const url = browsableUrl(config.host, server.port ?? config.port);
    process.stdout.write(
      `roomd is running on ${url} (store: ${store.driver}); sign in with the key in ${firstRun.path}; agents' configuration: ${url}/dashboard, "Connect an agent"\n`,
    );
  } else if (firstRun) {
    const url = browsableUrl(config.host, server.port ?? config.port);
    const operator = `An operator key for team "local" was created and saved to ${firstRun.path} (mode 0600). It is yours, for\nminting your agents' keys; it is shown only this once:\n\n  ${firstRun.secret}\n\nIn rooms you are the person "${config.operatorName}"${config.operatorName === DEFAULT_OPERATOR_NAME ? " (set OPERATOR_NAME=<your name> to be named yourself)" : ""}.\n`;
    const roomId = suggestedRoomId();
    const connect = connectBlock({
      url,
      roomId,
      operatorKey: `$(cat ${shellQuote(firstRun.path)})`,
    });
    const roomNote = `The room id below, ${roomId}, is only a suggestion (this directory's name): any id of 2-64\ncharacters a-z, 0-9, _ and - works. Use one room per project, the same for every agent on it.`;
    process.stdout.write(
      `\nroomd is running on ${url} (store: ${store.driver})\n\n${operator}\n${roomNote}\n\n${connect}\n\n`,
    );
  }
  const shutdown = async () => {
    // Open streams and waits would hold a graceful stop forever: end them first (clients resume elsewhere).
    deps.live.close();
    await server.stop();
    // Sends in flight are recorded first; a process killed instead leaves them to its claims' leases.
    await worker?.stop();
    await archiver?.stop();
    await store.close();
    // The spans still queued are sent before the process goes.
    await tracing?.shutdown().catch(() => {});
    process.exit(0);
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(
      `roomd failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  }
  process.exit(1);
});
