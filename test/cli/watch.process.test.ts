/**
 * `roomctl watch`: the live tail survives roomd being restarted behind the same URL (a real process stopped, and
 * another started on the same store and port) without losing or repeating an event — events posted before the
 * outage, through the new process while the watcher is still reconnecting, and after it: the NDJSON seqs are
 * exactly 1..N. On the embedded SQLite file and on Redis. Then the filters, the human format, signals and the
 * failures that end a watch.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { type Subprocess, spawn } from "bun";
import { silentLogger } from "../../src/log.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { freePort } from "../support/redis-server.ts";
import {
  OPERATOR,
  type RunningServer,
  type SpawnedServer,
  spawnServer,
  startInProcess,
  TEAM_A,
} from "../support/server.ts";
import { newRoomId, redisE2e, sqliteE2e } from "../support/stores.ts";
import { ANSI, freshHome, ROOT, roomctl } from "./support.ts";

/** A running `roomctl watch`: its stdout lines as they come, its stderr, and a way to stop it. */
interface Watcher {
  lines: string[];
  stderr(): string;
  until(count: number, ms?: number): Promise<void>;
  /** Resolves once the watch is connected (its "watching … after #N" note). */
  connected(): Promise<void>;
  stop(): Promise<number>;
  proc: Subprocess;
}

function startWatch(args: string[], env: Record<string, string>): Watcher {
  const proc = spawn(["bun", join(ROOT, "src", "cli", "index.ts"), "watch", ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", ...freshHome(), ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const lines: string[] = [];
  let err = "";
  let partial = "";
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout) {
      partial += decoder.decode(chunk, { stream: true });
      const parts = partial.split("\n");
      partial = parts.pop() ?? "";
      lines.push(...parts);
    }
  })();
  void (async () => {
    for await (const chunk of proc.stderr) err += new TextDecoder().decode(chunk);
  })();
  return {
    lines,
    proc,
    stderr: () => err,
    async until(count, ms = 15_000) {
      const deadline = Date.now() + ms;
      while (lines.length < count) {
        if (proc.exitCode !== null) throw new Error(`watch exited ${proc.exitCode}: ${err}`);
        if (Date.now() > deadline)
          throw new Error(`watch printed ${lines.length} of ${count} lines: ${lines.join("\n")}\n${err}`);
        await Bun.sleep(25);
      }
    },
    async connected() {
      const deadline = Date.now() + 15_000;
      while (!err.includes("roomctl watch: watching")) {
        if (proc.exitCode !== null) throw new Error(`watch exited ${proc.exitCode}: ${err}`);
        if (Date.now() > deadline) throw new Error(`watch did not connect: ${err}`);
        await Bun.sleep(25);
      }
    },
    async stop() {
      if (proc.exitCode === null) proc.kill("SIGTERM");
      return proc.exited;
    },
  };
}

const seqs = (lines: string[]) => lines.map((l) => JSON.parse(l).seq as number);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

for (const make of [sqliteE2e, redisE2e]) {
  const backing = make();
  describe(`roomctl watch across a roomd restart on ${backing.name}`, () => {
    let port: number;
    let env: Record<string, string>;
    let server: SpawnedServer | undefined;
    const watchers: Watcher[] = [];

    beforeAll(async () => {
      port = await freePort();
      env = {
        ...(await backing.env()),
        API_KEYS: `${TEAM_A.teamId}:${TEAM_A.secret}`,
        RATE_LIMIT_PER_MINUTE: "1000000",
      };
      server = await spawnServer(env, { port });
    });
    afterAll(async () => {
      for (const w of watchers) await w.stop();
      await server?.stop();
    });

    test("events before, during and after the outage arrive exactly once, in order (seqs 1..N)", async () => {
      const url = `http://127.0.0.1:${port}`;
      const http = httpClient(url);
      const roomId = newRoomId();
      const postEvent = async (n: number) => {
        const r = await http.tool(TEAM_A.secret, "post_event", {
          roomId,
          from: "writer",
          type: "progress",
          payload: { n },
        });
        expect(r.isError).toBe(false);
      };
      const cli = { ROOMD_URL: url, ROOMD_KEY: TEAM_A.secret };
      // The room exists before anyone watches it: three events through the first process.
      for (const n of [1, 2, 3]) await postEvent(n);

      const fromStart = startWatch([roomId, "--after", "0", "--json"], cli);
      // Without --after a watch starts after the head it reads first, and resumes from there after a drop.
      const fromHead = startWatch([roomId, "--json"], cli);
      watchers.push(fromStart, fromHead);
      await fromStart.until(3);
      await fromHead.connected();
      expect(fromHead.stderr()).toContain(`watching ${roomId} after #3`);
      await postEvent(4);
      await fromStart.until(4);
      await fromHead.until(1);

      await server?.stop();
      // The outage: the watchers are reconnecting. A new process on the same store and port takes over, and
      // events are posted through it before they get back.
      server = await spawnServer(env, { port });
      for (const n of [5, 6, 7]) await postEvent(n);
      await fromStart.until(7);
      await fromHead.until(4);
      for (const n of [8, 9]) await postEvent(n);
      await fromStart.until(9);
      await fromHead.until(6);

      // A crash this time (SIGKILL: no orderly end of the streams), and events through the next process.
      server?.proc.kill("SIGKILL");
      await server?.proc.exited;
      server = await spawnServer(env, { port });
      for (const n of [10, 11]) await postEvent(n);
      await fromStart.until(11);
      await fromHead.until(8);
      // Nothing more may come: no repeats after the last event.
      await Bun.sleep(500);

      expect(seqs(fromStart.lines)).toEqual(range(1, 11));
      expect(seqs(fromHead.lines)).toEqual(range(4, 11));
      expect(fromStart.lines.map((l) => JSON.parse(l).payload.n)).toEqual(range(1, 11));
      for (const w of [fromStart, fromHead]) {
        expect(w.stderr()).toContain("reconnecting");
        expect(w.stderr()).toContain("reconnected");
        expect(w.stderr()).not.toContain(TEAM_A.secret);
        expect(w.proc.exitCode).toBeNull();
      }
    });
  });
}

describe("roomctl watch: filters, the line format, signals, failures", () => {
  let store: RoomStore;
  let server: RunningServer;
  let http: ReturnType<typeof httpClient>;
  let cli: Record<string, string>;
  const watchers: Watcher[] = [];

  beforeAll(async () => {
    store = await sqliteE2e().open();
    server = startInProcess(store, silentLogger, {
      OPERATOR_KEYS: `${OPERATOR.teamId}:${OPERATOR.secret}:carol`,
    });
    http = httpClient(server.url);
    cli = { ROOMD_URL: server.url, ROOMD_KEY: OPERATOR.secret };
  });
  afterAll(async () => {
    for (const w of watchers) await w.stop();
    await server.stop();
    await store.close();
  });

  test("--types and --agent filter; one line per event: time, #seq, type, the room page's sentence", async () => {
    const roomId = newRoomId();
    await http.tool(OPERATOR.secret, "add_task", { roomId, title: "Write the API", agentId: "alice" });
    await http.post(`/rooms/${roomId}/messages`, OPERATOR.secret, { to: "bob", text: "hello bob" });
    await http.post(`/rooms/${roomId}/messages`, OPERATOR.secret, { to: "dave", text: "hello dave" });
    const note = await http.tool(OPERATOR.secret, "post_event", {
      roomId,
      from: "alice",
      type: "note",
      payload: { x: 1 },
    });
    expect(note.isError).toBe(false);

    const typed = startWatch([roomId, "--after", "0", "--json", "--types", "human_message,note"], cli);
    const forBob = startWatch([roomId, "--after", "0", "--json", "--agent", "bob"], cli);
    const human = startWatch([roomId, "--after", "0"], cli);
    watchers.push(typed, forBob, human);
    await typed.until(3);
    await forBob.until(3);
    await human.until(4);
    await Bun.sleep(300);
    expect(typed.lines.map((l) => JSON.parse(l).type)).toEqual(["human_message", "human_message", "note"]);
    // bob sees what is addressed to all and to bob, not dave's message.
    expect(forBob.lines.map((l) => JSON.parse(l).seq)).toEqual([1, 2, 4]);
    expect(human.lines[0]).toMatch(
      /^\d\d:\d\d:\d\d {2}#1 {2}task_added {2}alice added task-1 “Write the API”$/,
    );
    expect(human.lines[1]).toMatch(/#2 {2}human_message {2}carol wrote to bob: hello bob$/);
    expect(human.lines[3]).toMatch(/#4 {2}note {2}alice posted `note`: x: 1$/);
    // --kind keeps the groups asked for: talk is the messages and agents' own types.
    const talk = startWatch([roomId, "--after", "0", "--kind", "talk"], cli);
    watchers.push(talk);
    await talk.until(3);
    await Bun.sleep(300);
    expect(talk.lines.map((l) => l.split("  ")[2])).toEqual(["human_message", "human_message", "note"]);
    expect(human.lines.join("\n")).not.toMatch(ANSI);
  });

  test("signals: shown as lines; in --json only with --signals, as {signal, time}", async () => {
    const roomId = newRoomId();
    await http.tool(OPERATOR.secret, "add_task", { roomId, title: "t", agentId: "alice" });
    const human = startWatch([roomId], cli);
    const json = startWatch([roomId, "--json", "--signals"], cli);
    const plain = startWatch([roomId, "--json"], cli);
    watchers.push(human, json, plain);
    for (const w of [human, json, plain]) await w.connected();
    // A driver change is a signal (and an event).
    expect((await http.post(`/rooms/${roomId}/driver`, OPERATOR.secret, { action: "take" })).status).toBe(
      200,
    );
    await human.until(2);
    await json.until(2);
    await plain.until(1);
    await Bun.sleep(300);
    expect(human.lines.some((l) => /signal {2}driver$/.test(l))).toBe(true);
    const parsed = json.lines.map((l) => JSON.parse(l));
    expect(parsed).toContainEqual({ signal: "driver", time: expect.any(String) });
    expect(parsed.some((p) => p.type === "driver_changed")).toBe(true);
    expect(plain.lines.map((l) => JSON.parse(l).type)).toEqual(["driver_changed"]);
  });

  test("text an agent wrote cannot drive the terminal: control characters are shown as spaces", async () => {
    const roomId = newRoomId();
    const evil = await http.tool(OPERATOR.secret, "post_event", {
      roomId,
      from: "mallory",
      type: "note",
      payload: { text: "\u001b[2J\u001b]0;pwned\u0007cleared\rover" },
    });
    expect(evil.isError).toBe(false);
    const human = startWatch([roomId, "--after", "0"], cli);
    watchers.push(human);
    await human.until(1);
    expect(human.lines[0]).toMatch(/#1 {2}note {2}mallory posted `note`: {2}\[2J \]0;pwned cleared over$/);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must not appear.
    expect(human.lines[0]).not.toMatch(/[\u0000-\u001f]/);
  });

  test("a room it cannot read, a refused key and bad flags end the watch: exit 1 or 2, one line", async () => {
    const missing = await roomctl(["watch", newRoomId(), "--after", "0"], { env: cli });
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim().split("\n")).toEqual(["roomctl: Room not found or access denied (404)"]);
    const badKey = await roomctl(["watch", newRoomId(), "--after", "0"], {
      env: { ROOMD_URL: server.url, ROOMD_KEY: "wrong-key-0123456789" },
    });
    expect(badKey.code).toBe(1);
    expect(badKey.stderr).toContain("(401)");
    expect(badKey.stderr).not.toContain("wrong-key-0123456789");
    for (const args of [["--after", "x"], ["--agent", "bad agent"], ["--kind", "chatter"], ["--frob"]]) {
      const run = await roomctl(["watch", "some-room", ...args], { env: cli });
      expect(run.code).toBe(2);
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
    }
  });
});
