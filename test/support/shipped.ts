/**
 * What the tests of the shipped forms of roomd (the compiled binary, the npm package, the container image) share:
 * starting a roomd command the way a user would, and checking it from outside as a user would — its first-run key,
 * the probes, an MCP call with the official SDK client, the room board chat clients render, and a room's page with
 * its script and stylesheet.
 */
import { expect } from "bun:test";
import { type Subprocess, spawn } from "bun";
import { APP_MIME, BOARD_URI } from "../../src/mcp/board/ui.ts";
import { connect } from "./mcp-client.ts";
import { refuseWhileRegistering, waitUntilReady } from "./processes.ts";

export interface StartedRoomd {
  url: string;
  proc: Subprocess<"ignore", "pipe", "pipe">;
  /** Everything the process printed so far (stdout + stderr). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Runs `command` (a roomd server) with exactly `env` in `cwd` and waits until `url` answers GET /livez with 200.
 * SIGTERM on stop, SIGKILL when it does not become ready.
 */
export async function startRoomdCommand(
  what: string,
  command: string[],
  options: { cwd: string; env: Record<string, string>; url: string; timeoutMs?: number },
): Promise<StartedRoomd> {
  refuseWhileRegistering(what);
  const proc = spawn(command, { cwd: options.cwd, env: options.env, stdout: "pipe", stderr: "pipe" });
  let text = "";
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) text += new TextDecoder().decode(chunk);
  };
  void drain(proc.stdout);
  void drain(proc.stderr);
  await waitUntilReady(
    `${what} on ${options.url} answering GET /livez with 200`,
    async () => {
      const res = await fetch(`${options.url}/livez`);
      await res.body?.cancel();
      return res.status === 200;
    },
    {
      timeoutMs: options.timeoutMs ?? 30_000,
      exited: () => proc.exitCode,
      describeLast: () => `${what} printed:\n${text}`,
    },
  ).catch(async (error) => {
    proc.kill("SIGKILL");
    await proc.exited;
    throw error;
  });
  return {
    url: options.url,
    proc,
    output: () => text,
    stop: async () => {
      if (proc.exitCode === null) proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (no shell), with `stdin` as its input when given; the environment is this one's unless given. */
export async function run(
  command: string[],
  options: { cwd?: string; env?: Record<string, string>; stdin?: string } = {},
): Promise<Ran> {
  const proc = spawn(command, {
    cwd: options.cwd,
    env: options.env ?? (process.env as Record<string, string>),
    stdin: options.stdin === undefined ? "ignore" : new TextEncoder().encode(options.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  return { code: await proc.exited, stdout, stderr };
}

/** Like run, but a failure throws with what the command printed; its stdout otherwise. */
export async function must(command: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const ran = await run(command, options);
  if (ran.code !== 0) {
    const tail = (text: string) => text.slice(-3000);
    throw new Error(`${command.join(" ")} exited ${ran.code}:\n${tail(ran.stdout)}\n${tail(ran.stderr)}`);
  }
  return ran.stdout;
}

/** The operator key a first run prints ("…shown only this once:\n\n  <key>"). */
export function printedKey(output: string): string {
  const match = /shown only this once:\s+(rk_local_\S+)/.exec(output);
  if (!match) throw new Error(`no first-run key in the output:\n${output}`);
  return match[1] as string;
}

/**
 * Checks a running roomd as a user would: /health and /readyz answer 200 on the embedded store; with the key an MCP
 * client adds a task and reads it back, and reads the room board's document (its script and style inlined); the
 * room's page names a script and a stylesheet that are served. The page's assets and the board are built from
 * client sources, which a compiled binary does not hold: both must come with it.
 */
export async function checkServes(url: string, key: string): Promise<void> {
  const health = await fetch(`${url}/health`);
  expect(health.status).toBe(200);
  expect(await health.json()).toMatchObject({ ok: true, store: "sqlite" });
  expect((await fetch(`${url}/readyz`)).status).toBe(200);

  const roomId = `shipped-${crypto.randomUUID().slice(0, 8)}`;
  const client = await connect(url, key);
  try {
    const task = await client.call<{ id: string; title: string }>("add_task", {
      roomId,
      title: "ship it",
      agentId: "shipper",
    });
    expect(task.title).toBe("ship it");
    const plan = await client.call<{ tasks: { id: string }[] }>("read_plan", { roomId });
    expect(plan.tasks.map((t) => t.id)).toEqual([task.id]);
    const board = await client.client.readResource({ uri: BOARD_URI });
    const document = board.contents[0] as { mimeType?: string; text?: string };
    expect(document.mimeType).toBe(APP_MIME);
    expect(document.text).toContain("<title>Room board</title>");
    expect(document.text).toMatch(/<script type="module">[^<]{1000,}/);
  } finally {
    await client.close();
  }

  const page = await fetch(`${url}/room/${roomId}`, { headers: { Accept: "text/html" } });
  expect(page.status).toBe(200);
  const html = await page.text();
  const script = /<script[^>]+src="(\/assets\/[0-9a-f]+\.js)"/.exec(html)?.[1];
  const style = /<link[^>]+href="(\/assets\/[0-9a-f]+\.css)"/.exec(html)?.[1];
  expect(script).toBeDefined();
  expect(style).toBeDefined();
  for (const [path, type] of [
    [script as string, "text/javascript"],
    [style as string, "text/css"],
  ] as const) {
    const asset = await fetch(`${url}${path}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toStartWith(type);
    expect((await asset.text()).length).toBeGreaterThan(100);
  }
}
