/**
 * `roomctl suspend`, `roomctl resume` and `roomctl agents` as real processes against a real roomd
 * (docs/roomctl.md): an approver suspends and resumes, a member is refused (exit 1,
 * naming the role), the suspended agent's calls are refused meanwhile, and usage mistakes exit 2.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { silentLogger } from "../../src/log.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { OPERATOR, type RunningServer, startInProcess } from "../support/server.ts";
import { newRoomId, sqliteE2e } from "../support/stores.ts";
import { roomctl, roomctlJson } from "./support.ts";

let store: RoomStore;
let server: RunningServer;
let http: ReturnType<typeof httpClient>;
let carol: Record<string, string>;
let alice: Record<string, string>;
let bot = "";

beforeAll(async () => {
  store = await sqliteE2e().open();
  server = startInProcess(store, silentLogger, {
    OPERATOR_KEYS: `${OPERATOR.teamId}:${OPERATOR.secret}:carol`,
    KEYS_PER_TEAM: "10000",
  });
  http = httpClient(server.url);
  carol = { ROOMD_URL: server.url, ROOMD_KEY: OPERATOR.secret };
  const mint = async (body: Record<string, unknown>) =>
    (await http.post("/admin/keys", OPERATOR.secret, body)).body.secret as string;
  alice = { ROOMD_URL: server.url, ROOMD_KEY: await mint({ kind: "human", humanId: "alice" }) };
  bot = await mint({ boundAgentId: "bot" });
});
afterAll(async () => {
  await server.stop();
  await store.close();
});

test("suspend, agents, resume: an approver may, a member is refused; the agent is refused meanwhile", async () => {
  const roomId = newRoomId();
  expect((await http.post("/admin/rooms", OPERATOR.secret, { roomId })).status).toBe(201);
  const task = JSON.parse((await http.tool(bot, "add_task", { roomId, title: "t" })).text);
  await http.tool(bot, "claim_task", { roomId, taskId: task.id });
  // Roles named: alice is a member, and members may not suspend.
  expect((await roomctl(["roles", roomId, "alice", "member"], { env: carol })).code).toBe(0);
  const refused = await roomctl(["suspend", roomId, "bot", "--reason", "looping"], { env: alice });
  expect([refused.code, refused.stderr.trim()]).toEqual([
    1,
    `roomctl: Suspending agents in room ${roomId} needs the approver role; you are a member (403)`,
  ]);

  const done = await roomctl(["suspend", roomId, "bot", "--reason", "looping"], { env: carol });
  expect([done.code, done.stdout]).toEqual([
    0,
    `Suspended bot in ${roomId}.\nReleased: 1 task(s), 0 file claim(s), 0 lock(s).\n`,
  ]);
  const call = await http.tool(bot, "get_my_summary", { roomId });
  expect(call.text).toMatch(
    /^Error: AGENT_SUSPENDED: agent bot is suspended in room .* by human:carol since .*: looping\./,
  );
  const listed = await roomctl(["agents", roomId], { env: alice });
  expect(listed.stdout).toContain("bot");
  expect(listed.stdout).toContain("human:carol");
  expect(listed.stdout).toContain("looping");
  const json = await roomctlJson(["agents", roomId, "--json"], { env: carol });
  expect(json.suspended).toMatchObject([{ agentId: "bot", by: "human:carol", reason: "looping" }]);
  const again = await roomctl(["suspend", roomId, "bot", "--reason", "twice"], { env: carol });
  expect(again.stdout).toContain("was already suspended by human:carol");

  expect((await roomctl(["resume", roomId, "bot"], { env: carol })).stdout).toBe(
    `Resumed bot in ${roomId}.\n`,
  );
  expect((await roomctl(["resume", roomId, "bot"], { env: carol })).stdout).toBe("bot was not suspended.\n");
  expect((await http.tool(bot, "get_my_summary", { roomId })).isError).toBe(false);
  expect((await roomctl(["agents", roomId], { env: carol })).stdout).toBe(
    "No agent is suspended in this room.\n",
  );
});

test("usage mistakes exit 2 and send nothing", async () => {
  const roomId = newRoomId();
  for (const args of [
    ["suspend", roomId, "bot"],
    ["suspend", roomId, "bot", "--reason", " "],
    ["suspend", roomId, "human:pat", "--reason", "r"],
    ["suspend", roomId],
    ["resume", roomId],
    ["agents", roomId, "extra"],
  ]) {
    const run = await roomctl(args, { env: carol });
    expect(run.code).toBe(2);
  }
});
