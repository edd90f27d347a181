/**
 * The room board as an MCP App, in chromium, inside a fake MCP Apps host written from the ext-apps specification
 * (test/support/mcp-apps-host.ts: a sandbox proxy on another origin with the ext-apps default CSP, the
 * JSON-RPC-over-postMessage protocol, the view's tool calls proxied to roomd with a person's key). The host renders
 * the board from a real show_room_board result; a change made through MCP on another roomd process shows within
 * 3 s (the board's poll, held open on the change feed); an approval decided, a message sent and work handed over
 * from the board are recorded as the person's; the board ends without a console error or a CSP violation.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, FrameLocator } from "playwright-core";
import { silentLogger } from "../../src/log.ts";
import { BOARD_URI } from "../../src/mcp/board/ui.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { type FakeHost, startFakeHost } from "../support/mcp-apps-host.ts";
import {
  type InProcessServer,
  OPERATOR,
  type SpawnedServer,
  spawnServer,
  startInProcess,
} from "../support/server.ts";
import { newRoomId, sqliteE2e } from "../support/stores.ts";
import {
  callTool,
  launchBrowser,
  openPage,
  provisionWebTeam,
  type WatchedPage,
  type WebTeam,
} from "../support/web.ts";

setDefaultTimeout(60_000);

/** The board shows a change made elsewhere within this (the room's change feed wakes its poll at once). */
const CHANGE_MS = 3_000;
const ENV = { KEYS_PER_TEAM: "10000", RATE_LIMIT_PER_MINUTE: "1000000" };

const backing = sqliteE2e();
let store: RoomStore;
let server: InProcessServer;
let other: SpawnedServer;
let browser: Browser;
let team: WebTeam;
let host: FakeHost;

beforeAll(async () => {
  store = await backing.open();
  server = startInProcess(store, silentLogger, {
    ...ENV,
    OPERATOR_KEYS: `${OPERATOR.teamId}:${OPERATOR.secret}`,
  });
  other = await spawnServer({
    ...(await backing.env()),
    ...ENV,
    OPERATOR_KEYS: `${OPERATOR.teamId}:${OPERATOR.secret}`,
  });
  team = await provisionWebTeam(server.url, OPERATOR.secret);
  host = await startFakeHost(server.url, team.person);
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await host?.stop();
  await other?.stop();
  await server?.stop();
  await store?.close();
});

/** A tool called on the other roomd process with the team's agent key. */
const elsewhere = (name: string, args: Record<string, unknown>) =>
  callTool(other.url, team.agents, name, args);

/** The board's document: the view inside the sandbox proxy inside the host page. */
const boardOf = (watched: WatchedPage): FrameLocator =>
  watched.page.frameLocator("iframe#sandbox").frameLocator("iframe");

async function openBoard(
  roomId: string,
  width = 1280,
): Promise<{ watched: WatchedPage; view: FrameLocator }> {
  const watched = await openPage(browser, { width });
  await watched.page.goto(host.pageUrl(roomId));
  const view = boardOf(watched);
  await view.locator("#live.ok").waitFor();
  return { watched, view };
}

test("the host renders the board from a real show_room_board result, as the person", async () => {
  const roomId = newRoomId();
  await elsewhere("add_task", { roomId, title: "Build the cart page", agentId: "planner" });
  await elsewhere("heartbeat", { roomId, agentId: "backend", statusText: "writing the API" });
  await elsewhere("claim_files", { roomId, agentId: "backend", paths: ["src/api/**"] });
  const { watched, view } = await openBoard(roomId);
  await view.locator('[data-column="ready"] h4:text-is("Build the cart page")').waitFor();
  await view.locator('#b-people-list strong:text-is("backend")').waitFor();
  await view.locator('#b-locks-list code:text-is("src/api/**")').waitFor();
  await view.locator('#b-events-list .sentence:has-text("Build the cart page")').first().waitFor();
  const state = (await watched.page.evaluate("window.__host")) as Record<string, any>;
  expect(state.resource).toEqual({
    uri: BOARD_URI,
    mimeType: "text/html;profile=mcp-app",
    meta: { ui: { prefersBorder: true } },
  });
  expect(state.initialized).toBe(true);
  expect(state.calls).toContain("board_changes");
  expect({ refused: state.refused, errors: state.errors }).toEqual({ refused: [], errors: [] });
  expect(watched.problems).toEqual([]);
  await watched.close();
});

test("a change made through MCP on another roomd process shows within 3 s", async () => {
  const roomId = newRoomId();
  await elsewhere("add_task", { roomId, title: "First task", agentId: "planner" });
  const { watched, view } = await openBoard(roomId);
  await view.locator('h4:text-is("First task")').waitFor();
  // Made through MCP on the other process, while the board's poll waits on this one.
  await elsewhere("add_task", { roomId, title: "Appears on the board", agentId: "planner" });
  await view.locator('h4:text-is("Appears on the board")').waitFor({ timeout: CHANGE_MS });
  await elsewhere("heartbeat", { roomId, agentId: "newcomer", statusText: "just arrived" });
  await view.locator('#b-people-list strong:text-is("newcomer")').waitFor({ timeout: CHANGE_MS });
  expect(watched.problems).toEqual([]);
  await watched.close();
});

test("an approval decided and a message sent from the board are the person's", async () => {
  const roomId = newRoomId();
  await elsewhere("heartbeat", { roomId, agentId: "backend" });
  const approval = await elsewhere("request_approval", {
    roomId,
    agentId: "backend",
    action: "Run the migration on staging",
  });
  const { watched, view } = await openBoard(roomId);
  await view.locator('.approval h3:text-is("Run the migration on staging")').waitFor();
  await view.locator(`#note-${approval.id}`).fill("go ahead");
  await view.locator('.approval button:text-is("Approve")').click();
  await view.locator(".approval").waitFor({ state: "detached", timeout: CHANGE_MS });
  expect(await elsewhere("get_approval", { roomId, approvalId: approval.id })).toMatchObject({
    status: "approved",
    decidedBy: `human:${team.humanId}`,
    note: "go ahead",
  });
  await view.locator('#b-message-to option[value="backend"]').waitFor({ state: "attached" });
  await view.locator("#b-message-to").selectOption("backend");
  await view.locator("#b-message-text").fill("Please add tests for the error paths");
  await view.locator("#b-message-form button").click();
  await view.locator('#b-events-list .type:text-is("human_message")').waitFor({ timeout: CHANGE_MS });
  const summary = await elsewhere("get_my_summary", { roomId, agentId: "backend" });
  expect(summary.messages).toEqual([
    expect.objectContaining({
      from: `human:${team.humanId}`,
      to: "backend",
      text: "Please add tests for the error paths",
    }),
  ]);
  const state = (await watched.page.evaluate("window.__host")) as Record<string, any>;
  expect(state.calls).toEqual(expect.arrayContaining(["decide_approval", "message_agent"]));
  expect(watched.problems).toEqual([]);
  await watched.close();
});

test("work handed over from the board is offered by the person, and they can withdraw it", async () => {
  const roomId = newRoomId();
  const task = await elsewhere("add_task", { roomId, title: "Write the docs", agentId: "planner" });
  await elsewhere("heartbeat", { roomId, agentId: "writer" });
  const { watched, view } = await openBoard(roomId);
  await view.locator(`#b-handoff-task option[value="${task.id}"]`).waitFor({ state: "attached" });
  await view.locator("#b-handoff-task").selectOption(task.id);
  await view.locator('#b-handoff-to option[value="writer"]').waitFor({ state: "attached" });
  await view.locator("#b-handoff-to").selectOption("writer");
  await view.locator("#b-handoff-note").fill("The outline is in ctx-1");
  await view.locator("#b-handoff-form button").click();
  await view.locator(`#b-handoffs-list strong:text-is("human:${team.humanId} → writer")`).waitFor({
    timeout: CHANGE_MS,
  });
  const offered = (await elsewhere("read_events", { roomId, limit: 10 })).find(
    (e: { type: string }) => e.type === "handoff_offered",
  );
  expect(offered.payload.handoff).toMatchObject({
    from: `human:${team.humanId}`,
    offeredBy: `human:${team.humanId}`,
    to: "writer",
    taskIds: [task.id],
  });
  await view.locator('#b-handoffs-list button:text-is("Cancel offer")').click();
  await view.locator("#b-handoffs-list strong").waitFor({ state: "detached", timeout: CHANGE_MS });
  expect(watched.problems).toEqual([]);
  await watched.close();
});
