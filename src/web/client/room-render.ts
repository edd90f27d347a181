/**
 * The room view's parts, built from the view's data (createElement and textContent only): the driver banner,
 * pending approvals, the task board, who is here, locks and file claims, context, verdicts, handoffs and timeline
 * entries. Controls for members call the actions the page passes in.
 */
import { type Act, mayAct } from "../../protocol/roles.ts";
import { type Child, el, json, time } from "./dom.ts";
import type { Event, View, Viewer } from "./room-types.ts";

export interface Actions {
  takeWheel(force: boolean): void;
  releaseWheel(epoch: number): void;
  steer(form: HTMLFormElement, kind: "steer" | "interrupt", epoch: number): void;
  decide(approvalId: string, decision: "approve" | "reject", note: string): void;
  cancelHandoff(handoffId: string): void;
  fork(seq: number): void;
  openContext(contextId: string): void;
  /** Suspends the agent in the room with the reason typed in `form`, or resumes it (protocol/suspensions.ts). */
  suspend(agentId: string, form: HTMLFormElement): void;
  resume(agentId: string): void;
}

/** A part's line for "nothing here". */
export const empty = (text: string) => el("p", { class: "muted empty" }, text);

/** The agents the page can address: everyone present, and every task owner who is not a person. */
export function agentsOf(view: Pick<View, "presence" | "tasks">): string[] {
  const names = new Set<string>();
  for (const p of view.presence) names.add(p.agentId);
  for (const t of view.tasks) if (t.owner && !t.owner.startsWith("human:")) names.add(t.owner);
  return [...names].sort();
}

/** A label above its control, as one grid cell of a form. */
export const field = (label: string, control: HTMLElement, wide = false) =>
  el(
    "div",
    { class: wide ? "field wide" : "field" },
    el("label", { attrs: { for: control.id } }, label),
    control,
  );

function agentSelect(key: string, label: string, agents: string[]): HTMLElement {
  const select = el(
    "select",
    { id: `${key}-select`, attrs: { name: "to", "data-key": key, required: "" } },
    ...agents.map((a) => el("option", { attrs: { value: a } }, a)),
  );
  return field(label, select);
}

/** Whether the signed-in person's role lets them do `act` here (the server checks again). */
const may = (viewer: Viewer, act: Act): boolean =>
  viewer.member && viewer.me !== "" && viewer.role !== undefined && mayAct(viewer.role, act);

/** What a person who is not an approver here may do, said once on the driver's banner (nothing for approvers). */
function roleNote(viewer: Viewer): Child {
  const { role } = viewer;
  if (!viewer.member || role === undefined || role === "approver") return null;
  return el(
    "p",
    { class: "meta role-note" },
    role === "viewer"
      ? "You are a viewer in this room: you read and watch."
      : "You are a member in this room: you post messages, hand work over and fork; approvers decide and drive.",
  );
}

/** Who drives the room, since when, at which epoch ("You drive this room" for the holder). */
export function driverLine(driver: View["info"]["driver"], viewer: Pick<Viewer, "me">): HTMLElement {
  const mine = driver.holder !== null && driver.holder === viewer.me;
  return driver.holder
    ? el(
        "p",
        { class: "driver-text" },
        mine ? "You drive this room" : el("strong", null, `Driven by ${driver.holder}`),
        driver.holderKind === "agent" ? " (an agent)" : "",
        driver.since ? [" since ", time(driver.since)] : "",
        ` · epoch ${driver.epoch}`,
      )
    : el("p", { class: "driver-text" }, "Nobody drives this room", ` · epoch ${driver.epoch}`);
}

export function driverParts(view: View, viewer: Viewer, actions: Actions): Child[] {
  const driver = view.info.driver;
  const mine = driver.holder !== null && driver.holder === viewer.me;
  const text = driverLine(driver, viewer);
  // A holder whose role changed still releases the wheel; taking it needs the approver role.
  if (!mine && !may(viewer, "drive")) return [text, roleNote(viewer)];
  const controls: Child[] = [];
  if (mine) {
    controls.push(
      el(
        "button",
        {
          attrs: { type: "button", "data-key": "release" },
          on: { click: () => actions.releaseWheel(driver.epoch) },
        },
        "Release the wheel",
      ),
    );
  } else if (driver.holder === null || driver.holderKind === "agent") {
    controls.push(
      el(
        "button",
        { attrs: { type: "button", "data-key": "take" }, on: { click: () => actions.takeWheel(false) } },
        "Take the wheel",
      ),
    );
  } else if (viewer.operator) {
    controls.push(
      el(
        "button",
        {
          class: "danger",
          attrs: { type: "button", "data-key": "force" },
          on: { click: () => actions.takeWheel(true) },
        },
        "Take the wheel from them (operator)",
      ),
    );
  }
  const parts: Child[] = [text, el("div", { class: "controls" }, ...controls)];
  if (mine && may(viewer, "drive")) {
    const agents = agentsOf(view);
    const steer = el(
      "form",
      { class: "row-form", attrs: { "aria-label": "Steer the running agent" } },
      agentSelect("steer-to", "Steer", agents),
      field(
        "What to do next",
        el("textarea", {
          id: "steer-text",
          attrs: { name: "text", rows: "2", required: "", maxlength: "8000", "data-key": "steer-text" },
        }),
        true,
      ),
      el("button", { attrs: { type: "submit", "data-key": "steer-send" } }, "Steer"),
    );
    steer.addEventListener("submit", (e) => {
      e.preventDefault();
      actions.steer(steer, "steer", driver.epoch);
    });
    const interrupt = el(
      "form",
      { class: "row-form", attrs: { "aria-label": "Interrupt the running agent" } },
      agentSelect("interrupt-to", "Interrupt", agents),
      field(
        "Reason",
        el("input", {
          id: "interrupt-text",
          attrs: {
            name: "text",
            required: "",
            maxlength: "2000",
            "data-key": "interrupt-text",
            autocomplete: "off",
          },
        }),
        true,
      ),
      el("button", { class: "danger", attrs: { type: "submit", "data-key": "interrupt-send" } }, "Interrupt"),
    );
    interrupt.addEventListener("submit", (e) => {
      e.preventDefault();
      actions.steer(interrupt, "interrupt", driver.epoch);
    });
    parts.push(
      agents.length > 0
        ? el("div", { class: "steering" }, steer, interrupt)
        : empty("No agent to steer yet."),
    );
  }
  return parts;
}

export function approvalParts(
  view: Pick<View, "approvals">,
  viewer: Viewer,
  actions: Pick<Actions, "decide">,
): Child[] {
  const pending = view.approvals.filter((a) => a.status === "pending");
  if (pending.length === 0) return [empty("Nothing waits for a decision.")];
  return pending.map((a) => {
    const noteId = `note-${a.id}`;
    return el(
      "article",
      { class: "card approval", attrs: { "aria-label": `Approval ${a.id}` } },
      el("h3", null, a.action),
      el(
        "p",
        { class: "meta" },
        `${a.id} · asked by ${a.requestedBy} `,
        time(a.created_at),
        " · expires ",
        time(a.expires_at),
        a.approvers ? ` · for ${a.approvers.join(", ")} to decide` : "",
      ),
      a.details !== undefined ? el("details", null, el("summary", null, "Details"), json(a.details)) : null,
      may(viewer, "decide") && (a.approvers === undefined || a.approvers.includes(viewer.me))
        ? el(
            "div",
            { class: "row-form" },
            field(
              "Note (optional)",
              el("input", {
                id: noteId,
                attrs: { maxlength: "4000", "data-key": noteId, autocomplete: "off" },
              }),
              true,
            ),
            el(
              "div",
              { class: "controls wide" },
              el(
                "button",
                {
                  attrs: { type: "button", "data-key": `approve-${a.id}` },
                  on: { click: () => actions.decide(a.id, "approve", noteValue(noteId)) },
                },
                "Approve",
              ),
              el(
                "button",
                {
                  class: "danger",
                  attrs: { type: "button", "data-key": `reject-${a.id}` },
                  on: { click: () => actions.decide(a.id, "reject", noteValue(noteId)) },
                },
                "Reject",
              ),
            ),
          )
        : null,
    );
  });
}

const noteValue = (id: string) =>
  (document.getElementById(id) as HTMLInputElement | null)?.value.trim() ?? "";

/** online, idle (no call for a minute, or the bridge says the turn ended), offline, left. */
export function presenceState(p: View["presence"][number], now = Date.now()): string {
  if (p.status !== "online") return p.status;
  return p.statusText === "idle" || now - Date.parse(p.lastSeen) > 60_000 ? "idle" : "online";
}

export function peopleParts(
  view: Pick<View, "presence" | "suspended">,
  events: Event[],
  viewer?: Viewer,
  actions?: Actions,
): Child[] {
  const suspended = new Map((view.suspended ?? []).map((s) => [s.agentId, s]));
  // A suspended agent that was never seen here still shows: it is who the room stopped.
  const unseen = [...suspended.keys()].filter((id) => !view.presence.some((p) => p.agentId === id));
  if (view.presence.length === 0 && unseen.length === 0) return [empty("No agent has been here yet.")];
  const leash = viewer && actions && may(viewer, "suspend") ? actions : undefined;
  const rows = view.presence.map((p) => {
    const step = events.find((e) => e.type === "agent_step" && e.from === p.agentId);
    const payload = step?.payload as { tool?: unknown; target?: unknown; ok?: unknown } | undefined;
    const state = presenceState(p);
    return el(
      "li",
      { class: `presence ${state}` },
      el("span", { class: `dot ${state}`, attrs: { "aria-hidden": "true" } }),
      el("strong", null, p.agentId),
      ` ${state}`,
      " · seen ",
      time(p.lastSeen),
      p.statusText ? el("div", { class: "status-text" }, p.statusText) : null,
      step
        ? el(
            "div",
            { class: "meta" },
            "Last step: ",
            payload
              ? `${String(payload.tool ?? "")} ${String(payload.target ?? "")}${payload.ok === false ? " (failed)" : ""} `
              : "",
            time(step.timestamp),
          )
        : null,
      ...leashParts(p.agentId, suspended.get(p.agentId), leash),
    );
  });
  const stopped = unseen.map((id) =>
    el(
      "li",
      { class: "presence suspended" },
      el("strong", null, id),
      ...leashParts(id, suspended.get(id), leash),
    ),
  );
  return [...rows, ...stopped];
}

/**
 * An agent's suspension (who, since when, why) and, for a person who may suspend here, Resume — or, for an agent
 * not suspended, a Suspend form asking why.
 */
function leashParts(
  agentId: string,
  s: NonNullable<View["suspended"]>[number] | undefined,
  actions: Actions | undefined,
): Child[] {
  if (s) {
    return [
      el(
        "div",
        { class: "suspended-note" },
        "Suspended",
        s.by ? ` by ${s.by}` : "",
        " since ",
        time(s.at),
        s.reason ? `: ${s.reason}` : "",
      ),
      actions
        ? el(
            "button",
            {
              attrs: { type: "button", "data-key": `resume-${agentId}` },
              on: { click: () => actions.resume(agentId) },
            },
            `Resume ${agentId}`,
          )
        : null,
    ];
  }
  if (!actions) return [];
  const reasonId = `suspend-reason-${agentId}`;
  const form = el(
    "form",
    { class: "suspend-form" },
    el("label", { attrs: { for: reasonId } }, "Why"),
    el("input", {
      id: reasonId,
      attrs: { name: "reason", required: "", maxlength: "500", autocomplete: "off", "data-key": reasonId },
    }),
    el("button", { attrs: { type: "submit" } }, `Suspend ${agentId}`),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    actions.suspend(agentId, form);
  });
  return [el("details", { class: "suspend" }, el("summary", null, "Suspend…"), form)];
}

export function lockParts(view: Pick<View, "locks" | "claims">): Child[] {
  const rows: Child[] = [
    ...view.locks.map((l) =>
      el(
        "li",
        null,
        el("strong", null, l.resource),
        ` locked by ${l.owner} · fence ${l.fence} · until `,
        time(l.expiresAt),
      ),
    ),
    ...view.claims.map((c) =>
      el(
        "li",
        null,
        el("code", null, c.path),
        ` claimed by ${c.heldBy} · until `,
        time(c.expiresAt),
        c.reason ? el("div", { class: "meta" }, c.reason) : null,
      ),
    ),
  ];
  return rows.length > 0 ? rows : [empty("No locks or file claims.")];
}

export function contextParts(view: View, viewer: Viewer, actions: Actions): Child[] {
  if (view.context.length === 0) return [empty("No context entries yet.")];
  return view.context.map((c) =>
    el(
      "li",
      null,
      viewer.member
        ? el(
            "button",
            {
              class: "link",
              attrs: { type: "button", "data-key": `ctx-${c.id}` },
              on: { click: () => actions.openContext(c.id) },
            },
            c.summary,
          )
        : el("span", null, c.summary),
      el(
        "div",
        { class: "meta" },
        `${c.id} · ${c.type} · by ${c.author} · v${c.version} · `,
        time(c.timestamp),
      ),
    ),
  );
}

const safeUrl = (ref: string | null) => (ref && /^https?:\/\//i.test(ref) ? ref : null);

export function verdictParts(view: View): Child[] {
  if (view.verdicts.length === 0) return [empty("No verdicts yet.")];
  return view.verdicts.map((v) => {
    const url = safeUrl(v.ref);
    return el(
      "li",
      null,
      el("span", { class: `badge ${v.verdict}` }, v.verdict),
      " ",
      v.summary,
      el("div", { class: "meta" }, `by ${v.by} · `, time(v.created_at)),
      url ? el("a", { attrs: { href: url, rel: "noopener noreferrer", target: "_blank" } }, url) : null,
      v.details
        ? el("details", null, el("summary", null, "Details"), el("pre", { class: "prose" }, v.details))
        : null,
    );
  });
}

export function handoffParts(
  view: Pick<View, "handoffs">,
  viewer: Viewer,
  actions: Pick<Actions, "cancelHandoff">,
): Child[] {
  const open = view.handoffs.filter((h) => h.status === "offered");
  if (open.length === 0) return [empty("No open handoffs.")];
  return open.map((h) =>
    el(
      "li",
      null,
      el("strong", null, `${h.from} → ${h.to}`),
      el(
        "div",
        { class: "meta" },
        `${h.id} · tasks ${h.taskIds.join(", ") || "none"} · `,
        time(h.created_at),
      ),
      h.note ? el("p", { class: "prose" }, h.note) : null,
      may(viewer, "handoff") && h.offeredBy === viewer.me
        ? el(
            "button",
            {
              class: "secondary",
              attrs: { type: "button", "data-key": `cancel-${h.id}` },
              on: { click: () => actions.cancelHandoff(h.id) },
            },
            "Cancel offer",
          )
        : null,
    ),
  );
}
