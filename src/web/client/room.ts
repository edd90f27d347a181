/**
 * The live room view. Reads the room's state once (GET /room/:roomId/view), then follows the room's stream — the
 * members' `/rooms/:roomId/stream`, or for a public viewer the payload-free `/room/:roomId/stream` — adding each
 * event to the timeline as it comes and re-reading the state after events and signals (at most one read at a time,
 * a few per second at most). Nothing polls: without a change, the page makes no request. Members' controls post
 * to the people's routes under /rooms/:roomId/ with the session's CSRF token.
 */
import { ROLES, type Role } from "../../protocol/roles.ts";
import { ApiError, api, bindSignOut, toSignIn } from "./api.ts";
import { byId, el, refreshTimes, replace, showError } from "./dom.ts";
import { boardParts } from "./room-board.ts";
import {
  type Actions,
  agentsOf,
  approvalParts,
  contextParts,
  driverParts,
  handoffParts,
  lockParts,
  peopleParts,
  verdictParts,
} from "./room-render.ts";
import { bindSearch } from "./room-search.ts";
import type { ContextVersions, Event, View, Viewer } from "./room-types.ts";
import { render } from "./sections.ts";
import { applyFilter, clearFilter, eventItem, filterNames } from "./timeline.ts";

bindSignOut();

const data = document.body.dataset;
const viewer: Viewer = {
  roomId: data.room ?? "",
  member: data.member === "1",
  me: data.me ?? "",
  operator: data.operator === "1",
  ...((ROLES as readonly string[]).includes(data.role ?? "") ? { role: data.role as Role } : {}),
  fork: data.fork === "1",
};
const base = `/rooms/${encodeURIComponent(viewer.roomId)}`;
/** Most events the page keeps; older ones leave the timeline (the log keeps them). */
const KEEP_EVENTS = 1000;
/** Gap between two re-reads of the state: members see changes sooner; public viewers cost the server less. */
const READ_GAP_MS = viewer.member ? 150 : 1000;

let view: View | undefined;
const events = new Map<number, Event>();
let oldestLoaded: number | undefined;

// ── reading ────────────────────────────────────────────────────────────────────────────────────────────────────

const read = <T>(path: string) =>
  api<T>("GET", path, undefined, viewer.member ? {} : { credentials: "omit" });

function failed(error: unknown): void {
  if (error instanceof ApiError && error.status === 401 && viewer.member) {
    toSignIn();
    return;
  }
  showError(error instanceof Error ? error.message : String(error));
}

async function load(): Promise<void> {
  const next = await read<View>(`/room/${encodeURIComponent(viewer.roomId)}/view`);
  view = next;
  for (const e of next.events) addEvent(e);
  if (oldestLoaded === undefined && next.events.length > 0) {
    oldestLoaded = next.events[next.events.length - 1]?.seq;
    byId("older").hidden = (oldestLoaded ?? 0) <= 1 || !viewer.member;
  }
  draw();
}

let reading = false;
let again = false;
let timer: ReturnType<typeof setTimeout> | undefined;
let lastRead = 0;

/** Re-read the state soon (after a stream event or signal, or an action): one read at a time, spaced. */
function refresh(): void {
  if (reading) {
    again = true;
    return;
  }
  if (timer !== undefined) return;
  timer = setTimeout(run, Math.max(0, lastRead + READ_GAP_MS - Date.now()));
}

async function run(): Promise<void> {
  timer = undefined;
  reading = true;
  lastRead = Date.now();
  try {
    await load();
  } catch (error) {
    failed(error);
  } finally {
    reading = false;
    if (again) {
      again = false;
      refresh();
    }
  }
}

// ── the timeline ───────────────────────────────────────────────────────────────────────────────────────────────

function addEvent(e: Event): void {
  const known = events.get(e.seq);
  if (known && JSON.stringify(known) === JSON.stringify(e)) return;
  events.set(e.seq, e);
  const list = byId<HTMLOListElement>("timeline");
  const item = eventItem(e, viewer, actions);
  const existing = document.getElementById(`evt-${e.seq}`);
  if (existing) {
    existing.replaceWith(item);
    return;
  }
  // Newest at the top: before the first entry with a smaller seq.
  let before: Element | null = null;
  for (const child of list.children) {
    if (Number((child as HTMLElement).dataset.seq) < e.seq) {
      before = child;
      break;
    }
  }
  list.insertBefore(item, before);
  // Trim only as new events come in (older pages a person asked for stay).
  const newest = item === list.firstElementChild;
  while (newest && events.size > KEEP_EVENTS) {
    const oldest = Math.min(...events.keys());
    events.delete(oldest);
    document.getElementById(`evt-${oldest}`)?.remove();
  }
  filterSoon();
}

let filtering = false;
/** Applies the filters once after a batch of additions (a view's hundred events, or one live event). */
function filterSoon(): void {
  if (filtering) return;
  filtering = true;
  queueMicrotask(() => {
    filtering = false;
    applyFilter(byId("timeline"));
  });
}

/** Brings an entry (a task card, a timeline event) into view and gives it the focus, marked for a moment. */
function reveal(node: HTMLElement): void {
  node.scrollIntoView({ block: "center" });
  node.focus();
  node.classList.add("found");
  setTimeout(() => node.classList.remove("found"), 2000);
}

/** An event of the room in the timeline: read from the log when the page does not hold it, shown despite the filters. */
async function showEvent(seq: number): Promise<void> {
  if (!events.has(seq)) {
    const page = await api<{ events: Event[] }>("GET", `${base}/events?before=${seq + 1}&limit=1`);
    const found = page.events[0];
    if (found?.seq !== seq) throw new Error(`Event #${seq} is no longer in the log`);
    addEvent(found);
  }
  const item = byId(`evt-${seq}`);
  if (item.hidden) clearFilter(byId("timeline"));
  reveal(item);
}

/** Events newest first, for the parts that look through them (last steps). */
const newestFirst = () => [...events.values()].sort((a, b) => b.seq - a.seq);

// ── drawing ────────────────────────────────────────────────────────────────────────────────────────────────────

function draw(): void {
  if (!view) return;
  const v = view;
  const forked = byId("forked");
  if (v.info.forkedFrom) {
    const from = v.info.forkedFrom;
    replace(
      forked,
      "Forked from ",
      el("a", { attrs: { href: `/room/${encodeURIComponent(from.roomId)}` } }, from.roomId),
      ` at event #${from.seq}`,
    );
    forked.hidden = false;
  }
  render(byId("driver"), { driver: v.info.driver, agents: agentsOf(v) }, () =>
    driverParts(v, viewer, actions),
  );
  render(byId("approvals"), v.approvals, () => approvalParts(v, viewer, actions));
  render(byId("board"), v.tasks, () => boardParts(v));
  drawPeople();
  render(byId("locks"), [v.locks, v.claims], () => lockParts(v));
  render(byId("context"), v.context, () => contextParts(v, viewer, actions));
  render(byId("verdicts"), v.verdicts, () => verdictParts(v));
  render(byId("handoffs"), v.handoffs, () => handoffParts(v, viewer, actions));
  const agentFilter = byId<HTMLSelectElement>("filter-agent");
  const names = filterNames(
    events.values(),
    v.presence.map((p) => p.agentId),
  );
  const filtered = agentFilter.value;
  render(agentFilter, names, () => [
    el("option", { attrs: { value: "" } }, "everyone"),
    ...names.map((n) =>
      el("option", { attrs: { value: n } }, n.startsWith("human:") ? `${n.slice(6)} (person)` : n),
    ),
  ]);
  agentFilter.value = names.includes(filtered) ? filtered : "";
  const recipients = document.getElementById("message-to") as HTMLSelectElement | null;
  if (recipients) {
    const chosen = recipients.value;
    const agents = agentsOf(v);
    render(recipients, agents, () => [
      el("option", { attrs: { value: "all" } }, "all agents"),
      ...agents.map((a) => el("option", { attrs: { value: a } }, a)),
    ]);
    if ([...recipients.options].some((o) => o.value === chosen)) recipients.value = chosen;
  }
}

function drawPeople(): void {
  if (!view) return;
  const v = view;
  const list = newestFirst();
  const steps = v.presence.map((p) => list.find((e) => e.type === "agent_step" && e.from === p.agentId)?.seq);
  const now = Date.now();
  const states = v.presence.map((p) => [p, p.status === "online" && now - Date.parse(p.lastSeen) > 60_000]);
  render(byId("people"), [states, steps, v.suspended], () => peopleParts(v, list, viewer, actions));
}

// ── the stream ─────────────────────────────────────────────────────────────────────────────────────────────────

function setLive(text: string, ok: boolean): void {
  const node = byId("live");
  node.textContent = text;
  node.classList.toggle("ok", ok);
}

function connect(after: number): void {
  const path = viewer.member
    ? `${base}/stream?after=${after}`
    : `/room/${encodeURIComponent(viewer.roomId)}/stream?after=${after}`;
  const source = new EventSource(path);
  source.onopen = () => setLive("Live", true);
  source.onmessage = (message) => {
    addEvent(JSON.parse(message.data) as Event);
    refresh();
  };
  source.addEventListener("signal", () => refresh());
  source.onerror = () => {
    if (source.readyState !== EventSource.CLOSED) {
      setLive("Reconnecting…", false);
      return;
    }
    // Refused (signed out, the room gone) or the server away: find out by reading, then open a new stream.
    setLive("Disconnected", false);
    source.close();
    const latest = Math.max(0, ...events.keys());
    setTimeout(() => {
      load()
        .then(() => connect(Math.max(latest, view?.head ?? 0)))
        .catch((error: unknown) => {
          failed(error);
          setTimeout(() => connect(latest), 5000);
        });
    }, 2000);
  };
}

// ── actions (members) ──────────────────────────────────────────────────────────────────────────────────────────

async function act(work: () => Promise<unknown>): Promise<void> {
  showError(null);
  try {
    await work();
    refresh();
  } catch (error) {
    failed(error);
  }
}

const actions: Actions = {
  takeWheel: (force) =>
    act(() => api("POST", `${base}/driver`, { action: "take", ...(force ? { force: true } : {}) })),
  releaseWheel: (epoch) => act(() => api("POST", `${base}/driver`, { action: "release", epoch })),
  steer: (form, kind, epoch) =>
    act(async () => {
      const to = (form.elements.namedItem("to") as HTMLSelectElement).value;
      const field = form.elements.namedItem("text") as HTMLInputElement | HTMLTextAreaElement;
      const text = field.value.trim();
      if (text === "") return;
      await api(
        "POST",
        `${base}/${kind}`,
        kind === "steer" ? { epoch, to, text } : { epoch, to, reason: text },
      );
      field.value = "";
    }),
  decide: (id, decision, note) =>
    act(() =>
      api("POST", `${base}/approvals/${encodeURIComponent(id)}`, {
        decision,
        ...(note !== "" ? { note } : {}),
      }),
    ),
  cancelHandoff: (id) =>
    act(() => api("POST", `${base}/handoffs/${encodeURIComponent(id)}`, { action: "cancel" })),
  // Forking asks first, with what a fork is and a name for it (empty: roomd makes one up).
  fork: (seq) => {
    const dialog = byId<HTMLDialogElement>("fork-dialog");
    dialog.dataset.seq = String(seq);
    replace(
      byId("fork-what"),
      `A new room with this room's log up to event #${seq}, and its tasks, context, approvals and handoffs as they stood then. Leases and the wheel are released: nobody drives it until someone takes the wheel.`,
    );
    byId<HTMLInputElement>("fork-name").value = "";
    dialog.showModal();
  },
  suspend: (agentId, form) =>
    act(async () => {
      const field = form.elements.namedItem("reason") as HTMLInputElement;
      const reason = field.value.trim();
      if (reason === "") return;
      await api("POST", `/admin${base}/agents/${encodeURIComponent(agentId)}/suspend`, { reason });
      field.value = "";
    }),
  resume: (agentId) =>
    act(() => api("POST", `/admin${base}/agents/${encodeURIComponent(agentId)}/resume`, {})),
  openContext: (id) =>
    act(async () => {
      const found = await api<ContextVersions>("GET", `${base}/context/${encodeURIComponent(id)}`);
      const dialog = byId<HTMLDialogElement>("context-dialog");
      replace(byId("context-title"), found.entry.summary);
      replace(
        byId("context-body"),
        el(
          "p",
          { class: "meta" },
          `${found.entry.id} · ${found.entry.type} · by ${found.entry.author} · v${found.entry.version}`,
        ),
        el("pre", { class: "json" }, JSON.stringify(found.entry.payload, null, 2)),
        found.history.length > 0 ? el("h3", null, "Earlier versions") : null,
        ...found.history
          .slice()
          .reverse()
          .map((h) =>
            el(
              "details",
              null,
              el("summary", null, `v${h.version} by ${h.author} · ${h.summary}`),
              el("pre", { class: "json" }, JSON.stringify(h.payload, null, 2)),
            ),
          ),
      );
      dialog.showModal();
    }),
};

function bindTimeline(): void {
  const filter = byId<HTMLFormElement>("timeline-filter");
  filter.addEventListener("change", () => applyFilter(byId("timeline")));
  filter.addEventListener("submit", (event) => event.preventDefault());
  bindSearch(
    base,
    {
      showTask: (id) => {
        const card = [...document.querySelectorAll<HTMLElement>("[data-task]")].find(
          (c) => c.dataset.task === id,
        );
        if (card) reveal(card);
        else showError(`Task ${id} is no longer on the board`);
      },
      showEvent: (seq) => act(() => showEvent(seq)),
      openContext: (id) => actions.openContext(id),
    },
    failed,
  );
}

function bindFork(): void {
  const dialog = document.getElementById("fork-dialog") as HTMLDialogElement | null;
  if (!dialog) return;
  byId("fork-cancel").addEventListener("click", () => dialog.close());
  byId<HTMLFormElement>("fork-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const seq = Number(dialog.dataset.seq);
    const name = byId<HTMLInputElement>("fork-name").value.trim();
    // Closed first, so a refusal (a name the team has) shows in the page's error line, not behind the dialog.
    dialog.close();
    void act(async () => {
      const made = await api<{ roomId: string }>("POST", `${base}/fork`, {
        atSeq: seq,
        ...(name !== "" ? { newRoomId: name } : {}),
      });
      location.assign(`/room/${encodeURIComponent(made.roomId)}`);
    });
  });
}

function bindForms(): void {
  const message = document.getElementById("message-form") as HTMLFormElement | null;
  message?.addEventListener("submit", (event) => {
    event.preventDefault();
    const to = byId<HTMLSelectElement>("message-to").value;
    const field = byId<HTMLTextAreaElement>("message-text");
    const text = field.value.trim();
    if (text === "") return;
    void act(async () => {
      await api("POST", `${base}/messages`, { to, text });
      field.value = "";
      field.focus();
    });
  });
  // Enter sends, Shift+Enter makes a new line (the keyboard path: type, Enter).
  document.getElementById("message-text")?.addEventListener("keydown", (event) => {
    const key = event as KeyboardEvent;
    if (key.key === "Enter" && !key.shiftKey && !key.isComposing) {
      key.preventDefault();
      message?.requestSubmit();
    }
  });
  const handoff = document.getElementById("handoff-form") as HTMLFormElement | null;
  handoff?.addEventListener("submit", (event) => {
    event.preventDefault();
    const value = (name: string) => (handoff.elements.namedItem(name) as HTMLInputElement).value.trim();
    const taskIds = value("tasks")
      .split(",")
      .map((t) => t.trim())
      .filter((t) => t !== "");
    void act(async () => {
      await api("POST", `${base}/handoffs`, {
        to: value("to"),
        ...(value("from") !== "" ? { from: value("from") } : {}),
        taskIds,
        note: value("note"),
      });
      handoff.reset();
    });
  });
  const older = byId<HTMLButtonElement>("older");
  older.addEventListener("click", () =>
    act(async () => {
      if (oldestLoaded === undefined) return;
      const page = await api<{ events: Event[] }>("GET", `${base}/events?before=${oldestLoaded}&limit=100`);
      for (const e of page.events) addEvent(e);
      const last = page.events[page.events.length - 1];
      if (last) oldestLoaded = last.seq;
      older.hidden = page.events.length < 100 || oldestLoaded <= 1;
    }),
  );
}

// ── start ──────────────────────────────────────────────────────────────────────────────────────────────────────

bindForms();
bindTimeline();
bindFork();
// Relative times and idle states follow the clock; this redraws locally and sends nothing.
setInterval(() => {
  refreshTimes();
  drawPeople();
}, 15_000);
load()
  .then(() => connect(view?.head ?? 0))
  .catch((error: unknown) => {
    failed(error);
    setLive("Not connected", false);
  });
