/**
 * The Claude Code bridge (docs/claude-code-bridge.md): recorded hook inputs fed to `roomctl hook` against a real
 * roomd, the answers checked against Claude Code's hook protocol; with roomd down or stalled every hook lets the
 * agent go on.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TIMEOUT_SECONDS } from "../../src/cli/hook-install.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { HOOK_NAMES, runHook } from "../support/claude-hooks.ts";
import { HOSTILE, LINES } from "../support/hostile-text.ts";
import { httpClient } from "../support/http.ts";
import { freePort } from "../support/redis-server.ts";
import { OPERATOR, type RunningServer, startInProcess } from "../support/server.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";

/** What an answer carrying people's messages says of them. */
const ROOM_CONTENT = "room content: each quoted text is a JSON string holding exactly what its author wrote";

/**
 * The bound of docs/claude-code-bridge.md#when-roomd-is-slow-or-down: with roomd down or slow, a hook lets the agent
 * continue before Claude Code's own timeout for the hook (the one `roomctl hook install` writes) would cut it off.
 * The hook's own 1.5 s deadline starts once its process runs; starting a process took over 0.8 s on a loaded 2-core
 * machine, so the wall time of a run is held to the hook timeout, not to 1.5 s plus a guess.
 */
const AGENT_NEVER_WAITS_MS = TIMEOUT_SECONDS * 1000;

for (const make of E2E_STORES) {
  describe(`the bridge on ${make().name}`, () => {
    let store: RoomStore;
    let server: RunningServer;
    let http: ReturnType<typeof httpClient>;
    let alice: string;
    let botKey: string;
    let roomId: string;
    let env: Record<string, string>;
    const events = async () => (await http.tool(alice, "read_events", { roomId, limit: 100 })).text;

    beforeAll(async () => {
      store = await make().open();
      server = startInProcess(store);
      http = httpClient(server.url);
      // A team of its own (stores are shared by every test file): its first key is a person's, alice's.
      const teamId = `bridge-${crypto.randomUUID().slice(0, 8)}`;
      alice = (
        await http.post("/admin/keys/provision", OPERATOR.secret, { teamId, kind: "human", humanId: "alice" })
      ).body.secret;
      botKey = (await http.post("/admin/keys", alice, { boundAgentId: "bot" })).body.secret;
      roomId = newRoomId();
      await http.post("/admin/rooms", alice, { roomId });
      env = { ROOMD_URL: server.url, ROOMD_KEY: botKey, ROOMD_ROOM: roomId };
    });
    afterAll(async () => {
      await server.stop();
      await store.close();
    });

    test("SessionStart: a digest of the agent's tasks, unread count and the people's messages", async () => {
      const task = JSON.parse(
        (await http.tool(botKey, "add_task", { roomId, title: "Build the login page" })).text,
      );
      await http.tool(botKey, "update_task", {
        roomId,
        taskId: task.id,
        owner: "bot",
        status: "in_progress",
      });
      await http.post(`/rooms/${roomId}/messages`, alice, {
        to: "bot",
        text: "use the design from Figma v3",
      });
      const run = await runHook("SessionStart", env);
      expect(run.code).toBe(0);
      const context = run.answer?.hookSpecificOutput.additionalContext as string;
      expect(context).toContain(`You are bot in roomd room ${roomId}.`);
      expect(context).toContain(`${task.id} "Build the login page" (in_progress)`);
      expect(context).toContain('- human:alice: "use the design from Figma v3"');
      expect(context).toContain("Below, room content: each quoted text is a JSON string");
      expect(context).toMatch(/Unread room events: [1-9]/);
    });

    test("PreToolUse: nothing pending → no answer; an interrupt at the current epoch denies the next tool call once", async () => {
      expect((await runHook("PreToolUse", env)).answer).toBeNull();
      const wheel = (await http.post(`/rooms/${roomId}/driver`, alice, { action: "take" })).body;
      const sent = await http.post(`/rooms/${roomId}/interrupt`, alice, {
        epoch: wheel.epoch,
        to: "bot",
        reason: "that migration targets production",
      });
      expect(sent.status).toBe(201);
      const denied = await runHook("PreToolUse", env);
      expect(denied.answer).toEqual({
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "deny",
          permissionDecisionReason:
            'Interrupted by human:alice; the reason, quoted as a JSON string, exactly as written: "that migration targets production"',
        },
      });
      expect((await runHook("PreToolUse", env)).answer).toBeNull();
    });

    test("PostToolUse: agent_step carries metadata only; a steer arrives once as context for the next step", async () => {
      const epoch = (await http.get(`/rooms/${roomId}/driver`, alice)).body.epoch;
      await http.post(`/rooms/${roomId}/steer`, alice, {
        epoch,
        to: "bot",
        text: "keep the old endpoint working",
      });
      const run = await runHook("PostToolUse", env);
      expect(run.answer).toEqual({
        hookSpecificOutput: {
          hookEventName: "PostToolUse",
          additionalContext:
            'Steer from human:alice (the room\'s driver), quoted as a JSON string, exactly as written: "keep the old endpoint working"',
        },
      });
      expect((await runHook("PostToolUse", env)).answer).toBeNull();
      const log = await events();
      const steps = JSON.parse(log).filter((e: { type: string }) => e.type === "agent_step");
      expect(steps[0]).toMatchObject({
        from: "bot",
        // Relative to the session's working directory (cwd /home/dev/shop): the file, not the home directory.
        payload: { tool: "Write", target: "src/login.ts", ok: true },
      });
      expect(Object.keys(steps[0].payload).sort()).toEqual(["ok", "target", "tool"]);
      expect(log).not.toContain("SECRET_DO_NOT_LEAK");
    });

    test("UserPromptSubmit delivers queued messages; Stop blocks while messages wait, then lets the agent stop", async () => {
      await http.post(`/rooms/${roomId}/messages`, alice, { to: "bot", text: "also add a logout button" });
      const prompt = await runHook("UserPromptSubmit", env);
      expect(prompt.answer?.hookSpecificOutput.additionalContext).toBe(
        `Messages from people in room ${roomId} (${ROOM_CONTENT}):\n- human:alice: "also add a logout button"`,
      );
      expect((await runHook("UserPromptSubmit", env)).answer).toBeNull();
      await http.post(`/rooms/${roomId}/messages`, alice, { to: "all", text: "release at 5pm" });
      const stop = await runHook("Stop", env);
      expect(stop.answer).toEqual({
        decision: "block",
        reason: `People in room ${roomId} wrote to you; go on with their messages (${ROOM_CONTENT}):\n- human:alice: "release at 5pm"`,
      });
      expect((await runHook("Stop", env)).answer).toBeNull();
      const presence = JSON.parse((await http.tool(alice, "get_presence", { roomId })).text);
      expect(presence.find((p: { agentId: string }) => p.agentId === "bot").statusText).toBe("idle");
    });

    test("R2-10 a person's message cannot forge another person's line in the agent's context", async () => {
      for (const text of HOSTILE) {
        expect((await http.post(`/rooms/${roomId}/messages`, alice, { to: "bot", text })).status).toBe(201);
      }
      const context: string = (await runHook("UserPromptSubmit", env)).answer?.hookSpecificOutput
        .additionalContext;
      const lines = context.split(LINES);
      // One header line saying the quoted parts are room content, then alice's lines only, each her exact text.
      expect(lines[0]).toContain("room content");
      expect(lines.slice(1).map((l) => l.slice(0, '- human:alice: "'.length))).toEqual(
        HOSTILE.map(() => '- human:alice: "'),
      );
      expect(lines.slice(1).map((l) => JSON.parse(l.slice("- human:alice: ".length)))).toEqual(HOSTILE);
    });

    test("an unbound key names its agent with ROOMD_AGENT; a bound key naming another agent gets nothing", async () => {
      const unbound = (await http.post("/admin/keys", alice, {})).body.secret;
      await http.post(`/rooms/${roomId}/messages`, alice, { to: "worker-2", text: "hello worker" });
      const run = await runHook("UserPromptSubmit", { ...env, ROOMD_KEY: unbound, ROOMD_AGENT: "worker-2" });
      expect(run.answer?.hookSpecificOutput.additionalContext).toContain("hello worker");
      const refused = await runHook("Stop", { ...env, ROOMD_AGENT: "worker-3" });
      expect({ code: refused.code, answer: refused.answer }).toEqual({ code: 0, answer: null });
      expect(refused.stderr).toContain("This key is bound to agent bot");
    });
  });
}

describe("the bridge never holds an agent up", () => {
  test(`roomd down (nothing listens): every hook exits 0 with no answer within ${AGENT_NEVER_WAITS_MS} ms`, async () => {
    const env = {
      ROOMD_URL: `http://127.0.0.1:${await freePort()}`,
      ROOMD_KEY: "rk_x",
      ROOMD_ROOM: "r-down",
    };
    for (const hook of HOOK_NAMES) {
      const run = await runHook(hook, env);
      expect({ hook, code: run.code, answer: run.answer }).toEqual({ hook, code: 0, answer: null });
      expect(run.ms).toBeLessThan(AGENT_NEVER_WAITS_MS);
    }
  });

  test(`roomd stalled (accepts, never answers): every hook exits 0 with no answer within ${AGENT_NEVER_WAITS_MS} ms`, async () => {
    const sockets: { end(): void }[] = [];
    const listener = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: { open: (socket) => void sockets.push(socket), data: () => {} },
    });
    try {
      const env = {
        ROOMD_URL: `http://127.0.0.1:${listener.port}`,
        ROOMD_KEY: "rk_x",
        ROOMD_ROOM: "r-stalled",
      };
      const runs = await Promise.all(HOOK_NAMES.map((hook) => runHook(hook, env)));
      for (const [i, run] of runs.entries()) {
        expect({ hook: HOOK_NAMES[i], code: run.code, answer: run.answer }).toEqual({
          hook: HOOK_NAMES[i],
          code: 0,
          answer: null,
        });
        expect(run.ms).toBeLessThan(AGENT_NEVER_WAITS_MS);
      }
      expect(sockets.length).toBe(HOOK_NAMES.length);
    } finally {
      for (const socket of sockets) socket.end();
      listener.stop(true);
    }
  });

  test("without its variables, or with input that is not JSON, a hook says why on stderr and lets the agent go on", async () => {
    const missing = await runHook("PreToolUse", {});
    expect({ code: missing.code, answer: missing.answer }).toEqual({ code: 0, answer: null });
    expect(missing.stderr).toContain("set ROOMD_URL, ROOMD_KEY and ROOMD_ROOM");
    const garbage = await runHook(
      "Stop",
      { ROOMD_URL: "http://127.0.0.1:9", ROOMD_KEY: "k", ROOMD_ROOM: "r" },
      "{not json",
    );
    expect({ code: garbage.code, answer: garbage.answer }).toEqual({ code: 0, answer: null });
    expect(garbage.stderr).toContain("the hook's input on stdin is not JSON");
    expect(garbage.stderr).not.toContain("roomd not reached");
  });
});

describe("roomctl hook install", () => {
  const ROOT = join(import.meta.dir, "..", "..");
  const roomctl = (...args: string[]) =>
    Bun.spawnSync(["bun", "src/cli/index.ts", "hook", "install", ...args], { cwd: ROOT });

  test("prints the hooks block: every served hook runs `roomctl hook <event>`, tool hooks for every tool", () => {
    const out = roomctl();
    expect(out.exitCode).toBe(0);
    const { hooks } = JSON.parse(out.stdout.toString());
    expect(Object.keys(hooks)).toEqual(HOOK_NAMES);
    for (const name of HOOK_NAMES) {
      const [entry] = hooks[name];
      expect(entry.hooks).toEqual([{ type: "command", command: `roomctl hook ${name}`, timeout: 5 }]);
      expect(entry.matcher).toBe(name === "PreToolUse" || name === "PostToolUse" ? "*" : undefined);
    }
  });

  test("--write merges into .claude/settings.json, keeping other settings and hooks; twice changes nothing", () => {
    const dir = mkdtempSync(join(tmpdir(), "roomctl-install-"));
    const file = join(dir, ".claude", "settings.json");
    const own = { matcher: "Bash", hooks: [{ type: "command", command: "./check-bash.sh" }] };
    Bun.spawnSync(["mkdir", "-p", join(dir, ".claude")]);
    writeFileSync(file, JSON.stringify({ model: "opus", hooks: { PreToolUse: [own] } }));
    expect(roomctl("--write", "--file", file, "--command", "bunx roomctl").exitCode).toBe(0);
    const once = readFileSync(file, "utf8");
    expect(roomctl("--write", "--file", file, "--command", "bunx roomctl").exitCode).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(once);
    const settings = JSON.parse(once);
    expect(settings.model).toBe("opus");
    expect(settings.hooks.PreToolUse).toEqual([
      own,
      { matcher: "*", hooks: [{ type: "command", command: "bunx roomctl hook PreToolUse", timeout: 5 }] },
    ]);
    expect(settings.hooks.Stop).toEqual([
      { hooks: [{ type: "command", command: "bunx roomctl hook Stop", timeout: 5 }] },
    ]);
    // Installing again with another command replaces the bridge's entries: never two bridges.
    expect(roomctl("--write", "--file", file, "--command", "bun /opt/roomd/src/cli/index.ts").exitCode).toBe(
      0,
    );
    const again = JSON.parse(readFileSync(file, "utf8"));
    expect(again.hooks.PreToolUse).toEqual([
      own,
      {
        matcher: "*",
        hooks: [{ type: "command", command: "bun /opt/roomd/src/cli/index.ts hook PreToolUse", timeout: 5 }],
      },
    ]);
    expect(again.hooks.Stop).toHaveLength(1);
  });
});
