/**
 * The consent page (docs/security.md#oauth): who asks (the client's own name, marked as its claim; its metadata
 * document's URL; where it returns to), the rooms to pick (one or several of the team's rooms the person's own sign-in
 * reaches), whether the client may only read, and the agent id to act as. A plain form that
 * works without script, every value escaped, posting the authorization request's parameters back with the session's
 * CSRF token (oauth-authorize.ts checks them all again).
 */
import { html } from "hono/html";
import { csrfToken } from "../access/sessions.ts";
import type { OAuthClient } from "../http/oauth/clients.ts";
import type { assets } from "./assets.ts";
import { page } from "./layout.ts";
import type { SignedIn } from "./shared.ts";

/** The authorization request's parameters, as the form carries them back. */
export const PARAMS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "state",
  "code_challenge",
  "code_challenge_method",
  "resource",
  "scope",
] as const;
export type Params = Partial<Record<(typeof PARAMS)[number], string>>;

/** An authorization request that passed every check: the client, its exact redirect URI, the parameters. */
export interface ConsentRequest {
  client: OAuthClient;
  redirectUri: string;
  params: Params;
}

export function consentPage(
  person: SignedIn,
  checked: ConsentRequest,
  rooms: string[],
  pageAssets: Awaited<ReturnType<typeof assets>>,
  problem?: string,
) {
  // A person signed in read-only can give no more than that: the box is fixed, and the grant is read-only anyway.
  const onlyReads = person.principal.readOnly === true;
  const { client, params, redirectUri } = checked;
  const { principal } = person;
  const hidden = PARAMS.filter((name) => params[name] !== undefined).map(
    (name) => html`<input type="hidden" name="${name}" value="${params[name]}">`,
  );
  return page({
    title: "Connect a client",
    assets: pageAssets,
    script: "login",
    referrer: "same-origin",
    person: {
      humanId: person.session.humanId,
      teamId: principal.teamId,
      operator: principal.kind === "operator",
    },
    body: html`<section class="card narrow" aria-labelledby="consent-title">
  <h1 id="consent-title">Connect ${client.name}?</h1>
  <p>A client calling itself <strong>${client.name}</strong> asks to act in the rooms you pick as one agent, with
  that agent's tools, until it is revoked (on the dashboard) or goes unused for 30 days.</p>
  <p class="meta">${
    client.clientId.startsWith("https://")
      ? html`Client: <code>${client.clientId}</code><br>`
      : html`Client: registered by itself; its name is its own claim.<br>`
  }
  Returns to: <code>${new URL(redirectUri).origin}</code></p>
  ${problem ? html`<p class="error" role="alert">${problem}</p>` : ""}
  ${
    rooms.length === 0
      ? html`<p class="empty">Your team has no room yet: create one first, then start again from the client.</p>`
      : html`<form id="consent-form" class="stack-form" method="post" action="/oauth/authorize">
    ${hidden}
    <input type="hidden" name="csrf" value="${csrfToken(person.id)}">
    <fieldset class="kinds">
      <legend>Rooms it may act in</legend>
      ${rooms.map(
        (r, i) =>
          html`<label><input type="checkbox" name="room" value="${r}" id="${i === 0 ? "consent-room" : `consent-room-${i}`}"${rooms.length === 1 ? " checked" : ""}> ${r}</label>`,
      )}
    </fieldset>
    <div class="kinds">
      <label><input type="checkbox" id="consent-readonly" name="readOnly" value="on"${
        onlyReads ? " checked disabled" : ""
      }> Read only: it may look but not write${onlyReads ? " (your own sign-in is read-only)" : ""}</label>
    </div>
    <div class="field">
      <label for="consent-agent">Act as agent</label>
      <input id="consent-agent" name="agent" required maxlength="64" pattern="[A-Za-z0-9_.:\\-]{1,64}"
        spellcheck="false" autocomplete="off" value="oauth-client" title="1-64 chars of A-Z, a-z, 0-9, _ . : -">
    </div>
    <button type="submit" name="decision" value="allow">Allow</button>
    <button type="submit" name="decision" value="deny" class="secondary" formnovalidate>Deny</button>
  </form>`
  }
</section>`,
  });
}
