/**
 * The dashboard: the team's rooms (kept live by GET /dashboard/stream, which says which room changed), keys and
 * invites (secrets shown once, with a copy button), the connect panel, and for operators the teams. Every change
 * goes through the /admin routes with the session's CSRF token.
 */
import type { Presence } from "../../protocol/records.ts";
import { ApiError, api, bindSignOut, toSignIn } from "./api.ts";
import { loadRoles } from "./dashboard-roles.ts";
import { loadSuspended } from "./dashboard-suspended.ts";
import { byId, el, refreshTimes, replace, showError, time } from "./dom.ts";
import { labelCells } from "./tables.ts";

bindSignOut();

interface RoomRow {
  roomId: string;
  lastActivity: string | null;
  /** When the room expires unless used again (ROOM_TTL_DAYS after its last activity); null: never. */
  expiresAt: string | null;
  taskCount: number;
  tasksByStatus: Record<string, number>;
  driver: { holder: string | null };
  agents: Presence[];
}
interface KeyRow {
  keyId: string;
  createdAt: string;
  note?: string;
  boundAgentId?: string;
  humanId?: string;
  hint: string;
  expiresAt?: string;
  lastUsedAt?: string;
  rooms?: string[];
  readOnly?: boolean;
  agentRateLimitPerMinute?: number;
  rotatedTo?: string;
}

/** A key's end: never, the time, or that it is over (an expired key stays listed until revoked). */
const keyEnd = (k: KeyRow): string | Node => {
  if (k.expiresAt === undefined) return "never";
  return Date.parse(k.expiresAt) <= Date.now() ? "expired" : time(k.expiresAt);
};

/** Who a key is for, what it may reach when it is scoped, and its own agent budget when it has one. */
const keyFor = (k: KeyRow): string => {
  const who = k.humanId
    ? `person ${k.humanId}`
    : k.boundAgentId
      ? `agent ${k.boundAgentId}`
      : "team (unbound)";
  const scope = [
    k.rooms ? `rooms ${k.rooms.join(", ")}` : "",
    k.readOnly ? "read-only" : "",
    k.agentRateLimitPerMinute !== undefined ? `${k.agentRateLimitPerMinute} calls/min per agent` : "",
  ].filter(Boolean);
  return scope.length > 0 ? `${who}; ${scope.join("; ")}` : who;
};
interface InviteRow {
  tokenId: string;
  expiresAt: string;
  hint: string;
  humanId?: string;
}

const operator = document.body.dataset.operator === "1";
const rooms = new Map<string, RoomRow>();

function failed(error: unknown): void {
  if (error instanceof ApiError && error.status === 401) {
    toSignIn();
    return;
  }
  showError(error instanceof Error ? error.message : String(error));
}

async function act(work: () => Promise<unknown>): Promise<void> {
  showError(null);
  try {
    await work();
  } catch (error) {
    failed(error);
  }
}

/** A secret shown once: a read-only field to select, and a copy button. */
function showSecret(box: HTMLElement, label: string, secret: string, note: string): void {
  const field = el("input", {
    class: "wide",
    attrs: { readonly: "", value: secret, "aria-label": label, spellcheck: "false" },
  });
  const copy = el("button", { attrs: { type: "button" } }, "Copy");
  copy.addEventListener("click", async () => {
    field.select();
    try {
      await navigator.clipboard.writeText(secret);
      copy.textContent = "Copied";
    } catch {
      copy.textContent = "Press Ctrl+C";
    }
  });
  replace(
    box,
    el("p", null, el("strong", null, label), ` — ${note}`),
    el("div", { class: "row-form" }, field, copy),
  );
  box.hidden = false;
  field.focus();
  field.select();
}

// ── rooms ──────────────────────────────────────────────────────────────────────────────────────────────────────

function tasksText(r: RoomRow): string {
  const parts = Object.entries(r.tasksByStatus)
    .filter(([, n]) => n > 0)
    .map(([status, n]) => `${n} ${status.replace("_", " ")}`);
  return parts.length > 0 ? parts.join(", ") : "no tasks";
}

function drawRooms(): void {
  const body = byId("rooms").querySelector("tbody") as HTMLTableSectionElement;
  const sorted = [...rooms.values()].sort((a, b) =>
    (b.lastActivity ?? "").localeCompare(a.lastActivity ?? ""),
  );
  replace(
    body,
    ...(sorted.length === 0
      ? [
          el(
            "tr",
            null,
            el(
              "td",
              { attrs: { colspan: "6" } },
              "No rooms yet: create one, or let an agent's first write make it.",
            ),
          ),
        ]
      : sorted.map((r) => {
          const online = r.agents.filter((a) => a.status === "online");
          return el(
            "tr",
            { attrs: { "data-room": r.roomId } },
            el(
              "th",
              { attrs: { scope: "row" } },
              el("a", { attrs: { href: `/room/${encodeURIComponent(r.roomId)}` } }, r.roomId),
            ),
            el("td", null, online.length > 0 ? online.map((a) => a.agentId).join(", ") : "none"),
            el("td", null, tasksText(r)),
            el("td", null, r.lastActivity ? time(r.lastActivity) : "—"),
            el("td", null, r.expiresAt ? time(r.expiresAt) : "never"),
            el(
              "td",
              null,
              el(
                "button",
                {
                  class: "danger small",
                  attrs: { type: "button", "aria-label": `Delete room ${r.roomId}` },
                  on: {
                    click: () =>
                      act(async () => {
                        const ok = window.confirm(`Delete room ${r.roomId} and everything in it?`);
                        if (!ok) return;
                        await api("DELETE", `/admin/rooms/${encodeURIComponent(r.roomId)}`);
                        rooms.delete(r.roomId);
                        drawRooms();
                        fillRoomChoices();
                      }),
                  },
                },
                "Delete",
              ),
            ),
          );
        })),
  );
  labelCells(byId<HTMLTableElement>("rooms"));
}

/** The room pickers of the invite and connect panels. */
function fillRoomChoices(): void {
  for (const id of ["invite-room", "connect-room", "roles-room", "suspend-room"]) {
    const select = byId<HTMLSelectElement>(id);
    const chosen = select.value;
    replace(select, ...[...rooms.keys()].sort().map((r) => el("option", { attrs: { value: r } }, r)));
    if (rooms.has(chosen)) select.value = chosen;
  }
  void loadInvites();
  void act(loadRoles);
  void act(loadSuspended);
}

async function loadRooms(): Promise<void> {
  const answer = await api<{ rooms: RoomRow[] }>("GET", "/admin/overview");
  rooms.clear();
  for (const r of answer.rooms) rooms.set(r.roomId, r);
  drawRooms();
  fillRoomChoices();
}

async function loadRoom(roomId: string): Promise<void> {
  try {
    rooms.set(roomId, await api<RoomRow>("GET", `/admin/overview/${encodeURIComponent(roomId)}`));
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error;
    rooms.delete(roomId);
  }
  drawRooms();
}

/** The row header of a key or an invite: its id and the hint of its secret. */
const idCell = (id: string, hint: string) =>
  el("th", { attrs: { scope: "row" } }, el("code", null, id), " ", el("span", { class: "meta" }, hint));

/** The cell of a key's or an invite's Revoke button (`label` names it for assistive technology). */
const revokeCell = (label: string, revoke: () => Promise<void>) =>
  el(
    "td",
    null,
    el(
      "button",
      {
        class: "danger small",
        attrs: { type: "button", "aria-label": label },
        on: { click: () => act(revoke) },
      },
      "Revoke",
    ),
  );

// ── keys ───────────────────────────────────────────────────────────────────────────────────────────────────────

async function loadKeys(): Promise<void> {
  const { keys } = await api<{ keys: KeyRow[] }>("GET", "/admin/keys");
  const body = byId("keys").querySelector("tbody") as HTMLTableSectionElement;
  replace(
    body,
    keys.length === 0
      ? el("tr", null, el("td", { attrs: { colspan: "7" } }, "No keys in the store yet."))
      : null,
    ...keys.map((k) =>
      el(
        "tr",
        null,
        idCell(k.keyId, k.hint),
        el("td", null, keyFor(k)),
        el(
          "td",
          null,
          k.rotatedTo ? `rotated to ${k.rotatedTo}${k.note ? `; ${k.note}` : ""}` : (k.note ?? ""),
        ),
        el("td", null, time(k.createdAt)),
        el("td", null, keyEnd(k)),
        el("td", null, k.lastUsedAt ? time(k.lastUsedAt) : "never"),
        revokeCell(`Revoke key ${k.keyId}`, async () => {
          if (!window.confirm(`Revoke ${k.keyId}? It stops working at once.`)) return;
          await api("DELETE", `/admin/keys/${encodeURIComponent(k.keyId)}`);
          await loadKeys();
        }),
      ),
    ),
  );
  labelCells(byId<HTMLTableElement>("keys"));
}

// ── OAuth grants ───────────────────────────────────────────────────────────────────────────────────────────────

interface GrantRow {
  grantId: string;
  humanId: string;
  clientId: string;
  clientName: string;
  roomId: string;
  rooms?: string[];
  readOnly?: true;
  agentId: string;
  expiresAt: string;
}

async function loadGrants(): Promise<void> {
  const { grants } = await api<{ grants: GrantRow[] }>("GET", "/admin/oauth/grants");
  const body = byId("oauth-grants").querySelector("tbody") as HTMLTableSectionElement;
  replace(
    body,
    grants.length === 0
      ? el("tr", null, el("td", { attrs: { colspan: "6" } }, "No client connected with OAuth."))
      : null,
    ...grants.map((g) =>
      el(
        "tr",
        null,
        el("td", { title: g.clientId }, g.clientName),
        el("td", null, `person ${g.humanId}`),
        el("td", null, `${(g.rooms ?? [g.roomId]).join(", ")}${g.readOnly ? " (read-only)" : ""}`),
        el("td", null, g.agentId),
        el("td", null, time(g.expiresAt)),
        revokeCell(`Revoke ${g.clientName} (${g.grantId})`, async () => {
          if (!window.confirm(`Disconnect ${g.clientName}? Its tokens stop working at once.`)) return;
          await api("DELETE", `/admin/oauth/grants/${encodeURIComponent(g.grantId)}`);
          await loadGrants();
        }),
      ),
    ),
  );
  labelCells(byId<HTMLTableElement>("oauth-grants"));
}

// ── invites ────────────────────────────────────────────────────────────────────────────────────────────────────

async function loadInvites(): Promise<void> {
  const roomId = byId<HTMLSelectElement>("invite-room").value;
  const body = byId("invites").querySelector("tbody") as HTMLTableSectionElement;
  if (roomId === "") {
    replace(body);
    return;
  }
  const { invites } = await api<{ invites: InviteRow[] }>(
    "GET",
    `/admin/rooms/${encodeURIComponent(roomId)}/invites`,
  );
  replace(
    body,
    invites.length === 0
      ? el("tr", null, el("td", { attrs: { colspan: "4" } }, "No live invites to this room."))
      : null,
    ...invites.map((i) =>
      el(
        "tr",
        null,
        idCell(i.tokenId, i.hint),
        el("td", null, i.humanId ? `person ${i.humanId}` : "agent"),
        el("td", null, time(i.expiresAt)),
        revokeCell(`Revoke invite ${i.tokenId}`, async () => {
          await api(
            "DELETE",
            `/admin/rooms/${encodeURIComponent(roomId)}/invites/${encodeURIComponent(i.tokenId)}`,
          );
          await loadInvites();
        }),
      ),
    ),
  );
  labelCells(byId<HTMLTableElement>("invites"));
}

// ── connect ────────────────────────────────────────────────────────────────────────────────────────────────────

interface Connect {
  keyEnv: string;
  clients: { name: string; file: string; text: string }[];
  instructions: string;
  hooks: { file: string; text: string; env: string };
}

function block(title: string, where: string, text: string): HTMLElement {
  const pre = el("pre", { class: "code" }, text);
  const copy = el(
    "button",
    { class: "secondary small", attrs: { type: "button", "aria-label": `Copy ${title}` } },
    "Copy",
  );
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(text);
      copy.textContent = "Copied";
    } catch {
      copy.textContent = "Select and copy";
    }
  });
  return el(
    "section",
    { class: "snippet" },
    el("h3", null, title, " ", el("span", { class: "meta" }, where)),
    pre,
    copy,
  );
}

async function showConnect(): Promise<void> {
  const roomId = byId<HTMLSelectElement>("connect-room").value;
  const agentId = byId<HTMLInputElement>("connect-agent").value.trim();
  const c = await api<Connect>(
    "GET",
    `/dashboard/connect?roomId=${encodeURIComponent(roomId)}&agentId=${encodeURIComponent(agentId)}`,
  );
  replace(
    byId("connect-out"),
    el(
      "p",
      null,
      `1. Create a key for the agent ${agentId} (Keys, above) and put its secret in that agent's environment as ${c.keyEnv}, never in a committed file. 2. Add one of these to the agent's client. 3. Give it the instructions.`,
    ),
    ...c.clients.map((client) => block(client.name, client.file, client.text)),
    block("Agent instructions", "AGENTS.md / CLAUDE.md", c.instructions),
    block("Claude Code hooks (the bridge)", c.hooks.file, c.hooks.text),
    block("The bridge's environment", "the agent's shell", c.hooks.env),
  );
}

// ── teams (operators) ──────────────────────────────────────────────────────────────────────────────────────────

/** Where a team's keys come from, in words (GET /admin/teams says environment or store). */
const TEAM_SOURCE: Record<string, string> = {
  environment: "keys from the environment",
  store: "keys kept in the store",
};

async function loadTeams(): Promise<void> {
  if (!operator) return;
  const { teams } = await api<{ teams: { teamId: string; source: string }[] }>("GET", "/admin/teams");
  replace(
    byId("teams"),
    ...teams.map((t) =>
      el(
        "li",
        null,
        el("code", null, t.teamId),
        el("span", { class: "meta" }, ` · ${TEAM_SOURCE[t.source] ?? t.source}`),
      ),
    ),
  );
}

// ── forms ──────────────────────────────────────────────────────────────────────────────────────────────────────

function onSubmit(id: string, work: (form: HTMLFormElement) => Promise<unknown>): void {
  const form = document.getElementById(id) as HTMLFormElement | null;
  form?.addEventListener("submit", (event) => {
    event.preventDefault();
    void act(() => work(form));
  });
}

const field = (form: HTMLFormElement, name: string) =>
  (form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement).value.trim();

onSubmit("room-form", async (form) => {
  const roomId = field(form, "roomId");
  const made = await api<{ roomId: string }>("POST", "/admin/rooms", roomId !== "" ? { roomId } : {});
  form.reset();
  await loadRoom(made.roomId);
  fillRoomChoices();
});

onSubmit("key-form", async (form) => {
  const kind = field(form, "kind");
  const id = field(form, "id");
  const note = field(form, "note");
  const days = field(form, "days");
  const made = await api<{ keyId: string; secret: string }>("POST", "/admin/keys", {
    ...(kind === "human" ? { kind: "human", humanId: id } : { boundAgentId: id }),
    ...(note !== "" ? { note } : {}),
    ...(days !== "" ? { expiresIn: Math.round(Number(days) * 86_400) } : {}),
  });
  form.reset();
  showSecret(
    byId("key-secret"),
    `Key ${made.keyId}`,
    made.secret,
    "shown only now; store it where it will be used.",
  );
  await loadKeys();
});

onSubmit("invite-form", async (form) => {
  const roomId = field(form, "room");
  const kind = field(form, "kind");
  const id = field(form, "id");
  const days = Number(field(form, "days") || "7");
  const made = await api<{ tokenId: string; token: string }>(
    "POST",
    `/admin/rooms/${encodeURIComponent(roomId)}/invite`,
    {
      expiresIn: Math.round(days * 86_400),
      ...(kind === "human" ? { kind: "human", humanId: id } : id !== "" ? { agentId: id } : {}),
    },
  );
  showSecret(
    byId("invite-secret"),
    `Invite ${made.tokenId}`,
    made.token,
    "shown only now; it opens this room only.",
  );
  await loadInvites();
});

onSubmit("connect-form", () => showConnect());

onSubmit("team-form", async (form) => {
  const teamId = field(form, "teamId");
  const humanId = field(form, "humanId");
  const made = await api<{ keyId: string; secret: string }>("POST", "/admin/keys/provision", {
    teamId,
    ...(humanId !== "" ? { kind: "human", humanId } : {}),
  });
  form.reset();
  showSecret(
    byId("team-secret"),
    `First key of ${teamId} (${made.keyId})`,
    made.secret,
    "shown only now; give it to the team.",
  );
  await loadTeams();
});

byId("invite-room").addEventListener("change", () => void act(loadInvites));

// ── live ───────────────────────────────────────────────────────────────────────────────────────────────────────

function connect(): void {
  const live = byId("live");
  const source = new EventSource("/dashboard/stream");
  source.onopen = () => {
    live.textContent = "Live";
    live.classList.add("ok");
  };
  source.addEventListener("room", (message) => {
    const { roomId } = JSON.parse((message as MessageEvent).data) as { roomId: string };
    void act(() => loadRoom(roomId));
  });
  source.addEventListener("rooms", () => void act(loadRooms));
  source.onerror = () => {
    live.classList.remove("ok");
    if (source.readyState !== EventSource.CLOSED) {
      live.textContent = "Reconnecting…";
      return;
    }
    live.textContent = "Disconnected";
    source.close();
    setTimeout(() => {
      loadRooms()
        .then(connect)
        .catch((error: unknown) => {
          failed(error);
          setTimeout(connect, 5000);
        });
    }, 2000);
  };
}

setInterval(refreshTimes, 15_000);
// Each part loads on its own: one failing (shown in the error line) does not keep the rest, or the stream, away.
void Promise.allSettled([loadRooms(), loadKeys(), loadGrants(), loadTeams()]).then((results) => {
  for (const result of results) if (result.status === "rejected") failed(result.reason);
  connect();
});
