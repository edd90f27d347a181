/**
 * Browser tests' support: Debian's chromium driven by playwright-core (headless, no sandbox inside the test
 * container, nothing phoning home), one browser per test file and a fresh context (cookies, storage) per person.
 * Every page records console errors, uncaught exceptions and CSP violations, so a test can assert there were none.
 */
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { httpClient, postTool } from "./http.ts";
import { refuseWhileRegistering } from "./processes.ts";

/** The chromium binary: CHROMIUM_PATH, or Debian's. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * Flags of every launch. Playwright gives each launch a fresh temporary --user-data-dir of its own (and refuses
 * one passed here), so no profile is shared between runs.
 */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** One headless chromium; start it in beforeAll and close it in afterAll. */
export function launchBrowser(): Promise<Browser> {
  refuseWhileRegistering("chromium");
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 30_000 });
}

export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  /** Console errors, page errors and CSP violations seen so far. */
  problems: string[];
  /**
   * Requests roomd refused (4xx), which chromium also reports on the console: a refusal the page shows to the person
   * (a wrong key, a stale epoch) is not a problem of the page, so they are kept apart.
   */
  refused: string[];
  close(): Promise<void>;
}

/** Reports each CSP violation to the console, where the test listens (added before any page script runs). */
const REPORT_CSP = `document.addEventListener("securitypolicyviolation", (e) => {
  console.error("CSP violation: " + e.violatedDirective + " " + e.blockedURI);
});`;

export async function openPage(
  browser: Browser,
  options: { width?: number; height?: number; colorScheme?: "light" | "dark" } = {},
): Promise<WatchedPage> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
    colorScheme: options.colorScheme ?? "light",
  });
  const page = await context.newPage();
  const problems: string[] = [];
  const refused: string[] = [];
  await page.addInitScript(REPORT_CSP);
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    const text = message.text();
    if (/^Failed to load resource: the server responded with a status of 4(0[0-9]|09|13|29)/.test(text))
      refused.push(text);
    else problems.push(`console: ${text}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("dialog", (dialog) => void dialog.accept());
  return { context, page, problems, refused, close: () => context.close() };
}

/** Signs in through the form, as a person would, and waits for the page it leads to. */
export async function signIn(page: Page, base: string, key: string, next?: string): Promise<void> {
  await page.goto(`${base}/login${next ? `?next=${encodeURIComponent(next)}` : ""}`);
  await page.fill("#key", key);
  await Promise.all([
    page.waitForURL((url) => !url.pathname.startsWith("/login")),
    page.click("#login-form button"),
  ]);
}

/** A team of its own for one test file: a person (alice) and an unbound agent key, made through the admin API. */
export interface WebTeam {
  teamId: string;
  /** alice's key: a person's key. */
  person: string;
  humanId: string;
  /** An unbound agent key of the team (names its agent in each call). */
  agents: string;
}

export async function provisionWebTeam(
  base: string,
  operatorSecret: string,
  humanId = "alice",
): Promise<WebTeam> {
  const teamId = `w-${crypto.randomUUID().slice(0, 8)}`;
  const http = httpClient(base);
  const post = async (path: string, secret: string, body: unknown) => {
    const res = await http.post(path, secret, body);
    if (res.status !== 201 || !res.body?.secret)
      throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.secret as string;
  };
  const person = await post("/admin/keys/provision", operatorSecret, { teamId, kind: "human", humanId });
  const agents = await post("/admin/keys", person, { note: "agents of the web tests" });
  return { teamId, person, humanId, agents };
}

/** One MCP tool call with a key, failing the test on a tool error; the parsed result. */
export async function callTool(base: string, secret: string, name: string, args: Record<string, unknown>) {
  const res = await postTool(base, secret, name, args);
  const body = (await res.json()) as { result?: { isError?: boolean; content?: { text: string }[] } };
  const text = body.result?.content?.[0]?.text ?? "";
  if (res.status !== 200 || body.result?.isError) throw new Error(`${name}: ${res.status} ${text}`);
  return JSON.parse(text || "{}");
}

/** Presses Tab until the focused element matches `selector` (a keyboard-only path); fails after `max` presses. */
export async function tabTo(page: Page, selector: string, max = 60): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate(`document.activeElement?.matches(${JSON.stringify(selector)}) === true`)) return;
  }
  throw new Error(`Tab never reached ${selector}`);
}
