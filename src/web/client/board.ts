/**
 * The room board inside chat clients (an MCP App; docs/people.md, "The room board in chat clients"). The host
 * renders this document for a show_room_board result and hands it the result; the board draws it with the room
 * view's own parts (the task board, approvals, who is here, claims and locks, handoffs, the timeline's sentences)
 * and keeps it current by calling the app-only poll board_changes through the host, one call at a time — hosts
 * pass no server push on to a view. The person's acts (a message, a decision, a hand-over) are tools the host
 * calls with the person's own connection; roomd checks them like every call.
 */
import type { Board } from "../../protocol/board.ts";
import { mayAct } from "../../protocol/roles.ts";
import { connectBridge, type Params } from "./board-bridge.ts";
import { handoffForm, messageForm, updateChoices } from "./board-forms.ts";
import { applyHostContext, watchSize } from "./board-host.ts";
import { byId, el, refreshTimes, replace, showError } from "./dom.ts";
import { boardParts } from "./room-board.ts";
import { approvalParts, driverLine, empty, handoffParts, lockParts, peopleParts } from "./room-render.ts";
import type { Event, Viewer } from "./room-types.ts";
import { render } from "./sections.ts";
import { eventItem } from "./timeline.ts";

const PROTOCOL_VERSION = "2026-01-26";
/** Longest a poll holds; the gap after a change before the next poll (a busy room is not re-read nonstop). */
const WAIT_SECONDS = 5;
const GAP_MS = 300;
/** Events the timeline keeps. */
const KEEP_EVENTS = 100;

let board: Board | undefined;
let polling = false;
let stopped = false;
const events = new Map<number, Event>();

const bridge = connectBridge({
  notified(method, params) {
    if (method === "ui/notifications/tool-result") toolResult(params);
    else if (method === "ui/notifications/host-context-changed") applyHostContext(params);
    else if (method === "ui/notifications/tool-cancelled") setLive("The board was not opened", false);
  },
  teardown() {
    stopped = true;
  },
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A tool called through the host: its structuredContent, or its error text thrown. */
async function callTool(name: string, args: Params): Promise<Params> {
  const result = await bridge.request("tools/call", { name, arguments: args });
  const content = Array.isArray(result.content) ? (result.content as { text?: unknown }[]) : [];
  if (result.isError === true)
    throw new Error(String(content[0]?.text ?? `${name} failed`).replace(/^Error: /, ""));
  return (result.structuredContent as Params | undefined) ?? {};
}

function setLive(text: string, ok: boolean): void {
  const node = document.getElementById("live") ?? byId("board-status");
  node.textContent = text;
  node.classList.toggle("ok", ok);
}

/** What the person may do here, from the board's viewer (roomd checks every act again). */
function viewerOf(b: Board): Viewer {
  return {
    roomId: b.roomId,
    member: true,
    me: b.viewer.person ?? "",
    operator: b.viewer.operator,
    ...(b.viewer.role ? { role: b.viewer.role } : {}),
    fork: false,
  };
}

/** Runs a person's act; a refusal shows in the error line. The poll brings the change itself. */
async function act(work: () => Promise<unknown>): Promise<boolean> {
  showError(null);
  try {
    await work();
    return true;
  } catch (error) {
    showError(error instanceof Error ? error.message : String(error));
    return false;
  }
}

const roomOf = () => (board as Board).roomId;
const acts = {
  decide: (approvalId: string, decision: "approve" | "reject", note: string) =>
    void act(() =>
      callTool("decide_approval", { roomId: roomOf(), approvalId, decision, ...(note ? { note } : {}) }),
    ),
  cancelHandoff: (handoffId: string) =>
    void act(() => callTool("hand_over", { roomId: roomOf(), cancel: handoffId })),
  message: (to: string, text: string) => act(() => callTool("message_agent", { roomId: roomOf(), to, text })),
  handOver: (taskId: string, to: string, note: string) =>
    act(() => callTool("hand_over", { roomId: roomOf(), to, taskIds: [taskId], note })),
};

/** The board's frame, made once: headings, the parts' containers and the forms. */
function frame(b: Board): void {
  const viewer = viewerOf(b);
  const can = (what: "message" | "handoff") => viewer.role !== undefined && mayAct(viewer.role, what);
  const part = (id: string, title: string, body: HTMLElement, ...more: (HTMLElement | null)[]) =>
    el(
      "section",
      { attrs: { "aria-labelledby": `${id}-h` } },
      el("h2", { id: `${id}-h` }, title),
      body,
      ...more,
    );
  replace(
    byId("board"),
    el("h1", null, "Room ", el("span", { class: "team-id" }, b.roomId)),
    el("p", { id: "live", class: "live", attrs: { role: "status" } }, "Connecting…"),
    el("p", { id: "action-error", class: "error", hidden: true, attrs: { role: "alert" } }),
    el("div", { id: "b-driver", class: "banner" }),
    part("b-approvals", "Waiting for a decision", el("div", { id: "b-approvals-list", class: "stack" })),
    part("b-tasks", "Tasks", el("div", { id: "b-tasks-list", class: "board" })),
    el(
      "div",
      { class: "columns" },
      part("b-people", "Who is here", el("ul", { id: "b-people-list", class: "list" })),
      part("b-locks", "File claims and locks", el("ul", { id: "b-locks-list", class: "list" })),
    ),
    part(
      "b-handoffs",
      "Handoffs",
      el("ul", { id: "b-handoffs-list", class: "list" }),
      can("handoff") ? handoffForm(acts) : null,
    ),
    can("message") ? part("b-message", "Message an agent", messageForm(acts)) : null,
    viewer.me === ""
      ? el("p", { class: "meta" }, "Read only: this connection is an agent's key, not a person's.")
      : null,
    part("b-events", "Recent events", el("ol", { id: "b-events-list", class: "timeline" })),
    el("p", { id: "b-omitted", class: "meta", hidden: true }),
  );
}

/** Draws a board: each part rebuilt only when what it shows changed. */
function show(next: Board): void {
  // The frame offers the forms the person's role allows: made again when the room or the role changes.
  if (
    !board ||
    board.roomId !== next.roomId ||
    JSON.stringify(board.viewer) !== JSON.stringify(next.viewer)
  ) {
    frame(next);
    if (polling) setLive("Live", true);
  }
  board = next;
  const viewer = viewerOf(next);
  for (const e of next.events) events.set(e.seq, e);
  for (const seq of [...events.keys()].sort((a, b) => a - b).slice(0, Math.max(0, events.size - KEEP_EVENTS)))
    events.delete(seq);
  const newest = [...events.values()].sort((a, b) => b.seq - a.seq);
  render(byId("b-driver"), next.driver, () => [driverLine(next.driver, viewer)]);
  render(byId("b-approvals-list"), next.approvals, () => approvalParts(next, viewer, acts));
  render(byId("b-tasks-list"), next.tasks, () => boardParts(next));
  render(byId("b-people-list"), next.presence, () => peopleParts(next, newest));
  render(byId("b-locks-list"), [next.claims, next.locks], () => lockParts(next));
  render(byId("b-handoffs-list"), next.handoffs, () => handoffParts(next, viewer, acts));
  render(
    byId("b-events-list"),
    newest.map((e) => e.seq),
    () => (newest.length === 0 ? [empty("No events yet.")] : newest.map((e) => eventItem(e, viewer))),
  );
  updateChoices(next);
  const omitted = Object.entries(next.omitted ?? {}).map(([list, n]) => `${n} ${list}`);
  const note = byId("b-omitted");
  note.textContent = omitted.length ? `Left out to keep the board small: ${omitted.join(", ")}.` : "";
  note.hidden = omitted.length === 0;
}

function toolResult(result: Params): void {
  const content = Array.isArray(result.content) ? (result.content as { text?: unknown }[]) : [];
  const value = result.structuredContent as Board | undefined;
  if (result.isError === true || value === undefined || typeof value.roomId !== "string") {
    replace(
      byId("board"),
      el("p", { class: "error", attrs: { role: "alert" } }, String(content[0]?.text ?? "")),
    );
    return;
  }
  show(value);
  if (!polling) void poll();
}

/** Asks for what changed after the board shown, one call at a time, until the host removes the board. */
async function poll(): Promise<void> {
  polling = true;
  setLive("Live", true);
  let backoff = 0;
  while (!stopped && board) {
    try {
      const changes = await callTool("board_changes", {
        roomId: board.roomId,
        afterSeq: board.seq,
        afterState: board.state,
        waitSeconds: WAIT_SECONDS,
      });
      if (changes.changed === true && changes.board) show(changes.board as Board);
      setLive("Live", true);
      backoff = 0;
      if (changes.changed === true) await sleep(GAP_MS);
    } catch (error) {
      backoff = Math.min(30_000, backoff === 0 ? 1000 : backoff * 2);
      setLive(`Reconnecting… (${error instanceof Error ? error.message : String(error)})`, false);
      await sleep(backoff);
    }
  }
  polling = false;
}

// Relative times follow the clock; this redraws locally and sends nothing.
setInterval(refreshTimes, 15_000);
watchSize(bridge);
bridge
  .request("ui/initialize", {
    protocolVersion: PROTOCOL_VERSION,
    appInfo: { name: "roomd room board", version: "1.0.0" },
    appCapabilities: { availableDisplayModes: ["inline"] },
  })
  .then((result) => {
    if (result.hostContext && typeof result.hostContext === "object")
      applyHostContext(result.hostContext as Params);
    bridge.notify("ui/notifications/initialized", {});
  })
  .catch((error: unknown) => {
    byId("board-status").textContent = `The host did not start the board: ${String(error)}`;
  });
