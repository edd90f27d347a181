/**
 * The pages' markup: landmarks, headings, labelled forms and the empty containers the page scripts fill (with
 * createElement and textContent only). Every interpolated value goes through Hono's `html`, which escapes it.
 */
import { html } from "hono/html";

/**
 * The live room view: everyone who may see the room gets the board and the rest; members get the controls, the
 * message and handoff forms only when their role lets them post (`message`) and hand over (`handoff`).
 */
export function roomBody({
  roomId,
  member,
  message = member,
  handoff = member,
}: {
  roomId: string;
  member: boolean;
  message?: boolean;
  handoff?: boolean;
}) {
  return html`<div class="room">
  <div class="room-head">
    <h1>Room <span class="room-id">${roomId}</span></h1>
    <p id="forked" class="muted" hidden></p>
    <p id="live" class="live" role="status" aria-live="polite">Connecting…</p>
    ${member ? "" : html`<p class="muted">Watching as the public: payloads, notes and details are hidden. <a href="/login?next=/room/${roomId}">Sign in</a> to see them and take part.</p>`}
  </div>
  <section id="driver" class="banner" aria-label="Driver"></section>
  <p id="action-error" class="error" role="alert" hidden></p>
  <section aria-labelledby="h-approvals"><h2 id="h-approvals">Pending approvals</h2><div id="approvals" class="stack"></div></section>
  <section aria-labelledby="h-board"><h2 id="h-board">Tasks</h2><div id="board" class="board"></div></section>
  <div class="columns">
    <div class="col-main">
      ${
        message
          ? html`<section aria-labelledby="h-message"><h2 id="h-message">Message</h2>
        <form id="message-form" class="row-form">
          <div class="field"><label for="message-to">To</label>
            <select id="message-to" name="to"><option value="all">all agents</option></select></div>
          <div class="field wide"><label for="message-text">Message</label>
            <textarea id="message-text" name="text" rows="2" required maxlength="8000"></textarea></div>
          <button type="submit">Send</button>
        </form>
      </section>`
          : ""
      }
      <section aria-labelledby="h-timeline"><h2 id="h-timeline">Timeline</h2>
        ${
          member
            ? html`<form id="search-form" class="row-form" role="search" aria-label="Search the room">
          <div class="field wide"><label for="search-q">Search tasks, context and events</label>
            <input id="search-q" name="q" type="search" required maxlength="500" placeholder="words to find" autocomplete="off"></div>
          <button type="submit">Search</button>
        </form>
        <div id="search-results" class="search-results" aria-live="polite" hidden></div>`
            : ""
        }
        <form id="timeline-filter" class="filters" aria-label="Filter the timeline">
          <div class="field"><label for="filter-agent">Agent</label>
            <select id="filter-agent" name="agent" data-key="filter-agent"><option value="">everyone</option></select></div>
          <fieldset class="kinds"><legend>Show</legend>
            <label><input type="checkbox" name="kind" value="work" checked> work</label>
            <label><input type="checkbox" name="kind" value="talk" checked> talk</label>
            <label><input type="checkbox" name="kind" value="people" checked> people</label>
            <label><input type="checkbox" name="kind" value="system" checked> system</label>
          </fieldset>
        </form>
        <p id="filter-note" class="muted" role="status" hidden></p>
        <ol id="timeline" class="timeline" reversed></ol>
        <button type="button" id="older" class="secondary" hidden>Show older events</button>
      </section>
    </div>
    <div class="col-side">
      <section aria-labelledby="h-people"><h2 id="h-people">Who is here</h2><ul id="people" class="list"></ul></section>
      <section aria-labelledby="h-locks"><h2 id="h-locks">Locks and file claims</h2><ul id="locks" class="list"></ul></section>
      <section aria-labelledby="h-context"><h2 id="h-context">Context</h2><ul id="context" class="list"></ul></section>
      <section aria-labelledby="h-verdicts"><h2 id="h-verdicts">Verdicts</h2><ul id="verdicts" class="list"></ul></section>
      <section aria-labelledby="h-handoffs"><h2 id="h-handoffs">Handoffs</h2><ul id="handoffs" class="list"></ul>
      ${
        handoff
          ? html`<details class="panel"><summary>Hand over work</summary>
          <form id="handoff-form" class="stack-form">
            <div class="field"><label for="handoff-to">To (an agent id, or any)</label>
              <input id="handoff-to" name="to" required pattern="[A-Za-z0-9_.:\\-]{1,64}" placeholder="an agent id, or any" spellcheck="false" autocomplete="off"></div>
            <div class="field"><label for="handoff-from">On behalf of (an agent id; empty for the room)</label>
              <input id="handoff-from" name="from" pattern="[A-Za-z0-9_.:\\-]{1,64}" spellcheck="false" autocomplete="off"></div>
            <div class="field"><label for="handoff-tasks">Tasks (ids, comma-separated)</label>
              <input id="handoff-tasks" name="tasks" placeholder="task-3, task-4" spellcheck="false" autocomplete="off"></div>
            <div class="field"><label for="handoff-note">Note</label>
              <textarea id="handoff-note" name="note" rows="3" required maxlength="4000"></textarea></div>
            <button type="submit">Offer</button>
          </form>
        </details>`
          : ""
      }
      </section>
    </div>
  </div>
</div>
${
  member
    ? html`<dialog id="fork-dialog" aria-labelledby="fork-title">
  <h2 id="fork-title">Fork the room</h2>
  <form id="fork-form" class="stack-form">
    <p id="fork-what"></p>
    <div class="field"><label for="fork-name">New room id (empty: generated)</label>
      <input id="fork-name" name="newRoomId" pattern="[a-z0-9][a-z0-9_\\-]{1,63}" placeholder="my-project-retry" spellcheck="false" autocomplete="off"></div>
    <div class="controls"><button type="submit" id="fork-confirm">Fork</button>
      <button type="button" id="fork-cancel" class="secondary">Cancel</button></div>
  </form>
</dialog>`
    : ""
}
<dialog id="context-dialog" aria-labelledby="context-title">
  <h2 id="context-title">Context</h2>
  <div id="context-body"></div>
  <form method="dialog"><button type="submit">Close</button></form>
</dialog>`;
}

/** The team's dashboard: rooms, keys, invites, the connect panel, and teams for operators. */
export function dashboardBody({ teamId, operator }: { teamId: string; operator: boolean }) {
  return html`<div class="dashboard">
  <h1>Team <span class="team-id">${teamId}</span></h1>
  <p id="live" class="live" role="status" aria-live="polite">Loading…</p>
  <p id="action-error" class="error" role="alert" hidden></p>
  <section aria-labelledby="h-rooms" class="card">
    <h2 id="h-rooms">Rooms</h2>
    <form id="room-form" class="row-form">
      <div class="field"><label for="new-room">New room id (empty: generated)</label>
        <input id="new-room" name="roomId" pattern="[a-z0-9][a-z0-9_\\-]{1,63}" placeholder="my-project" spellcheck="false" autocomplete="off"></div>
      <button type="submit">Create room</button>
    </form>
    <div class="table-wrap"><table id="rooms"><caption class="sr">The team's rooms</caption>
      <thead><tr><th scope="col">Room</th><th scope="col">Agents online</th><th scope="col">Tasks</th><th scope="col">Last activity</th><th scope="col">Expires</th><th scope="col"><span class="sr">Actions</span></th></tr></thead>
      <tbody></tbody></table></div>
  </section>
  <section aria-labelledby="h-keys" class="card">
    <h2 id="h-keys">Keys</h2>
    <form id="key-form" class="row-form">
      <div class="field"><label for="key-kind">For</label>
        <select id="key-kind" name="kind"><option value="agent">an agent</option><option value="human">a person</option></select></div>
      <div class="field"><label for="key-id">Agent id / person's id</label>
        <input id="key-id" name="id" required pattern="[A-Za-z0-9_.:@\\-]{1,64}" placeholder="an agent id, or a person's name" spellcheck="false" autocomplete="off"></div>
      <div class="field"><label for="key-note">Note</label>
        <input id="key-note" name="note" maxlength="200" placeholder="what the key is for (optional)" autocomplete="off"></div>
      <div class="field"><label for="key-days">Days</label>
        <input id="key-days" name="days" type="number" min="1" max="3650" placeholder="never expires" aria-describedby="key-days-hint"></div>
      <p id="key-days-hint" class="sr">Leave Days empty for a key that never expires.</p>
      <button type="submit">Create key</button>
    </form>
    <div id="key-secret" class="secret" hidden></div>
    <div class="table-wrap"><table id="keys"><caption class="sr">The team's keys</caption>
      <thead><tr><th scope="col">Key</th><th scope="col">For</th><th scope="col">Note</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col">Last used</th><th scope="col"><span class="sr">Actions</span></th></tr></thead>
      <tbody></tbody></table></div>
  </section>
  <section aria-labelledby="h-oauth" class="card">
    <h2 id="h-oauth">Connected clients</h2>
    <p class="meta">Clients a person allowed on roomd's consent page (OAuth): each acts as one agent in one room until revoked.</p>
    <div class="table-wrap"><table id="oauth-grants"><caption class="sr">The team's OAuth grants</caption>
      <thead><tr><th scope="col">Client</th><th scope="col">Allowed by</th><th scope="col">Rooms</th><th scope="col">Agent</th><th scope="col">Ends</th><th scope="col"><span class="sr">Actions</span></th></tr></thead>
      <tbody></tbody></table></div>
  </section>
  <section aria-labelledby="h-invites" class="card">
    <h2 id="h-invites">Invites</h2>
    <form id="invite-form" class="row-form">
      <div class="field"><label for="invite-room">Room</label>
        <select id="invite-room" name="room" required></select></div>
      <div class="field"><label for="invite-kind">For</label>
        <select id="invite-kind" name="kind"><option value="agent">an agent</option><option value="human">a person</option></select></div>
      <div class="field"><label for="invite-id">Agent id / person's id (optional for an agent)</label>
        <input id="invite-id" name="id" pattern="[A-Za-z0-9_.:@\\-]{1,64}" placeholder="an agent id, or a person's name" spellcheck="false" autocomplete="off"></div>
      <div class="field"><label for="invite-days">Days</label>
        <input id="invite-days" name="days" type="number" min="1" max="90" value="7"></div>
      <button type="submit">Create invite</button>
    </form>
    <div id="invite-secret" class="secret" hidden></div>
    <div class="table-wrap"><table id="invites"><caption class="sr">Live invites of the chosen room</caption>
      <thead><tr><th scope="col">Invite</th><th scope="col">For</th><th scope="col">Expires</th><th scope="col"><span class="sr">Actions</span></th></tr></thead>
      <tbody></tbody></table></div>
  </section>
  <section aria-labelledby="h-roles" class="card">
    <h2 id="h-roles">Roles</h2>
    <p class="muted">A viewer reads and watches; a member also posts messages, hands work over and forks; an approver
      also decides approvals and takes the wheel. Operators are approvers everywhere. A room that names nobody makes
      every person an approver; once it names someone, people not named are viewers, or take the role of <code>*</code>.</p>
    <form id="roles-form" class="row-form">
      <div class="field"><label for="roles-room">Room</label>
        <select id="roles-room" name="room" required></select></div>
      <div class="field"><label for="roles-person">Person's id, or * for everyone not named</label>
        <input id="roles-person" name="person" required pattern="[*]|[A-Za-z0-9_.@\\-]{1,64}" placeholder="e.g. alice" spellcheck="false" autocomplete="off"></div>
      <div class="field"><label for="roles-role">Role</label>
        <select id="roles-role" name="role"><option value="viewer">viewer</option><option value="member">member</option><option value="approver">approver</option></select></div>
      <button type="submit">Set role</button>
    </form>
    <p id="roles-summary" class="meta" role="status"></p>
    <ul id="roles" class="stack plain" aria-label="Roles in the chosen room"></ul>
  </section>
  <section aria-labelledby="h-suspended" class="card">
    <h2 id="h-suspended">Suspended agents</h2>
    <p class="muted">Suspending stops one agent in one room: its tasks go back, its file claims and locks are released,
      and every call it makes there is refused with who suspended it and why, until you resume it. Approvers of the
      room and operators may.</p>
    <form id="suspend-form" class="row-form">
      <div class="field"><label for="suspend-room">Room</label>
        <select id="suspend-room" name="room" required></select></div>
      <div class="field"><label for="suspend-agent">Agent's id</label>
        <input id="suspend-agent" name="agent" required pattern="[A-Za-z0-9_.:\\-]{1,64}" placeholder="e.g. builder" spellcheck="false" autocomplete="off"></div>
      <div class="field"><label for="suspend-reason">Why</label>
        <input id="suspend-reason" name="reason" required maxlength="500" autocomplete="off"></div>
      <button type="submit">Suspend</button>
    </form>
    <ul id="suspended" class="stack plain" aria-label="Agents suspended in the chosen room"></ul>
  </section>
  <section aria-labelledby="h-connect" class="card">
    <h2 id="h-connect">Connect an agent</h2>
    <form id="connect-form" class="row-form">
      <div class="field"><label for="connect-room">Room</label>
        <select id="connect-room" name="room" required></select></div>
      <div class="field"><label for="connect-agent">Agent id</label>
        <input id="connect-agent" name="agent" required pattern="[A-Za-z0-9_.:\\-]{1,64}" placeholder="the agent's id, e.g. backend" spellcheck="false" autocomplete="off"></div>
      <button type="submit">Show configuration</button>
    </form>
    <div id="connect-out" class="stack"></div>
  </section>
  ${
    operator
      ? html`<section aria-labelledby="h-teams" class="card">
    <h2 id="h-teams">Teams</h2>
    <form id="team-form" class="row-form">
      <div class="field"><label for="team-id">New team id</label>
        <input id="team-id" name="teamId" required pattern="[a-z0-9][a-z0-9\\-]{2,31}" placeholder="3-32 of a-z, 0-9, -" spellcheck="false" autocomplete="off"></div>
      <div class="field"><label for="team-human">First key for (a person's id; empty: an agent key)</label>
        <input id="team-human" name="humanId" pattern="[A-Za-z0-9_.@\\-]{1,64}" placeholder="empty: an agent key" spellcheck="false" autocomplete="off"></div>
      <button type="submit">Provision team</button>
    </form>
    <div id="team-secret" class="secret" hidden></div>
    <ul id="teams" class="list"></ul>
  </section>`
      : ""
  }
</div>`;
}
