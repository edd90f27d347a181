/**
 * roomd's command line. No argument: serve (index.ts). `healthcheck`: asks GET /livez of the roomd configured by
 * the same environment on this machine and exits 0 when it answers 200 — the container image's HEALTHCHECK, since
 * the image holds no curl and no Bun. `--version`, `--help`.
 */
import pkg from "../package.json" with { type: "json" };
import type { Config } from "./config.ts";

export type Command = "serve" | "healthcheck" | "version" | "help";

export const USAGE = `usage: roomd [healthcheck | --version | --help]

  (no argument)  serve: the configuration comes from the environment (docs/operations.md)
  healthcheck    exit 0 when the roomd configured by this environment answers GET /livez on this machine
  --version      print the version
`;

/** The command named by the arguments, or an error message for anything else. */
export function parseCommand(argv: readonly string[]): Command | { error: string } {
  if (argv.length === 0) return "serve";
  const [first] = argv;
  if (argv.length === 1) {
    if (first === "healthcheck") return "healthcheck";
    if (first === "--version" || first === "-v" || first === "version") return "version";
    if (first === "--help" || first === "-h" || first === "help") return "help";
  }
  return { error: `roomd: unknown arguments: ${argv.join(" ")}\n${USAGE}` };
}

/** The address a probe on this machine reaches for the configured bind address (every interface → loopback). */
export function localUrl(host: string, port: number): string {
  const any = host === "0.0.0.0" || host === "::" || host === "";
  const name = any ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/** 0 when GET /livez answers 200 within `timeoutMs`, 1 otherwise (with the reason on stderr). */
export async function healthcheck(config: Pick<Config, "host" | "port">, timeoutMs = 3000): Promise<number> {
  const url = `${localUrl(config.host, config.port)}/livez`;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (res.status === 200) return 0;
    process.stderr.write(`roomd healthcheck: ${url} answered ${res.status}\n`);
  } catch (error) {
    process.stderr.write(
      `roomd healthcheck: ${url}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  }
  return 1;
}

export const VERSION = pkg.version;
