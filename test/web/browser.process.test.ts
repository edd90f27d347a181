/**
 * The web pages in a real browser (Debian's chromium through playwright-core), on SQLite and on Redis: signing in,
 * the room view kept live by changes made on another roomd process, the members' controls (messages, approvals,
 * the wheel and steering, handoffs, forks, context), the public view, the dashboard, XSS inertness, 390 px
 * layout and a keyboard-only path. Every page must end without a console error or a CSP violation.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { silentLogger } from "../../src/log.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import {
  type InProcessServer,
  OPERATOR,
  type SpawnedServer,
  spawnServer,
  startInProcess,
} from "../support/server.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";
import {
  callTool,
  launchBrowser,
  openPage,
  provisionWebTeam,
  signIn,
  tabTo,
  type WatchedPage,
  type WebTeam,
} from "../support/web.ts";

// A browser test clicks through pages: far slower than the 5 s default, never near this.
setDefaultTimeout(60_000);

/**
 * The browser tests run on the embedded store, one Redis backing and PostgreSQL (its live view goes through
 * LISTEN/NOTIFY); not on the other Redis backings (they are slow, and those add nothing a page would see).
 * What differs between stores is how a page is kept live and how it signs in; those tests run on all three. The
 * tests of a page's own behaviour (its forms and controls, escaping, layout, keyboard, origin) run on the embedded
 * store only: the routes they post to are tested on every store by test/e2e/people.test.ts and the web tests.
 */
const STORES = E2E_STORES.filter((make) => ["sqlite", "redis", "postgres"].includes(make().name));
const PAGE_STORE = "sqlite";

const ENV = { KEYS_PER_TEAM: "10000", RATE_LIMIT_PER_MINUTE: "1000000" };
/**
 * How long a page may take to show a change pushed to it. docs/web.md#live-without-polling promises a second; that
 * is measured where timing belongs (`bun bench/live.ts`, docs/benchmarks.md#live-delivery: p99 at most 0.2 s on
 * every store). Here the bound only has to tell a pushed change from one that never comes without a reload (the
 * page's document is checked to be the same one), and a loaded 2-core machine took over a second to deliver one.
 */
const LIVE_MS = 10_000;

/** Every way we know to make a browser run script from a string; `window.__xss` is set if any ever runs. */
const XSS = [
  `<img src=x onerror="window.__xss=1">`,
  `<script>window.__xss=1</script>`,
  `"><svg onload="window.__xss=1">`,
  `javascript:window.__xss=1`,
].join(" ");

async function noHorizontalScroll(page: Page): Promise<void> {
  const width = (await page.evaluate("document.scrollingElement.scrollWidth")) as number;
  expect(width).toBeLessThanOrEqual(390);
}

async function clean(watched: WatchedPage): Promise<void> {
  expect((await watched.page.evaluate("window.__xss")) ?? null).toBeNull();
  expect(watched.problems).toEqual([]);
  await watched.close();
}

for (const make of STORES) {
  const backing = make();
  describe(`the web pages in chromium, on ${backing.name}`, () => {
    /** A test of a page's own behaviour: registered on PAGE_STORE only. */
    const pageTest = backing.name === PAGE_STORE ? test : () => {};
    let store: RoomStore;
    let server: InProcessServer;
    let other: SpawnedServer;
    let browser: Browser;
    let team: WebTeam;
    let base: string;
    const tool = (name: string, args: Record<string, unknown>) =>
      callTool(other.url, team.agents, name, args);

    beforeAll(async () => {
      store = await backing.open();
      server = startInProcess(store, silentLogger, ENV);
      base = server.url;
      other = await spawnServer({
        ...(await backing.env()),
        ...ENV,
        OPERATOR_KEYS: `${OPERATOR.teamId}:${OPERATOR.secret}`,
      });
      browser = await launchBrowser();
      team = await provisionWebTeam(base, OPERATOR.secret);
    });

    afterAll(async () => {
      await browser?.close();
      await other?.stop();
      await server?.stop();
      await store?.close();
    });

    /** A room of the team with a first task, made by an agent on the other process. */
    async function room(): Promise<string> {
      const roomId = newRoomId();
      await tool("add_task", { roomId, title: "First task", agentId: "planner" });
      await tool("heartbeat", { roomId, agentId: "backend", statusText: "starting" });
      return roomId;
    }

    async function openRoom(roomId: string, width = 1280): Promise<WatchedPage> {
      const watched = await openPage(browser, { width });
      await signIn(watched.page, base, team.person, `/room/${roomId}`);
      await watched.page.waitForSelector("#live.ok");
      return watched;
    }

    test("signing in: an agent's key is refused in the form, a person's key opens the dashboard", async () => {
      const watched = await openPage(browser);
      const { page } = watched;
      await page.goto(`${base}/login`);
      await page.fill("#key", team.agents);
      await page.click("#login-form button");
      await page.waitForSelector("#login-error:not([hidden])");
      expect(await page.textContent("#login-error")).toBe(
        "This is an agent key; sign in with a person's key",
      );
      await page.fill("#key", team.person);
      await Promise.all([page.waitForURL(`${base}/dashboard`), page.click("#login-form button")]);
      expect(await page.textContent(".who")).toBe(team.humanId);
      await page.waitForSelector("#live.ok");
      await clean(watched);
    });

    pageTest(
      "a person's scoped key: one room opens that room; several rooms, or read-only, a page of its rooms",
      async () => {
        const [first, second] = [await room(), await room()];
        const http = httpClient(base);
        const keyFor = async (body: Record<string, unknown>) =>
          (await http.post("/admin/keys", team.person, { kind: "human", humanId: team.humanId, ...body }))
            .body.secret as string;
        const watched = await openPage(browser);
        const { page } = watched;
        await signIn(page, base, await keyFor({ rooms: [first] }));
        expect(new URL(page.url()).pathname).toBe(`/room/${first}`);
        await page.waitForSelector("#live.ok");
        // The dashboard sends it back to its room rather than breaking on the admin API.
        await page.goto(`${base}/dashboard`);
        expect(new URL(page.url()).pathname).toBe(`/room/${first}`);
        await page.click("#sign-out");
        await page.waitForURL((url) => url.pathname === "/login");

        await signIn(page, base, await keyFor({ rooms: [first, second], readOnly: true }));
        expect(new URL(page.url()).pathname).toBe("/dashboard");
        expect(await page.textContent("h1")).toBe("Your rooms");
        expect(await page.textContent("main")).toContain("read-only");
        const links = await page.$$eval(".scoped-rooms a", (as) => as.map((a) => a.getAttribute("href")));
        expect(links.sort()).toEqual([`/room/${first}`, `/room/${second}`].sort());
        // By keyboard to a room, which it can read but where it is offered nothing that writes.
        await tabTo(page, `.scoped-rooms a[href="/room/${second}"]`);
        await Promise.all([page.waitForURL(`${base}/room/${second}`), page.keyboard.press("Enter")]);
        await page.waitForSelector("#live.ok");
        expect(await page.locator("#message-form").count()).toBe(0);
        await page.setViewportSize({ width: 390, height: 844 });
        await noHorizontalScroll(page);
        await clean(watched);
      },
    );

    test("a change made through MCP on another roomd process shows without a reload", async () => {
      const roomId = await room();
      const watched = await openRoom(roomId);
      const { page } = watched;
      await page.evaluate("window.__sameDocument = true");
      await tool("add_task", { roomId, title: "Appears live", agentId: "planner" });
      await page.waitForSelector('#board h4:text-is("Appears live")', { timeout: LIVE_MS });
      await tool("heartbeat", { roomId, agentId: "newcomer", statusText: "just arrived" });
      await page.waitForSelector('#people strong:text-is("newcomer")', { timeout: LIVE_MS });
      await tool("acquire_lock", { roomId, resource: "deploy", agentId: "newcomer", ttlSeconds: 60 });
      await page.waitForSelector('#locks strong:text-is("deploy")', { timeout: LIVE_MS });
      await tool("post_event", { roomId, type: "build_passed", from: "newcomer", payload: { tests: 12 } });
      await page.waitForSelector('#timeline .type:text-is("build_passed")', { timeout: LIVE_MS });
      expect(await page.evaluate("window.__sameDocument")).toBe(true);
      await clean(watched);
    });

    pageTest("a message posted in the page reaches the agent's get_my_summary", async () => {
      const roomId = await room();
      const watched = await openRoom(roomId);
      const { page } = watched;
      await page.waitForSelector('#message-to option[value="backend"]', { state: "attached" });
      await page.selectOption("#message-to", "backend");
      await page.fill("#message-text", "Please add tests for the error paths");
      await page.click("#message-form button");
      await page.waitForSelector('#timeline .type:text-is("human_message")');
      const summary = await tool("get_my_summary", { roomId, agentId: "backend" });
      expect(summary.messages).toEqual([
        expect.objectContaining({
          from: `human:${team.humanId}`,
          to: "backend",
          text: "Please add tests for the error paths",
        }),
      ]);
      await clean(watched);
    });

    pageTest("approving a pending approval", async () => {
      const roomId = await room();
      const watched = await openRoom(roomId);
      const { page } = watched;
      const approval = await tool("request_approval", {
        roomId,
        agentId: "backend",
        action: "Run the migration on staging",
        details: { migration: "0042" },
      });
      await page.waitForSelector('.approval h3:text-is("Run the migration on staging")', {
        timeout: LIVE_MS,
      });
      await page.fill(`#note-${approval.id}`, "go ahead");
      await page.click(`.approval button:text-is("Approve")`);
      await page.waitForSelector(".approval", { state: "detached" });
      const decided = await tool("get_approval", { roomId, approvalId: approval.id });
      expect(decided).toMatchObject({
        status: "approved",
        decidedBy: `human:${team.humanId}`,
        note: "go ahead",
      });
      await page.waitForSelector('#timeline .type:text-is("approval_decided")');
      await clean(watched);
    });

    pageTest(
      "taking the wheel, steering the running agent and seeing the steer, interrupting, then releasing",
      async () => {
        const roomId = await room();
        const watched = await openRoom(roomId);
        const { page } = watched;
        await page.click('#driver button:text-is("Take the wheel")');
        await page.waitForSelector('#driver .driver-text:has-text("You drive this room")');
        await page.selectOption("#steer-to-select", "backend");
        await page.fill("#steer-text", "Stop refactoring; fix the failing test first");
        await page.click('#driver button:text-is("Steer")');
        await page.waitForSelector('#timeline .type:text-is("steer")');
        const bridged = await fetch(`${other.url}/rooms/${roomId}/bridge`, {
          method: "POST",
          headers: { Authorization: `Bearer ${team.agents}`, "Content-Type": "application/json" },
          body: JSON.stringify({
            agentId: "backend",
            hook: "PostToolUse",
            step: { tool: "Edit", target: "a.ts", ok: true },
          }),
        }).then((r) => r.json() as Promise<any>);
        expect(bridged.steers).toEqual([
          expect.objectContaining({
            by: `human:${team.humanId}`,
            text: "Stop refactoring; fix the failing test first",
          }),
        ]);
        // The bridge's step shows as the agent's last step.
        await page.waitForSelector('#people .meta:has-text("Last step: Edit a.ts")', { timeout: LIVE_MS });
        await page.selectOption("#interrupt-to-select", "backend");
        await page.fill("#interrupt-text", "Wrong branch");
        await page.click('#driver button:text-is("Interrupt")');
        await page.waitForSelector('#timeline .type:text-is("interrupt")');
        await page.click('#driver button:text-is("Release the wheel")');
        await page.waitForSelector('#driver .driver-text:has-text("Nobody drives this room")');
        await clean(watched);
      },
    );

    pageTest("handing over work, reading context with its history, and forking at an event", async () => {
      const roomId = await room();
      const entry = await tool("write_context", {
        roomId,
        type: "note",
        summary: "Where the auth code lives",
        consuming_agents: [],
        author: "backend",
        payload: { text: "src/auth, version one" },
      });
      await tool("update_context", {
        roomId,
        id: entry.id,
        expectedVersion: entry.version,
        author: "backend",
        payload: { text: "src/auth, version two" },
      });
      const watched = await openRoom(roomId);
      const { page } = watched;
      await page.click('summary:text-is("Hand over work")');
      await page.fill("#handoff-to", "frontend");
      await page.fill("#handoff-tasks", "task-1");
      await page.fill("#handoff-note", "The first task is yours now");
      await page.click('#handoff-form button:text-is("Offer")');
      await page.waitForSelector('#handoffs strong:text-is("human:alice → frontend")');
      const offers = await fetch(`${base}/rooms/${roomId}/handoffs`, {
        headers: { Authorization: `Bearer ${team.person}` },
      }).then((r) => r.json() as Promise<any>);
      expect(offers.handoffs).toEqual([
        expect.objectContaining({
          from: `human:${team.humanId}`,
          to: "frontend",
          taskIds: ["task-1"],
          note: "The first task is yours now",
        }),
      ]);
      await page.click(`#context button:text-is("Where the auth code lives")`);
      await page.waitForSelector("#context-dialog[open]");
      expect(await page.textContent("#context-body")).toContain("src/auth, version two");
      await page.click('#context-dialog details summary:has-text("v1.0")');
      expect(await page.textContent("#context-body")).toContain("src/auth, version one");
      await page.keyboard.press("Escape");
      await page.waitForSelector("#context-dialog:not([open])", { state: "hidden" });
      // Forking asks first: cancelling forks nothing; confirming forks under the name given.
      await page.click("#evt-1 .fork");
      await page.waitForSelector("#fork-dialog[open]");
      expect(await page.textContent("#fork-what")).toContain("up to event #1");
      await page.click("#fork-cancel");
      await page.waitForSelector("#fork-dialog:not([open])", { state: "hidden" });
      // Forked at the event where the person took the wheel: the fork's wheel is free all the same.
      await page.click('#driver button:text-is("Take the wheel")');
      await page.waitForSelector('#driver .driver-text:has-text("You drive this room")');
      const taken = await page.waitForSelector('[id^="evt-"]:has-text("took the wheel")');
      const at = ((await taken.getAttribute("id")) ?? "").slice("evt-".length);
      const forkId = `${roomId}-fork`;
      await page.click(`#evt-${at} .fork`);
      await page.fill("#fork-name", forkId);
      await Promise.all([
        page.waitForURL((url) => url.pathname === `/room/${forkId}`),
        page.click("#fork-confirm"),
      ]);
      await page.waitForSelector('#forked:has-text("Forked from")');
      expect(await page.textContent("#forked")).toBe(`Forked from ${roomId} at event #${at}`);
      await page.waitForSelector('#board h4:text-is("First task")');
      // Nobody drives a fork, the person who made it included: they take the wheel there.
      await page.waitForSelector('#driver .driver-text:has-text("Nobody drives this room")');
      await clean(watched);
    });

    pageTest(
      "the timeline reads as sentences, filters by kind and agent, and search leads to what it found; the board shows waiting tasks and leases",
      async () => {
        const roomId = await room();
        const cart = await tool("add_task", {
          roomId,
          title: "Build the cart page",
          depends_on: ["task-1"],
          agentId: "planner",
        });
        await tool("claim_task", { roomId, taskId: "task-1", agentId: "backend" });
        const asked = await tool("post_event", {
          roomId,
          type: "question",
          from: "frontend",
          to: "backend",
          payload: { text: "Which endpoint returns the cart total?" },
        });
        const said = await fetch(`${base}/rooms/${roomId}/messages`, {
          method: "POST",
          headers: { Authorization: `Bearer ${team.person}`, "Content-Type": "application/json" },
          body: JSON.stringify({ to: "frontend", text: "Use the v2 endpoint" }),
        }).then((r) => r.json() as Promise<{ seq: number }>);
        const watched = await openRoom(roomId);
        const { page } = watched;
        await page.waitForSelector(`#evt-${said.seq}`);
        const sentence = (seq: number) => page.textContent(`#evt-${seq} .sentence`);
        expect(await sentence(2)).toBe(`planner added ${cart.id} “Build the cart page” (depends on task-1)`);
        expect(await sentence(asked.seq)).toBe(
          "frontend asked backend: Which endpoint returns the cart total?",
        );
        expect(await sentence(said.seq)).toBe(`${team.humanId} wrote to frontend: Use the v2 endpoint`);
        // The payload stays one click away.
        await page.click(`#evt-${asked.seq} summary`);
        expect(await page.textContent(`#evt-${asked.seq} pre`)).toContain(
          '"text": "Which endpoint returns the cart total?"',
        );

        // The board: the task waiting on task-1 says so, and every task is counted once.
        expect(await page.textContent('[data-column="waiting"] h4')).toBe("Build the cart page");
        expect(await page.textContent('[data-column="waiting"] .waits')).toBe(
          "Waits on task-1 “First task” (in progress)",
        );
        expect(await page.textContent('[data-column="in_progress"] .lease')).toMatch(
          /^Leased by backend · ends in \d+ min$/,
        );
        const counts = await page.$$eval("#board .count", (nodes) => nodes.map((n) => Number(n.textContent)));
        expect(counts.reduce((a, b) => a + b, 0)).toBe(2);

        // Filters: by kind, then by agent; hidden entries are counted.
        await page.uncheck('input[name="kind"][value="work"]');
        expect(await page.isHidden("#evt-1")).toBe(true);
        expect(await page.isVisible(`#evt-${asked.seq}`)).toBe(true);
        await page.check('input[name="kind"][value="work"]');
        await page.selectOption("#filter-agent", "backend");
        expect(await page.isVisible(`#evt-${asked.seq}`)).toBe(true);
        expect(await page.isHidden(`#evt-${said.seq}`)).toBe(true);
        expect(await page.textContent("#filter-note")).toMatch(/^\d+ of \d+ events hidden by the filters\.$/);

        // Search, by keyboard: the event hit brings its entry back into view (clearing the filters) with the focus.
        await page.focus("#search-q");
        await page.keyboard.type("v2 endpoint");
        await page.keyboard.press("Enter");
        await page.waitForSelector(`#search-results button[data-hit="evt-${said.seq}"]`);
        await page.focus(`#search-results button[data-hit="evt-${said.seq}"]`);
        await page.keyboard.press("Enter");
        await page.waitForFunction(`document.activeElement?.id === "evt-${said.seq}"`);
        expect(await page.isVisible(`#evt-${said.seq}`)).toBe(true);
        await page.fill("#search-q", "cart page");
        await page.keyboard.press("Enter");
        await page.click(`#search-results button[data-hit="${cart.id}"]`);
        await page.waitForFunction(`document.activeElement?.dataset.task === "${cart.id}"`);
        await clean(watched);
      },
    );

    pageTest(
      "at 390 px every action of the room view is on screen: approve, steer, interrupt, send, search, fork",
      async () => {
        const roomId = await room();
        await tool("request_approval", {
          roomId,
          agentId: "backend",
          action: "Deploy the cart",
          details: {},
        });
        const watched = await openRoom(roomId, 390);
        const { page } = watched;
        await page.waitForSelector('.approval button:text-is("Approve")');
        await page.click('#driver button:text-is("Take the wheel")');
        await page.waitForSelector('#driver button:text-is("Steer")');
        await noHorizontalScroll(page);
        const offScreen = await page.$$eval("main button", (buttons) =>
          buttons
            .filter((b) => b.getClientRects().length > 0)
            .filter((b) => {
              const r = b.getBoundingClientRect();
              return r.left < 0 || r.right > 390;
            })
            .map((b) => b.textContent),
        );
        expect(offScreen).toEqual([]);
        const shown = await page.$$eval("main button", (buttons) =>
          buttons.filter((b) => b.getClientRects().length > 0).map((b) => b.textContent),
        );
        for (const action of [
          "Approve",
          "Reject",
          "Steer",
          "Interrupt",
          "Release the wheel",
          "Send",
          "Search",
          "Fork here",
        ])
          expect(shown).toContain(action);
        await clean(watched);
      },
    );

    test("a public viewer sees the room without payloads, kept live by the public stream", async () => {
      const roomId = await room();
      await tool("post_event", {
        roomId,
        type: "secret_stuff",
        from: "backend",
        payload: { token: "payload-only-for-members" },
      });
      const watched = await openPage(browser);
      const { page } = watched;
      await page.goto(`${base}/room/${roomId}`);
      await page.waitForSelector("#live.ok");
      await page.waitForSelector('#board h4:text-is("First task")');
      expect(await page.locator("#message-form").count()).toBe(0);
      expect(await page.locator("#timeline details").count()).toBe(0);
      expect(await page.content()).not.toContain("payload-only-for-members");
      await tool("add_task", { roomId, title: "Seen by the public", agentId: "planner" });
      await page.waitForSelector('#board h4:text-is("Seen by the public")', { timeout: 2 * LIVE_MS });
      await clean(watched);
    });

    pageTest(
      "every user-controlled field stays inert text (member and public views), and 390 px needs no horizontal scroll",
      async () => {
        const roomId = newRoomId();
        const long = `${XSS}${"x".repeat(300)}`;
        const task = await tool("add_task", {
          roomId,
          title: `T ${XSS}`.slice(0, 200),
          description: long,
          agentId: "planner",
        });
        await tool("write_context", {
          roomId,
          type: "note",
          summary: `C ${XSS}`,
          consuming_agents: [],
          author: "backend",
          payload: { text: long, [XSS]: XSS },
        });
        await tool("heartbeat", { roomId, agentId: "backend", statusText: `S ${XSS}`.slice(0, 200) });
        await tool("post_event", {
          roomId,
          type: `<img src=x onerror=window.__xss=1>`,
          from: "backend",
          payload: { [XSS]: long },
        });
        await tool("request_approval", {
          roomId,
          agentId: "backend",
          action: `A ${XSS}`.slice(0, 200),
          details: { why: XSS },
        });
        await tool("record_verdict", {
          roomId,
          agentId: "reviewer",
          verdict: "fail",
          summary: `V ${XSS}`,
          details: long,
          ref: `https://example.com/pull/1?"><img src=x onerror=window.__xss=1>`,
        });
        await tool("claim_files", {
          roomId,
          agentId: "backend",
          paths: ["src/a.ts"],
          reason: `R ${XSS}`.slice(0, 200),
        });
        await tool("offer_handoff", {
          roomId,
          from: "backend",
          to: "frontend",
          taskIds: [task.id],
          note: `H ${XSS}`,
        });
        for (const width of [1280, 390]) {
          const watched = await openRoom(roomId, width);
          const { page } = watched;
          await page.fill("#message-text", `M ${XSS}`);
          await page.click("#message-form button");
          await page.waitForSelector('#timeline .type:text-is("human_message")');
          // Open every disclosure, so payloads, details and descriptions are in the document too.
          await page.evaluate(`document.querySelectorAll("details").forEach((d) => { d.open = true; })`);
          const text = (await page.textContent("main")) ?? "";
          for (const shown of [`T ${XSS}`.slice(0, 200), `C ${XSS}`, `V ${XSS}`, `H ${XSS}`, `S ${XSS}`]) {
            expect(text).toContain(shown);
          }
          // The message is shown in its event's payload, as JSON text.
          expect(text).toContain(JSON.stringify(`M ${XSS}`));
          expect(await page.locator("main img, main svg, main script").count()).toBe(0);
          if (width === 390) await noHorizontalScroll(page);
          await clean(watched);
        }
        const publicView = await openPage(browser, { width: 390 });
        await publicView.page.goto(`${base}/room/${roomId}`);
        await publicView.page.waitForSelector("#live.ok");
        expect(await publicView.page.locator("main img, main svg, main script").count()).toBe(0);
        await noHorizontalScroll(publicView.page);
        await clean(publicView);
      },
    );

    pageTest("R2-11 the dashboard shows when each room expires if nobody uses it", async () => {
      const roomId = await room();
      const watched = await openPage(browser, { width: 390 });
      const { page } = watched;
      await signIn(page, base, team.person);
      await page.waitForSelector(`#rooms tr[data-room="${roomId}"]`);
      // At 390 px the row is a card: the column's heading leads the cell (its data-label).
      await page.waitForSelector('#rooms th:text-is("Expires")', { state: "attached" });
      // ROOM_TTL_DAYS is 30 here: the room was just used.
      const expires = page.locator(`#rooms tr[data-room="${roomId}"] td[data-label="Expires"] time`);
      expect(await expires.textContent()).toBe("in 30 d");
      const at = Date.parse((await expires.getAttribute("datetime")) as string);
      expect(Math.abs(at - (Date.now() + 30 * 86_400_000))).toBeLessThan(5 * 60_000);
      await noHorizontalScroll(page);
      await clean(watched);
    });

    test("the dashboard: rooms kept live, a key's secret shown once with a copy button, the connect panel; 390 px", async () => {
      const roomId = await room();
      const watched = await openPage(browser);
      const { page } = watched;
      await signIn(page, base, team.person);
      await page.waitForSelector("#live.ok");
      await page.waitForSelector(`#rooms tr[data-room="${roomId}"]`);
      await tool("heartbeat", { roomId, agentId: "late-joiner" });
      await page.waitForSelector(`#rooms tr[data-room="${roomId}"] td:has-text("late-joiner")`, {
        timeout: 2 * LIVE_MS,
      });
      const fresh = newRoomId();
      await page.fill("#new-room", fresh);
      await page.click("#room-form button");
      await page.waitForSelector(`#rooms tr[data-room="${fresh}"]`);
      await page.fill("#key-id", "ci-bot");
      await page.fill("#key-days", "30");
      await page.click("#key-form button");
      await page.waitForSelector("#key-secret:not([hidden])");
      const secret = await page.inputValue("#key-secret input");
      expect(secret).toMatch(/^rk_/);
      expect(await page.locator('#key-secret button:text-is("Copy")').count()).toBe(1);
      await page.waitForSelector('#keys td:text-is("agent ci-bot")');
      // The Days field gave the key 30 days; Expires and Last used are columns of the list.
      const heads = await page.$$eval("#keys thead th", (ths) => ths.map((th) => th.textContent));
      expect(heads).toEqual(["Key", "For", "Note", "Created", "Expires", "Last used", "Actions"]);
      const botRow = page.locator('#keys tr:has(td:text-is("agent ci-bot"))');
      const ends = Date.parse(
        (await botRow.locator("td:nth-of-type(4) time").getAttribute("datetime")) as string,
      );
      expect(Math.abs(ends - (Date.now() + 30 * 86_400_000))).toBeLessThan(5 * 60_000);
      expect(await botRow.locator("td:nth-of-type(5)").textContent()).toBe("never");
      expect(await page.content()).not.toContain(team.person);
      // The new key works as the agent it is bound to.
      expect((await callTool(base, secret, "whoami", {})).boundAgentId).toBe("ci-bot");
      await page.selectOption("#connect-room", roomId);
      await page.fill("#connect-agent", "ci-bot");
      await page.click("#connect-form button");
      await page.waitForSelector('#connect-out h3:has-text("Claude Code")');
      const connect = (await page.textContent("#connect-out")) ?? "";
      for (const expected of [
        "Cursor",
        "Codex CLI",
        "Gemini CLI",
        `${base}/mcp?profile=compact`,
        "roomctl hook PreToolUse",
        "`summary`",
      ]) {
        expect(connect).toContain(expected);
      }
      await page.setViewportSize({ width: 390, height: 844 });
      await noHorizontalScroll(page);
      // The tables fold into cards: no table scrolls sideways, every Delete and Revoke is on screen, and no id,
      // time or button is broken over lines.
      const sideways = await page.$$eval(".table-wrap", (boxes) =>
        boxes.filter((b) => b.scrollWidth > b.clientWidth).map((b) => b.querySelector("table")?.id),
      );
      expect(sideways).toEqual([]);
      const actions = await page.$$eval(".table-wrap button", (buttons) =>
        buttons.map((b) => {
          const r = b.getBoundingClientRect();
          return { text: b.textContent, onScreen: r.left >= 0 && r.right <= 390 && r.width > 0 };
        }),
      );
      expect(actions.map((a) => a.text)).toContain("Delete");
      expect(actions.map((a) => a.text)).toContain("Revoke");
      expect(actions.filter((a) => !a.onScreen)).toEqual([]);
      const broken = await page.evaluate(`(() => {
        const out = [];
        for (const node of document.querySelectorAll(".table-wrap code, .table-wrap time, .table-wrap button, .table-wrap a")) {
          if (new Set([...node.getClientRects()].map((r) => Math.round(r.top))).size > 1) out.push(node.textContent);
        }
        return out;
      })()`);
      expect(broken).toEqual([]);
      await clean(watched);
    });

    pageTest("keyboard only: sign in, open a room from the dashboard, send a message", async () => {
      const roomId = await room();
      const watched = await openPage(browser);
      const { page } = watched;
      await page.goto(`${base}/login`);
      await tabTo(page, "#key");
      await page.keyboard.type(team.person);
      await Promise.all([page.waitForURL(`${base}/dashboard`), page.keyboard.press("Enter")]);
      await page.waitForSelector(`#rooms a[href="/room/${roomId}"]`);
      await tabTo(page, `#rooms a[href="/room/${roomId}"]`);
      await Promise.all([page.waitForURL(`${base}/room/${roomId}`), page.keyboard.press("Enter")]);
      await page.waitForSelector("#live.ok");
      await tabTo(page, "#message-text");
      await page.keyboard.type("Sent without a mouse");
      await page.keyboard.press("Enter");
      await page.waitForSelector('#timeline .type:text-is("human_message")');
      const summary = await tool("get_my_summary", { roomId, agentId: "backend" });
      expect(summary.messages.map((m: { text: string }) => m.text)).toEqual(["Sent without a mouse"]);
      await clean(watched);
    });

    pageTest("a page of another origin cannot post with a signed-in person's cookie", async () => {
      const roomId = await room();
      const watched = await openRoom(roomId);
      // The attacker's page: same host name, another port (same site, another origin), and another site.
      const evil = Bun.serve({
        port: 0,
        hostname: "127.0.0.1",
        fetch: () =>
          new Response(
            `<!doctype html><script>
              for (const target of ${JSON.stringify([base, base.replace("127.0.0.1", "localhost")])}) {
                fetch(target + "/rooms/${roomId}/messages", { method: "POST", credentials: "include",
                  headers: { "Content-Type": "application/json", "X-CSRF-Token": "guess" },
                  body: JSON.stringify({ to: "all", text: "forged" }) }).catch(() => {});
                fetch(target + "/rooms/${roomId}/messages", { method: "POST", credentials: "include", mode: "no-cors",
                  headers: { "Content-Type": "text/plain" }, body: JSON.stringify({ to: "all", text: "forged" }) }).catch(() => {});
              }
              document.title = "sent";
            </script>`,
            { headers: { "Content-Type": "text/html" } },
          ),
      });
      try {
        const attacker = await watched.context.newPage();
        await attacker.goto(`http://127.0.0.1:${evil.port}/`);
        await attacker.waitForFunction("document.title === 'sent'");
        await Bun.sleep(500);
        await attacker.close();
      } finally {
        evil.stop(true);
      }
      const log = await tool("read_events", { roomId, limit: 100 });
      expect(JSON.stringify(log)).not.toContain("forged");
      await watched.close();
    });
  });
}
