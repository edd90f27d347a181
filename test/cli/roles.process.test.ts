/**
 * `roomctl roles` as a real process against a real roomd (docs/roomctl.md#roles-room-person-role--person---remove): listing, setting
 * and removing people's roles, the server's refusals (exit 1, one line naming the role), usage mistakes (exit 2),
 * and an approval's approvers in `roomctl approvals`.
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

test("roles: listed, set, removed; refusals name the role (exit 1); usage mistakes exit 2", async () => {
  const roomId = newRoomId();
  expect((await http.post("/admin/rooms", OPERATOR.secret, { roomId })).status).toBe(201);
  const empty = await roomctl(["roles", roomId], { env: alice });
  expect([empty.code, empty.stdout]).toEqual([
    0,
    "No roles set: every person of the team is an approver here.\nYou: approver.\n",
  ]);
  expect((await roomctl(["roles", roomId, "bob", "viewer"], { env: carol })).code).toBe(0);
  expect((await roomctl(["roles", roomId, "*", "member"], { env: carol })).code).toBe(0);
  const listed = await roomctl(["roles", roomId], { env: alice });
  expect(listed.stdout).toContain("bob");
  expect(listed.stdout).toContain("Everyone else: member. Operators: approver.\nYou: member.\n");
  // alice, a member now, may neither set roles nor decide.
  const refused = await roomctl(["roles", roomId, "alice", "approver"], { env: alice });
  expect([refused.code, refused.stdout, refused.stderr.trim()]).toEqual([
    1,
    "",
    `roomctl: Setting roles in room ${roomId} needs the approver role; you are a member (403)`,
  ]);
  const removed = await roomctlJson(["roles", roomId, "bob", "--remove", "--json"], { env: carol });
  expect(removed).toEqual({ roomId, roles: { "*": "member" }, others: "member", you: "approver" });
  for (const args of [
    ["roles", roomId, "bob", "owner"],
    ["roles", roomId, "bob"],
    ["roles", roomId, "bob", "viewer", "--remove"],
    ["roles", roomId, "not a name", "viewer"],
  ]) {
    const run = await roomctl(args, { env: carol });
    expect([args.join(" "), run.code]).toEqual([args.join(" "), 2]);
  }
  // An approval naming its approvers shows them until decided.
  const asked = await http.tool(bot, "request_approval", { roomId, action: "deploy", approvers: ["alice"] });
  expect(asked.isError).toBe(false);
  const list = await roomctl(["approvals", roomId], { env: carol });
  expect(list.stdout).toContain("for human:alice, expires");
  const decide = await roomctl(["approve", roomId, "apr-1"], { env: carol });
  expect([decide.code, decide.stderr.trim()]).toEqual([
    1,
    "roomctl: Approval apr-1 is for human:alice to decide; you (human:carol) are not one of them (403)",
  ]);
});
