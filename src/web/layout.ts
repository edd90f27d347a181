/**
 * The pages' HTML, rendered on the server with Hono's `html` helper (every interpolated value is escaped), and the
 * headers every page carries: a CSP that allows only roomd's own script and style files (no inline code, no
 * `unsafe-*`), nosniff, no referrer, a same-origin opener policy, and no caching.
 */
import type { Context } from "hono";
import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { Assets, Entry } from "./assets.ts";

export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** The security headers of every HTML answer. */
export function pageHeaders(c: Context): void {
  c.header("Content-Security-Policy", PAGE_CSP);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "no-referrer");
  c.header("Cross-Origin-Opener-Policy", "same-origin");
  c.header("Cache-Control", "no-store");
}

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

export interface PageOptions {
  title: string;
  assets: Assets;
  /** The page's bundle. */
  script: Entry;
  /** The session's CSRF token (signed-in pages) or the sign-in form's token. */
  csrf?: string;
  /** data-* attributes of <body>: what the page's script needs to know (room id, who is signed in). */
  data?: Record<string, string>;
  /** Who is signed in, shown in the header with a sign-out button. */
  person?: { humanId: string; teamId: string; operator: boolean };
  /**
   * The page's referrer policy: no-referrer unless a page posts a plain form, whose POST then needs "same-origin"
   * to carry its Origin (browsers send `Origin: null` for a form posted under no-referrer).
   */
  referrer?: "same-origin";
  body: Html;
}

export function page(options: PageOptions): Html {
  const data = Object.entries(options.data ?? {}).map(
    ([name, value]) => html` data-${name.replace(/[^a-z-]/g, "")}="${value}"`,
  );
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="${options.referrer ?? "no-referrer"}">
<link rel="icon" href="data:,">
${options.csrf !== undefined ? html`<meta name="csrf-token" content="${options.csrf}">` : ""}
<title>${options.title} · roomd</title>
<link rel="stylesheet" href="${options.assets.style}">
<script type="module" src="${options.assets.scripts[options.script]}"></script>
</head>
<body${data}>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <a class="brand" href="/">roomd</a>
  ${
    options.person
      ? html`<nav aria-label="Account">
    <a href="/dashboard">Dashboard</a>
    <span class="who" title="team ${options.person.teamId}">${options.person.humanId}${options.person.operator ? " (operator)" : ""}</span>
    <button type="button" id="sign-out" class="link">Sign out</button>
  </nav>`
      : html`<nav aria-label="Account"><a href="/login">Sign in</a></nav>`
  }
</header>
<main id="main" tabindex="-1">
${options.body}
</main>
</body>
</html>`;
}

/** A page that says what went wrong (404 for a room that is not there, …). */
/**
 * What a key scoped to some rooms (or read-only) sees in place of the dashboard, whose administration it may not
 * use: why, and links to the rooms it may open.
 */
export function scopedPage(
  options: Pick<PageOptions, "assets" | "csrf" | "person">,
  text: string,
  rooms: readonly string[],
): Html {
  const title = "Your rooms";
  const links = rooms.map((room) => html`<li><a href="/room/${room}">${room}</a></li>`);
  return page({
    ...options,
    title,
    script: "login",
    body: html`<section class="card narrow" aria-labelledby="h-scoped"><h1 id="h-scoped">${title}</h1><p>${text}</p>${
      rooms.length > 0
        ? html`<ul class="scoped-rooms">${links}</ul>`
        : html`<p>None of its rooms exists yet.</p>`
    }</section>`,
  });
}

export function messagePage(assets: Assets, title: string, text: string): Html {
  return page({
    title,
    assets,
    script: "login",
    body: html`<section class="card narrow"><h1>${title}</h1><p>${text}</p><p><a href="/">Back to roomd</a></p></section>`,
  });
}
