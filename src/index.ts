/** Entry: loadConfig(env) → openStore(config) → createApp(deps) → Bun.serve. */
import { basename } from "node:path";
import { ensureLocalKey } from "./access/first-run.ts";
import { appDeps, createApp } from "./app.ts";
import { connectBlock } from "./clients.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { stderrLogger } from "./log.ts";
import { systemClock } from "./protocol/time.ts";
import { openStore } from "./store/index.ts";

function suggestedRoomId(): string {
  const name = basename(process.cwd())
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^[-_]+|_{2,}/g, "");
  return name.length >= 2 ? name.slice(0, 64) : "my-project";
}

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = stderrLogger;
  const store = await openStore(config);
  let banner: string | undefined;
  // loadConfig refuses a shared store without keys, so a first run is always on the embedded store.
  if (config.store === "sqlite" && config.apiKeys.length === 0 && config.operatorKeys.length === 0) {
    const first = await ensureLocalKey(config.sqlitePath, store, systemClock());
    banner = first.created
      ? `A key for team "local" was created and saved to ${first.path} (mode 0600). It is shown only this once:\n\n  ${first.secret}\n`
      : `Using the key of team "local" saved in ${first.path} (show it with: cat ${first.path}).\n`;
    banner += `\nConnect an agent (paste one of these):\n\n${connectBlock({
      url: `http://localhost:${config.port}`,
      key: first.created ? first.secret : "<key from operator.key>",
      roomId: suggestedRoomId(),
    })}\n`;
  }
  const app = createApp(appDeps(config, store, logger, systemClock));
  const server = Bun.serve({ hostname: config.host, port: config.port, fetch: app.fetch, idleTimeout: 30 });
  logger.log("info", "roomd listening", { host: config.host, port: server.port, store: store.driver });
  if (banner) {
    process.stdout.write(
      `\nroomd is running on http://localhost:${server.port} (store: ${store.driver})\n\n${banner}\n`,
    );
  }
  const shutdown = async () => {
    await server.stop();
    await store.close();
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
