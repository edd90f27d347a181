/**
 * Suspending an agent from the room view, in chromium (docs/people.md#suspending-an-agent): an approver suspends an
 * agent with a reason from its presence row, the page shows who suspended it, when and why, the agent's calls are
 * refused meanwhile, and Resume restores it; a viewer is offered neither. At 390 px, by keyboard, without a console
 * error or a CSP violation.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser } from "playwright-core";
import { silentLogger } from "../../src/log.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient, postTool } from "../support/http.ts";
import { type InProcessServer, OPERATOR, startInProcess } from "../support/server.ts";
import { newRoomId, sqliteE2e } from "../support/stores.ts";
import {
  callTool,
  launchBrowser,
  openPage,
  provisionWebTeam,
  signIn,
  tabTo,
  type WebTeam,
} from "../support/web.ts";

setDefaultTimeout(60_000);

let store: RoomStore;
let server: InProcessServer;
let browser: Browser;
let team: WebTeam;
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
  bob = (await httpClient(server.url).post("/admin/keys", team.person, { kind: "human", humanId: "bob" }))
    .body.secret;
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await store?.close();
});

test("an approver suspends and resumes an agent from the room view; a viewer is offered neither", async () => {
  const roomId = newRoomId();
  const task = await callTool(server.url, team.agents, "add_task", {
    roomId,
    title: "Build",
    agentId: "builder",
  });
  await callTool(server.url, team.agents, "claim_task", { roomId, taskId: task.id, agentId: "builder" });
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
  await viewer.page.locator("#people li", { hasText: "builder" }).waitFor();
  expect(await viewer.page.locator("details.suspend").count()).toBe(0);
  expect(viewer.problems).toEqual([]);
  await viewer.close();

  const watched = await openPage(browser, { width: 390, height: 900 });
  const { page } = watched;
  await signIn(page, server.url, team.person, `/room/${roomId}`);
  await page.waitForSelector("#live.ok");
  await page.locator("#people li", { hasText: "builder" }).waitFor();
  // By keyboard: open the Suspend disclosure, type why, submit.
  await tabTo(page, "details.suspend summary");
  await page.keyboard.press("Enter");
  await tabTo(page, "#suspend-reason-builder");
  await page.keyboard.type("keeps rewriting the lockfile");
  await page.keyboard.press("Enter");
  const note = page.locator("#people .suspended-note");
  await note.waitFor();
  expect(await note.textContent()).toMatch(
    /^Suspended by human:alice since .+: keeps rewriting the lockfile$/,
  );
  expect((await page.evaluate("document.scrollingElement.scrollWidth")) as number).toBeLessThanOrEqual(390);
  // The task went back; the agent is refused.
  const refused = await postTool(server.url, team.agents, "get_my_summary", { roomId, agentId: "builder" });
  expect(JSON.stringify(await refused.json())).toContain("AGENT_SUSPENDED: agent builder is suspended");
  const plan = await callTool(server.url, team.agents, "read_plan", { roomId });
  expect(plan.tasks[0]).toMatchObject({ status: "pending", owner: null });
  // The timeline tells it.
  await page
    .locator("#timeline", { hasText: "alice suspended builder: keeps rewriting the lockfile" })
    .waitFor();

  await page.click('[data-key="resume-builder"]');
  await note.waitFor({ state: "detached" });
  await callTool(server.url, team.agents, "get_my_summary", { roomId, agentId: "builder" });
  expect(watched.problems).toEqual([]);
  await watched.close();
});

test("the dashboard's Suspended agents panel: suspend, listed with who and why, resume; usable at 390 px", async () => {
  const roomId = newRoomId();
  await callTool(server.url, team.agents, "add_task", { roomId, title: "Build", agentId: "builder" });
  const watched = await openPage(browser, { width: 390, height: 900 });
  const { page } = watched;
  await signIn(page, server.url, team.person, "/dashboard");
  await page.waitForSelector(`#suspend-room option[value="${roomId}"]`, { state: "attached" });
  await page.selectOption("#suspend-room", roomId);
  await page.locator("#suspended", { hasText: "No agent is suspended in this room." }).waitFor();
  await page.fill("#suspend-agent", "builder");
  await page.fill("#suspend-reason", "spending the budget");
  await page.click("#suspend-form button[type=submit]");
  const row = page.locator("#suspended li", { hasText: "builder" });
  await row.waitFor();
  expect(await row.textContent()).toContain("by human:alice since");
  expect(await row.textContent()).toContain("spending the budget");
  const refused = await postTool(server.url, team.agents, "read_plan", { roomId }, undefined, {
    "X-Roomd-Agent": "builder",
  });
  expect(JSON.stringify(await refused.json())).toContain("AGENT_SUSPENDED");
  expect((await page.evaluate("document.scrollingElement.scrollWidth")) as number).toBeLessThanOrEqual(390);
  await page.click(`#suspended button[aria-label="Resume builder in ${roomId}"]`);
  await page.locator("#suspended", { hasText: "No agent is suspended in this room." }).waitFor();
  expect(watched.problems).toEqual([]);
  await watched.close();
});
