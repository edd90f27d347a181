/**
 * `bun run screenshots`: the pictures of docs/images/ — the room view (desktop and 390 px wide) and the dashboard —
 * taken from a real roomd (its own SQLite file in a temporary directory) with a demo room filled through MCP, in
 * Debian's chromium (CHROMIUM_PATH, or /usr/bin/chromium).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { httpClient } from "../test/support/http.ts";
import { spawnServer } from "../test/support/server.ts";
import { launchBrowser, openPage, signIn } from "../test/support/web.ts";

const OUT = join(import.meta.dir, "..", "docs", "images");
const AGENTS = "secret-demo-agents-0123456789";
const PERSON = "secret-demo-alice-0123456789";
const ROOM = "checkout-rewrite";

const dir = mkdtempSync(join(tmpdir(), "roomd-shots-"));
const server = await spawnServer({
  SQLITE_PATH: join(dir, "roomd.sqlite"),
  API_KEYS: `demo:${AGENTS}`,
  OPERATOR_KEYS: `demo:${PERSON}:alice`,
  RATE_LIMIT_PER_MINUTE: "100000",
});
const http = httpClient(server.url);
const call = async (name: string, args: Record<string, unknown>) => {
  const answer = await http.tool(AGENTS, name, { roomId: ROOM, ...args });
  if (answer.isError) throw new Error(`${name}: ${answer.text}`);
  return JSON.parse(answer.text || "{}");
};

try {
  const t1 = await call("add_task", { title: "Design the payments API", agentId: "architect", priority: 1 });
  const t2 = await call("add_task", {
    title: "Implement POST /checkout",
    agentId: "architect",
    depends_on: [t1.id],
    description: "Idempotent by order id; 201 with the payment intent.",
  });
  const t3 = await call("add_task", {
    title: "Checkout form and validation",
    agentId: "architect",
    depends_on: [t1.id],
  });
  await call("add_task", {
    title: "End-to-end test of the happy path",
    agentId: "architect",
    depends_on: [t2.id, t3.id],
  });
  await call("add_task", { title: "Load test at 200 rps", agentId: "architect" });
  await call("update_task", {
    taskId: t1.id,
    status: "in_progress",
    owner: "architect",
    expectedVersion: 1,
    agentId: "architect",
  });
  await call("update_task", {
    taskId: t1.id,
    status: "done",
    expectedVersion: 2,
    agentId: "architect",
    note: "contract published",
  });
  await call("write_context", {
    type: "api_contract",
    summary: "Payments API v1: POST /checkout creates a payment intent",
    consuming_agents: ["backend-claude", "frontend-codex"],
    author: "architect",
    payload: {
      service: "payments",
      version: "1.0",
      endpoints: [
        {
          method: "POST",
          path: "/checkout",
          response: "201 {intentId}",
          auth_required: true,
          description: "Start a payment",
        },
      ],
    },
  });
  await call("write_context", {
    type: "arch_decision",
    summary: "Use idempotency keys derived from the order id",
    consuming_agents: ["backend-claude"],
    author: "architect",
    payload: {
      title: "Idempotency",
      decision: "order id",
      rationale: "retries are safe",
      alternatives: [],
      consequences: [],
    },
  });
  await call("claim_task", { taskId: t2.id, agentId: "backend-claude" });
  await call("claim_task", { taskId: t3.id, agentId: "frontend-codex" });
  await call("claim_files", {
    agentId: "backend-claude",
    paths: ["src/payments/**"],
    reason: "checkout endpoint",
  });
  await call("claim_files", { agentId: "frontend-codex", paths: ["web/checkout/*.tsx"], reason: "form" });
  await call("acquire_lock", { resource: "db-migrations", agentId: "backend-claude", ttlSeconds: 300 });
  await call("heartbeat", { agentId: "backend-claude", statusText: "writing the handler and its tests" });
  await call("heartbeat", { agentId: "frontend-codex", statusText: "wiring the form to the API" });
  await call("heartbeat", { agentId: "reviewer", statusText: "idle" });
  await call("post_event", {
    type: "build_passed",
    from: "backend-claude",
    payload: { branch: "checkout", tests: 128 },
  });
  await call("request_approval", {
    agentId: "backend-claude",
    action: "Run the payments migration on staging",
    details: { migration: "0042_payment_intents", tables: ["payment_intents"], reversible: true },
  });
  await call("record_verdict", {
    agentId: "reviewer",
    verdict: "pass",
    summary: "Contract is consistent; error codes documented.",
    ref: "https://git.example.com/shop/pull/17",
  });
  await http.post(`/rooms/${ROOM}/messages`, PERSON, {
    to: "backend-claude",
    text: "Please keep the handler under 50 lines.",
  });

  const browser = await launchBrowser();
  try {
    const desktop = await openPage(browser, { width: 1280, height: 900 });
    await signIn(desktop.page, server.url, PERSON, `/room/${ROOM}`);
    await desktop.page.waitForSelector("#live.ok");
    await desktop.page.screenshot({ path: join(OUT, "room-view.png"), fullPage: true });
    const narrow = await openPage(browser, { width: 390, height: 844 });
    await signIn(narrow.page, server.url, PERSON, `/room/${ROOM}`);
    await narrow.page.waitForSelector("#live.ok");
    await narrow.page.screenshot({ path: join(OUT, "room-view-390.png"), fullPage: true });
    await desktop.page.goto(`${server.url}/dashboard`);
    await desktop.page.waitForSelector("#live.ok");
    await desktop.page.screenshot({ path: join(OUT, "dashboard.png"), fullPage: true });
    for (const p of [desktop, narrow]) if (p.problems.length > 0) console.error(p.problems.join("\n"));
  } finally {
    await browser.close();
  }
  console.log(`screenshots written to ${OUT}`);
} finally {
  await server.stop();
}
