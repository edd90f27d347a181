/**
 * Roles in the pages, in chromium (docs/people.md#roles): the dashboard's Roles panel sets and removes roles and
 * shows the server's refusal; the room view offers a viewer none of the acts their role does not allow, an
 * approver the decisions the approval lets them make, and names an approval's approvers. At 390 px every button of
 * the panel is in reach without sideways scrolling. Every page ends without a console error or a CSP violation.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { silentLogger } from "../../src/log.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { type InProcessServer, OPERATOR, startInProcess } from "../support/server.ts";
import { newRoomId, sqliteE2e } from "../support/stores.ts";
import {
  callTool,
  launchBrowser,
  openPage,
  provisionWebTeam,
  signIn,
  type WatchedPage,
  type WebTeam,
} from "../support/web.ts";

setDefaultTimeout(60_000);

let store: RoomStore;
let server: InProcessServer;
let browser: Browser;
let team: WebTeam;
/** bob: a second person of the team. */
let bob = "";

beforeAll(async () => {
  store = await sqliteE2e().open();
  server = startInProcess(store, silentLogger, {
    KEYS_PER_TEAM: "10000",
    RATE_LIMIT_PER_MINUTE: "1000000",
    OPERATOR_KEYS: `${OPERATOR.teamId}:${OPERATOR.secret}`,
  });
  browser = await launchBrowser();
  team = await provisionWebTeam(server.url, OPERATOR.secret);
  const made = await httpClient(server.url).post("/admin/keys", team.person, {
    kind: "human",
    humanId: "bob",
  });
  bob = made.body.secret;
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await store?.close();
});

/** A room with a task, an approval for anyone (apr-1) and one for carol only (apr-2). */
async function room(): Promise<string> {
  const roomId = newRoomId();
  const tool = (name: string, args: Record<string, unknown>) => callTool(server.url, team.agents, name, args);
  await tool("add_task", { roomId, title: "First task", agentId: "planner" });
  await tool("request_approval", { roomId, agentId: "deployer", action: "deploy" });
  await tool("request_approval", { roomId, agentId: "deployer", action: "migrate", approvers: ["carol"] });
  return roomId;
}

async function clean(watched: WatchedPage): Promise<void> {
  expect(watched.problems).toEqual([]);
  await watched.close();
}

async function noHorizontalScroll(page: Page): Promise<void> {
  expect((await page.evaluate("document.scrollingElement.scrollWidth")) as number).toBeLessThanOrEqual(390);
}

test("the dashboard's Roles panel: set, listed, removed; a refusal shown; usable at 390 px", async () => {
  const roomId = await room();
  const watched = await openPage(browser, { width: 390, height: 900 });
  const { page } = watched;
  await signIn(page, server.url, team.person, "/dashboard");
  await page.waitForSelector(`#roles-room option[value="${roomId}"]`, { state: "attached" });
  await page.selectOption("#roles-room", roomId);
  await page.locator("#roles-summary", { hasText: "names nobody" }).waitFor();
  for (const [person, role] of [
    ["alice", "approver"],
    ["bob", "viewer"],
  ]) {
    await page.fill("#roles-person", person as string);
    await page.selectOption("#roles-role", role as string);
    await page.click("#roles-form button[type=submit]");
    await page.locator("#roles li", { hasText: person as string }).waitFor();
  }
  expect(await page.locator("#roles li").allTextContents()).toEqual([
    "alice approverRemove",
    "bob viewerRemove",
  ]);
  expect(await page.textContent("#roles-summary")).toBe(
    "People not named: viewer. Operators: approver. You: approver.",
  );
  await noHorizontalScroll(page);
  // Removing her own approver role would leave alice a viewer: the server refuses, the page says why.
  const removeAlice = page.getByRole("button", { name: `Remove the role of alice in ${roomId}` });
  await removeAlice.scrollIntoViewIfNeeded();
  await removeAlice.click();
  await page.waitForSelector("#action-error:not([hidden])");
  expect(await page.textContent("#action-error")).toContain("would leave you without the approver role");
  await page.getByRole("button", { name: `Remove the role of bob in ${roomId}` }).click();
  await page.locator("#roles li", { hasText: "bob" }).waitFor({ state: "detached" });
  expect(watched.refused.length).toBe(1);
  await clean(watched);
});

test("the room view offers a viewer nothing to do, and an approver only the approvals meant for them", async () => {
  const roomId = await room();
  const http = httpClient(server.url);
  expect(
    (await http.put(`/admin/rooms/${roomId}/roles/alice`, team.person, { role: "approver" })).status,
  ).toBe(200);
  expect((await http.put(`/admin/rooms/${roomId}/roles/bob`, team.person, { role: "viewer" })).status).toBe(
    200,
  );

  const viewer = await openPage(browser);
  await signIn(viewer.page, server.url, bob, `/room/${roomId}`);
  await viewer.page.waitForSelector("#live.ok");
  await viewer.page.waitForSelector("#approvals article, #approvals li, #approvals > *");
  expect(await viewer.page.textContent("#driver")).toContain(
    "You are a viewer in this room: you read and watch.",
  );
  expect(await viewer.page.locator("#message-form").count()).toBe(0);
  expect(await viewer.page.locator("#handoff-form").count()).toBe(0);
  expect(await viewer.page.locator('[data-key="take"]').count()).toBe(0);
  expect(await viewer.page.locator('[data-key^="approve-"]').count()).toBe(0);
  expect(await viewer.page.locator("button.fork").count()).toBe(0);
  await clean(viewer);

  const approver = await openPage(browser);
  await signIn(approver.page, server.url, team.person, `/room/${roomId}`);
  await approver.page.waitForSelector('[data-key="approve-apr-1"]');
  expect(await approver.page.locator('[data-key="approve-apr-2"]').count()).toBe(0);
  expect(await approver.page.textContent("#approvals")).toContain("for human:carol to decide");
  expect(await approver.page.locator('[data-key="take"]').count()).toBe(1);
  expect(await approver.page.locator("#message-form").count()).toBe(1);
  expect(await approver.page.textContent("#driver")).not.toContain("You are a");
  await clean(approver);
});
