/**
 * Every roomctl command as a real process against a real roomd (HTTP on a free port, the embedded SQLite store):
 * what each does on the server, that every --json output parses (listings as arrays), the exit codes (0 ok,
 * 1 failed, 2 usage) with one-line errors that never carry a key, --help everywhere, and no colour when stdout
 * is not a terminal. The CLI is a thin client, so one store suffices here; watch's resume runs on SQLite and Redis
 * (watch.process.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { silentLogger } from "../../src/log.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { OPERATOR, type RunningServer, startInProcess, TEAM_A } from "../support/server.ts";
import { newRoomId, sqliteE2e } from "../support/stores.ts";
import { ANSI, type CliRun, roomctl, roomctlEach, roomctlJson } from "./support.ts";

let store: RoomStore;
let server: RunningServer;
let http: ReturnType<typeof httpClient>;
/** The operator (a person, human:carol, team "ops") — most commands run as carol. */
let carol: Record<string, string>;

beforeAll(async () => {
  store = await sqliteE2e().open();
  server = startInProcess(store, silentLogger, {
    OPERATOR_KEYS: `${OPERATOR.teamId}:${OPERATOR.secret}:carol`,
    KEYS_PER_TEAM: "10000",
  });
  http = httpClient(server.url);
  carol = { ROOMD_URL: server.url, ROOMD_KEY: OPERATOR.secret };
});
afterAll(async () => {
  await server.stop();
  await store.close();
});

/** A run that must fail: its exit code, and stderr exactly one line starting "roomctl: ". */
function failed(run: CliRun, code: 1 | 2): string {
  expect({ code: run.code, stdout: run.stdout }).toEqual({ code, stdout: "" });
  const lines = run.stderr.split("\n").filter((l) => l !== "");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toStartWith("roomctl: ");
  return lines[0] as string;
}

/** A key bound to an agent, minted through roomctl itself. */
async function agentKey(agent: string): Promise<string> {
  const made = await roomctlJson(["keys", "create", "--agent", agent], { env: carol });
  return made.secret as string;
}

const COMMANDS = [
  "login",
  "logout",
  "whoami",
  "rooms",
  "watch",
  "report",
  "tasks",
  "task",
  "post",
  "drive",
  "steer",
  "interrupt",
  "approvals",
  "approve",
  "reject",
  "roles",
  "agents",
  "suspend",
  "resume",
  "handoff",
  "handoffs",
  "fork",
  "verdicts",
  "keys",
  "invites",
  "oauth",
  "snippets",
  "guard",
  "hook",
];

describe("help and usage", () => {
  test("roomctl --help lists every command; each has --help (exit 0, usage on stdout)", async () => {
    const all = await roomctl(["--help"]);
    expect(all.code).toBe(0);
    for (const name of COMMANDS) expect(all.stdout).toContain(`  ${name} `);
    const runs = await roomctlEach(COMMANDS.map((name) => [name, "--help"]));
    runs.forEach((run, i) => {
      expect({ name: COMMANDS[i], code: run.code, stderr: run.stderr }).toEqual({
        name: COMMANDS[i],
        code: 0,
        stderr: "",
      });
      expect(run.stdout).toContain("usage:");
    });
    expect((await roomctl(["help", "tasks"])).stdout).toContain("usage: roomctl tasks <room>");
    expect((await roomctl(["task", "add", "--help"])).stdout).toContain("roomctl task add <room> <title…>");
  });

  test("usage mistakes exit 2 with one line naming the mistake, before any request", async () => {
    // No credentials at all: a usage error is reported as such, not as "not logged in".
    const cases: [string[], RegExp][] = [
      [[], /usage/],
      [["frobnicate"], /unknown command "frobnicate"/],
      [["tasks"], /missing <room>/],
      [["tasks", "Bad_Room"], /invalid room id "Bad_Room"/],
      [["tasks", "r1", "--bogus"], /unknown option --bogus/],
      [["tasks", "r1", "--ready=yes"], /--ready takes no value/],
      [["tasks", "r1", "extra"], /unexpected argument "extra"/],
      [["task", "frob", "r1"], /unknown task action "frob"/],
      [["task", "add", "r1"], /missing <title>/],
      [["task", "add", "r1", "t", "--lease", "60"], /--lease does not go with task add/],
      [["task", "update", "r1", "task-1"], /nothing to change/],
      [["task", "update", "r1", "task-1", "--status", "finished"], /--status must be one of/],
      [["task", "update", "r1", "task-1", "--priority", "high"], /--priority must be a whole number/],
      [["watch", "r1", "--after=-1"], /--after must be a whole number/],
      [["post", "r1"], /missing <text>/],
      [["steer", "r1", "go"], /missing --to/],
      [["drive", "r1", "grab"], /unknown drive action "grab"/],
      [["approvals", "r1", "--pending", "--status", "approved"], /--pending or --status, not both/],
      [["approve", "r1"], /missing <approval-id>/],
      [["handoff", "r1", "--to", "bob"], /missing --note/],
      [["fork", "r1", "--as", "NOPE"], /invalid room id "NOPE"/],
      [["keys", "create", "--agent", "a", "--human", "b"], /--agent or --human, not both/],
      [["invites", "r1", "create", "--expires", "soon"], /--expires must be a duration/],
      [["snippets", "r1"], /missing --agent/],
      [["snippets", "r1", "--agent", "a", "--client", "vim"], /--client must be one of/],
      [["guard"], /no room: pass --room or set ROOMD_ROOM/],
      [["rooms", "delete", "r1"], /pass --yes to confirm/],
      [["login"], /missing <url>/],
      [["login", "ftp://x"], /must be http or https/],
    ];
    const runs = await roomctlEach(cases.map(([args]) => args));
    runs.forEach((run, i) => {
      const [args, pattern] = cases[i] as [string[], RegExp];
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      // Without any argument the whole usage goes to stderr; every other mistake is one line.
      if (args.length > 0) expect(run.stderr.trim().split("\n")).toHaveLength(1);
      expect(run.stderr).toMatch(pattern);
    });
  });
});

describe("failures exit 1 with one line, never a key", () => {
  test("an unknown key, an unreachable server, no credentials, a refused call", async () => {
    const wrong = "definitely-not-a-key-0123456789";
    const unknown = failed(await roomctl(["rooms"], { env: { ROOMD_URL: server.url, ROOMD_KEY: wrong } }), 1);
    expect(unknown).toContain("(401)");
    expect(unknown).not.toContain(wrong);
    const down = failed(
      await roomctl(["rooms"], { env: { ROOMD_URL: "http://127.0.0.1:9", ROOMD_KEY: wrong } }),
      1,
    );
    expect(down).toBe("roomctl: roomd not reached at http://127.0.0.1:9 (connection refused)");
    expect(failed(await roomctl(["rooms"]), 1)).toContain("not logged in");
    const roomId = newRoomId();
    await roomctl(["task", "add", roomId, "t"], { env: carol });
    const claim = failed(
      await roomctl(["task", "claim", roomId, "task-9", "--agent", "bob"], { env: carol }),
      1,
    );
    expect(claim).toBe("roomctl: Task not found: task-9");
    // A key bound to no agent cannot claim without naming one: a usage error saying how, not the tool's refusal.
    expect(failed(await roomctl(["task", "claim", roomId, "task-1"], { env: carol }), 2)).toBe(
      "roomctl: a claim is an agent's: pass --agent <id>, set ROOMD_AGENT, or use a key bound to an agent (see roomctl task --help)",
    );
  });
});

describe("rooms", () => {
  test("create (named and generated), list as an array, delete only with --yes", async () => {
    const roomId = newRoomId();
    expect(await roomctlJson(["rooms", "create", roomId], { env: carol })).toEqual({ roomId, teamId: "ops" });
    const generated = await roomctlJson(["rooms", "create"], { env: carol });
    expect(generated.roomId).toMatch(/^[a-z0-9]{12}$/);
    const list = await roomctlJson(["rooms"], { env: carol });
    expect(Array.isArray(list)).toBe(true);
    expect(list.map((r: { roomId: string }) => r.roomId)).toEqual(
      expect.arrayContaining([roomId, generated.roomId]),
    );
    const text = await roomctl(["rooms"], { env: carol });
    expect(text.stdout).toMatch(/^ROOM +CREATED +LAST ACTIVITY\n/);
    expect(text.stdout).toContain(roomId);
    expect(text.stdout).not.toMatch(ANSI);

    failed(await roomctl(["rooms", "delete", roomId], { env: carol }), 2);
    expect((await roomctlJson(["rooms"], { env: carol })).some((r: any) => r.roomId === roomId)).toBe(true);
    expect(await roomctlJson(["rooms", "delete", roomId, "--yes"], { env: carol })).toEqual({
      ok: true,
      roomId,
    });
    expect((await roomctlJson(["rooms"], { env: carol })).some((r: any) => r.roomId === roomId)).toBe(false);
  });

  test("a key bound to an agent lists the rooms it can use (list_rooms), not refused", async () => {
    const roomId = newRoomId();
    await roomctl(["rooms", "create", roomId], { env: carol });
    const bot = { ROOMD_URL: server.url, ROOMD_KEY: await agentKey("lister") };
    const list = await roomctlJson(["rooms"], { env: bot });
    expect(list.some((r: { roomId: string }) => r.roomId === roomId)).toBe(true);
  });
});

describe("the plan", () => {
  test("task add, tasks (table and --json array), --ready, claim, update — through the plan tools", async () => {
    const roomId = newRoomId();
    const api = await roomctlJson(["task", "add", roomId, "Write", "the", "API", "--priority", "2"], {
      env: carol,
    });
    expect(api).toMatchObject({ id: "task-1", title: "Write the API", status: "pending", priority: 2 });
    const ui = await roomctlJson(
      ["task", "add", roomId, "UI", "--depends-on", "task-1", "--description", "forms"],
      {
        env: carol,
      },
    );
    expect(ui).toMatchObject({ id: "task-2", depends_on: ["task-1"], description: "forms" });

    const plan = await roomctlJson(["tasks", roomId], { env: carol });
    expect(plan.map((t: { id: string }) => t.id)).toEqual(["task-1", "task-2"]);
    expect((await roomctlJson(["tasks", roomId, "--ready"], { env: carol })).map((t: any) => t.id)).toEqual([
      "task-1",
    ]);
    const table = await roomctl(["tasks", roomId], { env: carol });
    expect(table.stdout.split("\n")[0]).toMatch(/^ID +STATUS +OWNER +PRI +V +DEPENDS ON +TITLE$/);
    expect(table.stdout).toMatch(/task-2 +pending +- +1 +task-1 +UI/);

    // bob claims with his bound key (no --agent needed); the claim is exclusive.
    const bob = { ROOMD_URL: server.url, ROOMD_KEY: await agentKey("bob") };
    const claimed = await roomctlJson(["task", "claim", roomId, "task-1"], { env: bob });
    expect(claimed).toMatchObject({ id: "task-1", status: "in_progress", owner: "bob" });
    expect(claimed.lease_expires_at).toBeString();
    const taken = failed(
      await roomctl(["task", "claim", roomId, "task-1", "--agent", "dave"], { env: carol }),
      1,
    );
    expect(taken).toContain("Task task-1 is owned by bob");
    // The plan's rules are the server's: task-2 cannot start before task-1 is done.
    const blocked = await roomctl(
      ["task", "update", roomId, "task-2", "--status", "in_progress", "--agent", "dave"],
      {
        env: carol,
      },
    );
    expect(failed(blocked, 1)).toContain("blocked by task-1");

    const done = await roomctl(["task", "update", roomId, "task-1", "--status", "done", "--note", "merged"], {
      env: { ...bob, ROOMD_AGENT: "bob" },
    });
    expect(done.code).toBe(0);
    expect(done.stdout).toBe('Updated task-1 "Write the API": done @bob, version 3\n');
    const events = (await http.tool(OPERATOR.secret, "read_events", { roomId, limit: 1 })).text;
    expect(JSON.parse(events)[0].payload.changes.note).toBe("merged");
    const ready = await roomctlJson(["tasks", roomId, "--ready", "--agent", "dave"], { env: carol });
    expect(ready.map((t: any) => t.id)).toEqual(["task-2"]);
    const unassigned = await roomctlJson(
      [
        "task",
        "update",
        roomId,
        "task-2",
        "--priority",
        "none",
        "--title",
        "UI forms",
        "--expected-version",
        "1",
      ],
      { env: carol },
    );
    expect(unassigned).toMatchObject({ title: "UI forms", priority: null, version: 2 });
    expect(await roomctlJson(["tasks", newRoomId()], { env: carol })).toEqual([]);
  });
});

describe("people in the room", () => {
  test("post, drive (see, take, release), steer and interrupt with the current epoch", async () => {
    const roomId = newRoomId();
    const posted = await roomctlJson(["post", roomId, "Please", "add", "tests", "--to", "bob"], {
      env: carol,
    });
    expect(posted).toEqual({ eventId: expect.any(String), seq: 1 });
    expect((await roomctl(["post", roomId, "-"], { env: carol, stdin: "from stdin\n" })).stdout).toBe(
      "Posted #2 to all.\n",
    );
    expect(await roomctlJson(["drive", roomId], { env: carol })).toEqual({
      holder: null,
      holderKind: null,
      epoch: 0,
      since: null,
    });
    // Nobody drives: steering is refused by the server, exit 1.
    failed(await roomctl(["steer", roomId, "--to", "bob", "go"], { env: carol }), 1);
    expect(await roomctlJson(["drive", roomId, "take"], { env: carol })).toMatchObject({
      holder: "human:carol",
      epoch: 1,
    });
    expect(
      await roomctlJson(["steer", roomId, "--to", "bob", "Use", "the", "middleware"], { env: carol }),
    ).toEqual({
      eventId: expect.any(String),
      seq: 4,
      epoch: 1,
    });
    expect((await roomctl(["interrupt", roomId, "--to", "bob", "stop", "now"], { env: carol })).stdout).toBe(
      "Interrupted bob (#5, epoch 1).\n",
    );
    expect(await roomctlJson(["drive", roomId, "release"], { env: carol })).toMatchObject({
      holder: null,
      epoch: 2,
    });
    const log = JSON.parse(
      (await http.tool(OPERATOR.secret, "read_events", { roomId, limit: 10 })).text,
    ).reverse();
    expect(log.map((e: any) => [e.type, e.from, e.to])).toEqual([
      ["human_message", "human:carol", "bob"],
      ["human_message", "human:carol", "all"],
      ["driver_changed", "human:carol", "all"],
      ["steer", "human:carol", "bob"],
      ["interrupt", "human:carol", "bob"],
      ["driver_changed", "human:carol", "all"],
    ]);
    expect(log[3].payload).toEqual({ text: "Use the middleware", epoch: 1 });
    expect(log[4].payload).toEqual({ reason: "stop now", epoch: 1 });
    // An agent's key is not a person: posting is refused.
    const bot = { ROOMD_URL: server.url, ROOMD_KEY: await agentKey("poster") };
    expect(failed(await roomctl(["post", roomId, "hi"], { env: bot }), 1)).toContain(
      "Only people can post messages",
    );
  });

  test("approvals (--pending, --json), approve and reject with a note, decided once", async () => {
    const roomId = newRoomId();
    const bob = await agentKey("bob");
    for (const action of ["deploy api", "drop table"]) {
      const r = await http.tool(bob, "request_approval", { roomId, action, details: { why: "release" } });
      expect(r.isError).toBe(false);
    }
    const pending = await roomctlJson(["approvals", roomId, "--pending"], { env: carol });
    expect(pending.map((a: any) => [a.id, a.status, a.requestedBy])).toEqual([
      ["apr-1", "pending", "bob"],
      ["apr-2", "pending", "bob"],
    ]);
    expect(
      await roomctlJson(["approve", roomId, "apr-1", "--note", "go ahead"], { env: carol }),
    ).toMatchObject({
      id: "apr-1",
      status: "approved",
      decidedBy: "human:carol",
      note: "go ahead",
    });
    expect((await roomctl(["reject", roomId, "apr-2"], { env: carol })).stdout).toBe(
      "apr-2 rejected (drop table).\n",
    );
    expect(failed(await roomctl(["approve", roomId, "apr-2"], { env: carol }), 1)).toContain(
      "already rejected",
    );
    expect(await roomctlJson(["approvals", roomId, "--pending"], { env: carol })).toEqual([]);
    const all = await roomctlJson(["approvals", roomId], { env: carol });
    expect(all.map((a: any) => a.status)).toEqual(["approved", "rejected"]);
    const table = await roomctl(["approvals", roomId, "--status", "approved"], { env: carol });
    expect(table.stdout).toMatch(/apr-1 +approved +bob/);
    expect(table.stdout).not.toContain("apr-2");
  });

  test("report: the room's numbers as a summary and a table, and as JSON; a bad window exits 1", async () => {
    const roomId = newRoomId();
    const [api, web] = [await agentKey("api"), await agentKey("web")];
    const entry = await http.tool(api, "write_context", {
      roomId,
      type: "note",
      summary: "Port",
      payload: { text: "8080" },
      consuming_agents: ["web"],
    });
    expect(entry.isError).toBe(false);
    await http.tool(web, "get_unread_events", { roomId });
    const task = JSON.parse((await http.tool(web, "add_task", { roomId, title: "client" })).text);
    await http.tool(web, "claim_task", { roomId, taskId: task.id });
    await http.tool(web, "update_task", { roomId, taskId: task.id, status: "done" });
    expect((await roomctl(["post", roomId, "--to", "web", "ship", "it"], { env: carol })).code).toBe(0);
    const json = await roomctlJson(["report", roomId], { env: carol });
    expect(json.humanInterventions).toEqual({ total: 1, messages: 1, steers: 0, interrupts: 0 });
    expect(json.handoffs[0].consumers[0]).toMatchObject({
      agentId: "web",
      observedVersion: "1.0",
      correct: true,
    });
    expect(json.concurrency.refusedStaleWrites).toBeNull();
    const text = (await roomctl(["report", roomId], { env: carol })).stdout;
    expect(text).toContain(`Report of ${roomId}`);
    expect(text).toContain("people stepped in   1 (messages 1, steers 0, interrupts 0)");
    expect(text).toContain("handoffs            1, correctness 100%");
    expect(text).toContain("refused stale writes — (not recorded)");
    expect(text).toMatch(/ctx-1 +note +api +1\.0 +web +1\.0 +yes/);
    expect(failed(await roomctl(["report", roomId, "--from", "monday"], { env: carol }), 1)).toContain(
      "from: must be an ISO 8601 time",
    );
  }, 60_000);

  test("handoff, handoffs, fork (--at, --as) and verdicts", async () => {
    const roomId = newRoomId();
    await roomctl(["task", "add", roomId, "API"], { env: carol });
    await roomctl(["task", "add", roomId, "UI"], { env: carol });
    const offered = await roomctlJson(
      [
        "handoff",
        roomId,
        "--to",
        "frontend",
        "--task",
        "task-1",
        "--task",
        "task-2",
        "--note",
        "wire the UI",
      ],
      { env: carol },
    );
    expect(offered).toMatchObject({
      id: "hof-1",
      from: "human:carol",
      to: "frontend",
      taskIds: ["task-1", "task-2"],
      note: "wire the UI",
      status: "offered",
    });
    expect((await roomctlJson(["handoffs", roomId, "--status", "offered"], { env: carol })).length).toBe(1);
    expect(await roomctlJson(["handoffs", roomId, "--status", "accepted"], { env: carol })).toEqual([]);

    const forkId = newRoomId();
    expect(await roomctlJson(["fork", roomId, "--at", "1", "--as", forkId], { env: carol })).toEqual({
      roomId: forkId,
      forkedFrom: { roomId, seq: 1 },
    });
    const forkedPlan = await roomctlJson(["tasks", forkId], { env: carol });
    expect(forkedPlan.map((t: any) => t.id)).toEqual(["task-1"]);
    expect(failed(await roomctl(["fork", roomId, "--at", "99"], { env: carol }), 1)).toContain("(400)");

    expect(await roomctlJson(["verdicts", roomId], { env: carol })).toEqual([]);
    const reviewer = await agentKey("reviewer");
    const v = await http.tool(reviewer, "record_verdict", {
      roomId,
      verdict: "pass",
      summary: "Looks good",
      ref: "https://example.com/pr/1",
    });
    expect(v.isError).toBe(false);
    const verdicts = await roomctlJson(["verdicts", roomId], { env: carol });
    expect(verdicts.map((x: any) => [x.verdict, x.by, x.summary])).toEqual([
      ["pass", "reviewer", "Looks good"],
    ]);
    expect((await roomctl(["verdicts", roomId], { env: carol })).stdout).toMatch(/pass +reviewer/);
  });
});

describe("keys and invites", () => {
  test("keys create (agent, person), list without secrets, revoke: the key stops working", async () => {
    const made = await roomctlJson(["keys", "create", "--agent", "ci-bot", "--note", "ci"], { env: carol });
    // (Bun's toMatchObject writes asymmetric matchers into the received object: plain checks here.)
    expect(made.keyId).toMatch(/^k_ops_/);
    expect([made.boundAgentId, made.note]).toEqual(["ci-bot", "ci"]);
    expect(made.secret).toMatch(/^rk_ops_/);
    const person = await roomctlJson(["keys", "create", "--human", "dana"], { env: carol });
    expect(person.humanId).toBe("dana");
    const text = await roomctl(["keys", "create", "--agent", "x1"], { env: carol });
    expect(text.stdout).toMatch(
      /^Created key k_ops_\w+ for agent x1\. Its secret, shown only this once:\nrk_ops_\S+\n$/,
    );

    const list = await roomctlJson(["keys"], { env: carol });
    expect(Array.isArray(list)).toBe(true);
    const row = list.find((k: any) => k.keyId === made.keyId);
    expect(row.boundAgentId).toBe("ci-bot");
    expect(row.hint).toMatch(/^\*\*\*\*/);
    expect(JSON.stringify(list)).not.toContain(made.secret);
    expect((await roomctl(["keys"], { env: carol })).stdout).not.toContain(made.secret);

    const botEnv = { ROOMD_URL: server.url, ROOMD_KEY: made.secret };
    expect((await roomctlJson(["whoami"], { env: botEnv })).boundAgentId).toBe("ci-bot");
    expect(await roomctlJson(["keys", "revoke", made.keyId], { env: carol })).toEqual({
      ok: true,
      keyId: made.keyId,
    });
    expect(failed(await roomctl(["whoami"], { env: botEnv }), 1)).toContain("(401)");
    // An agent's key may not mint keys.
    const agent = { ROOMD_URL: server.url, ROOMD_KEY: TEAM_A.secret };
    expect(failed(await roomctl(["keys", "create", "--human", "eve"], { env: agent }), 1)).toContain(
      "Only people can create keys or invites for people",
    );
  });

  test("keys create with --expires, --rooms and --read-only; the list shows expiry and last use; rotate", async () => {
    const made = await roomctlJson(
      [
        "keys",
        "create",
        "--agent",
        "watcher",
        "--expires",
        "2h",
        "--rooms",
        "room-one,room-two",
        "--read-only",
      ],
      { env: carol },
    );
    expect([made.rooms, made.readOnly]).toEqual([["room-one", "room-two"], true]);
    expect(Date.parse(made.expiresAt) - Date.parse(made.createdAt)).toBe(7_200_000);
    const watcherEnv = { ROOMD_URL: server.url, ROOMD_KEY: made.secret };
    expect((await roomctlJson(["whoami"], { env: watcherEnv })).boundAgentId).toBe("watcher");
    const row = (await roomctlJson(["keys"], { env: carol })).find((k: any) => k.keyId === made.keyId);
    expect(typeof row.lastUsedAt).toBe("string");
    const listing = (await roomctl(["keys"], { env: carol })).stdout;
    expect(listing).toMatch(/EXPIRES +LAST USED +SCOPE/);
    expect(listing).toContain("rooms room-one,room-two, read-only");

    const rotated = await roomctlJson(["keys", "rotate", made.keyId, "--grace", "10m"], { env: carol });
    expect(rotated.rotated.keyId).toBe(made.keyId);
    expect(Date.parse(rotated.rotated.expiresAt) - Date.now()).toBeLessThanOrEqual(600_000);
    expect([rotated.boundAgentId, rotated.rooms, rotated.readOnly]).toEqual([
      "watcher",
      ["room-one", "room-two"],
      true,
    ]);
    expect((await roomctl(["keys"], { env: carol })).stdout).toContain(`rotated to ${rotated.keyId}`);
    const text = await roomctl(["keys", "rotate", rotated.keyId], { env: carol });
    expect(text.stdout).toMatch(
      new RegExp(
        `^Rotated ${rotated.keyId}: it keeps working until .+\\. Its successor k_ops_\\w+ .+:\nrk_ops_\\S+\n$`,
      ),
    );
    expect(failed(await roomctl(["keys", "rotate", rotated.keyId], { env: carol }), 1)).toContain(
      "already rotated",
    );
    expect(
      failed(await roomctl(["keys", "rotate", made.keyId, "--grace", "soon"], { env: carol }), 2),
    ).toContain("--grace must be a duration");
    expect(failed(await roomctl(["keys", "create", "--rooms", ","], { env: carol }), 2)).toContain("--rooms");
  });

  test("keys create --agent-rate: the key's own agent budget, listed, kept by rotation; bad values refused", async () => {
    const made = await roomctlJson(["keys", "create", "--agent", "metered", "--agent-rate", "9"], {
      env: carol,
    });
    expect(made).toMatchObject({ boundAgentId: "metered", agentRateLimitPerMinute: 9 });
    const listing = (await roomctl(["keys"], { env: carol })).stdout;
    expect(listing).toMatch(/SCOPE +AGENT RATE/);
    expect(listing.split("\n").find((l) => l.includes(made.keyId))).toContain("9/min");
    const rotated = await roomctlJson(["keys", "rotate", made.keyId, "--grace", "0"], { env: carol });
    expect(rotated.agentRateLimitPerMinute).toBe(9);
    expect(failed(await roomctl(["keys", "create", "--agent-rate", "lots"], { env: carol }), 2)).toContain(
      "--agent-rate must be a whole number",
    );
    expect(failed(await roomctl(["keys", "create", "--agent-rate", "0"], { env: carol }), 1)).toContain(
      "agentRateLimitPerMinute",
    );
  });

  test("invites: create (agent, --expires), list, revoke", async () => {
    const roomId = newRoomId();
    await roomctl(["rooms", "create", roomId], { env: carol });
    const made = await roomctlJson(["invites", roomId, "create", "--agent", "guest", "--expires", "2h"], {
      env: carol,
    });
    expect(made.token).toMatch(new RegExp(`^ri_${roomId}_`));
    expect(Date.parse(made.expiresAt) - Date.parse(made.createdAt)).toBe(2 * 3600 * 1000);
    const list = await roomctlJson(["invites", roomId], { env: carol });
    expect(list.map((i: any) => i.tokenId)).toEqual([made.tokenId]);
    expect(JSON.stringify(list)).not.toContain(made.token);
    // The invite works for its room.
    const guest = { ROOMD_URL: server.url, ROOMD_KEY: made.token };
    expect(await roomctlJson(["tasks", roomId], { env: guest })).toEqual([]);
    expect(await roomctlJson(["invites", roomId, "revoke", made.tokenId], { env: carol })).toEqual({
      ok: true,
      tokenId: made.tokenId,
    });
    expect(await roomctlJson(["invites", roomId], { env: carol })).toEqual([]);
    expect((await roomctl(["invites", roomId], { env: carol })).stdout).toBe(
      `No live invites for ${roomId}.\n`,
    );
  });
});

describe("snippets", () => {
  test("one client: its configuration, the instructions naming the agent, Claude's hooks; no secret", async () => {
    const roomId = newRoomId();
    const claude = await roomctlJson(["snippets", roomId, "--agent", "backend", "--client", "claude"], {
      env: carol,
    });
    expect(claude.url).toBe(server.url);
    expect(claude.clients.map((c: any) => c.client)).toEqual(["claude"]);
    const mcp = JSON.parse(claude.clients[0].config);
    expect(mcp.mcpServers.roomd).toEqual({
      type: "http",
      url: `${server.url}/mcp?profile=compact`,
      headers: { Authorization: `Bearer \${ROOMD_KEY}` },
    });
    expect(claude.instructions).toContain(`Room: \`${roomId}\``);
    expect(claude.instructions).toContain("Your agentId: `backend`");
    expect(Object.keys(claude.hooks.hooks)).toEqual([
      "SessionStart",
      "PreToolUse",
      "PostToolUse",
      "UserPromptSubmit",
      "Stop",
    ]);
    expect(claude.env).toMatchObject({ ROOMD_URL: server.url, ROOMD_ROOM: roomId });
    expect(JSON.stringify(claude)).not.toContain(OPERATOR.secret);

    const codex = await roomctlJson(["snippets", roomId, "--agent", "backend", "--client", "codex"], {
      env: carol,
    });
    expect(codex.clients[0].config).toContain('bearer_token_env_var = "ROOMD_KEY"');
    expect(codex.hooks).toBeNull();
    // Only the URL is needed: no key at all.
    const all = await roomctl(["snippets", roomId, "--agent", "backend"], { env: { ROOMD_URL: server.url } });
    expect(all.code).toBe(0);
    for (const heading of [
      "Claude Code: .mcp.json",
      "Cursor:",
      "Codex CLI:",
      "Gemini CLI:",
      "Instructions",
      "hooks",
    ])
      expect(all.stdout).toContain(heading);
    expect(all.stdout).not.toMatch(ANSI);
  });
});

describe("whoami", () => {
  test("who the key is, and where the credentials come from", async () => {
    expect(await roomctlJson(["whoami"], { env: carol })).toMatchObject({
      url: server.url,
      credentials: "env",
      teamId: "ops",
      kind: "operator",
      type: "human",
      humanId: "carol",
    });
    const text = await roomctl(["whoami"], { env: carol });
    expect(text.stdout).toContain("person:      human:carol");
    expect(text.stdout).not.toContain(OPERATOR.secret);
  });
});
