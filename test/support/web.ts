/**
 * Browser tests' support: Debian's chromium driven by playwright-core (headless, no sandbox inside the test
 * container, nothing phoning home), one browser per test file and a fresh context (cookies, storage) per person.
 * Every page records console errors, uncaught exceptions and CSP violations, so a test can assert there were none.
 */
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

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

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 30_000 });
}

export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  /** Console errors, page errors and CSP violations seen so far. */
  problems: string[];
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
  await page.addInitScript(REPORT_CSP);
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("dialog", (dialog) => void dialog.accept());
  return { context, page, problems, close: () => context.close() };
}

/** Signs in through the form, as a person would, and waits for the page it leads to. */
export async function signIn(page: Page, base: string, key: string, next?: string): Promise<void> {
  await page.goto(`${base}/login${next ? `?next=${encodeURIComponent(next)}` : ""}`);
  await page.fill("#key", key);
  await Promise.all([page.waitForURL((url) => !url.pathname.startsWith("/login")), page.click("#login-form button")]);
}
