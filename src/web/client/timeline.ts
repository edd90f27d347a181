/**
 * The timeline's sentences and filters. Each event reads as the sentence of protocol/timeline.ts (the words
 * `roomctl watch` prints), built here as elements with text nodes only — names in <strong>, ids and paths in
 * <code> — so no value is ever parsed as HTML. The filters (an agent; the kinds work, talk, people, system) hide
 * entries in place: nothing is read again, and an event that arrives later is filtered as it is added.
 */
import {
  describeEvent,
  EVENT_KINDS,
  type EventKind,
  type EventLike,
  nameOf,
  type Part,
} from "../../protocol/timeline.ts";
import { type Child, el, json, time } from "./dom.ts";
import type { Actions } from "./room-render.ts";
import type { Event, Viewer } from "./room-types.ts";

/** A sentence's parts as nodes (the raw id of a name is its title: `human:alice` reads as alice). */
export function sentenceNodes(parts: readonly Part[]): Child[] {
  return parts.map((part) => {
    if (typeof part === "string") return part;
    if ("who" in part)
      return el(
        "strong",
        { class: part.who.startsWith("human:") ? "who person" : "who", title: part.who },
        nameOf(part.who),
      );
    if ("code" in part) return el("code", null, part.code);
    return el("span", { class: "quote" }, `“${part.quote}”`);
  });
}

/** The sentence of one event as a paragraph, with its kind as a class (kind-work, kind-talk, …). */
export function sentenceOf(e: EventLike): { kind: EventKind; node: HTMLElement } {
  const line = describeEvent(e);
  return { kind: line.kind, node: el("p", { class: "sentence" }, ...sentenceNodes(line.parts)) };
}

export interface Filter {
  /** An agent or person id: events from it or addressed to it. Empty: everyone. */
  agent: string;
  kinds: ReadonlySet<EventKind>;
}

/** The filter the page's controls show now (every kind when the controls are missing). */
export function currentFilter(): Filter {
  const agent = (document.getElementById("filter-agent") as HTMLSelectElement | null)?.value ?? "";
  const boxes = [...document.querySelectorAll<HTMLInputElement>("input[name=kind]")];
  const kinds = new Set<EventKind>(
    boxes.length === 0 ? EVENT_KINDS : boxes.filter((b) => b.checked).map((b) => b.value as EventKind),
  );
  return { agent, kinds };
}

/** Whether a timeline entry (its data-kind, data-from, data-to) passes the filter. */
export function passes(item: HTMLElement, filter: Filter): boolean {
  const { kind, from, to } = item.dataset;
  if (!filter.kinds.has(kind as EventKind)) return false;
  return filter.agent === "" || from === filter.agent || to === filter.agent;
}

/** Hides what the filter leaves out; says how many entries it hides (an empty note when none). */
export function applyFilter(list: HTMLElement, filter = currentFilter()): void {
  let hidden = 0;
  for (const item of list.children) {
    const entry = item as HTMLElement;
    entry.hidden = !passes(entry, filter);
    if (entry.hidden) hidden++;
  }
  const note = document.getElementById("filter-note");
  if (note) {
    note.textContent =
      hidden === 0 ? "" : `${hidden} of ${list.children.length} events hidden by the filters.`;
    note.hidden = hidden === 0;
  }
}

/** Clears the filters (every kind, everyone) and shows every entry. */
export function clearFilter(list: HTMLElement): void {
  const agent = document.getElementById("filter-agent") as HTMLSelectElement | null;
  if (agent) agent.value = "";
  for (const box of document.querySelectorAll<HTMLInputElement>("input[name=kind]")) box.checked = true;
  applyFilter(list);
}

/** Who the agent filter offers: everyone who posted or was addressed among the events, and who is here. */
export function filterNames(events: Iterable<EventLike>, present: readonly string[]): string[] {
  const names = new Set(present);
  for (const e of events) {
    if (e.from !== "system") names.add(e.from);
    if (e.to !== "all" && e.to !== "any") names.add(e.to);
  }
  return [...names].sort();
}

/**
 * One timeline entry: the event's sentence (the words `roomctl watch` prints), then its number, type and time; for
 * members the payload one click away and, where forking is offered, "Fork here". Its kind, sender and addressee
 * are data attributes for the filters.
 */
export function eventItem(e: Event, viewer: Viewer, actions?: Pick<Actions, "fork">): HTMLLIElement {
  const fork = viewer.fork ? actions?.fork : undefined;
  const payload = e.payload && Object.keys(e.payload).length > 0 ? e.payload : null;
  const { kind, node } = sentenceOf(e);
  return el(
    "li",
    {
      class: `event kind-${kind}`,
      id: `evt-${e.seq}`,
      attrs: {
        "data-seq": String(e.seq),
        "data-kind": kind,
        "data-from": e.from,
        "data-to": e.to,
        tabindex: "-1",
      },
    },
    node,
    el(
      "div",
      { class: "event-head meta" },
      el("span", { class: "seq" }, `#${e.seq}`),
      " · ",
      el("span", { class: "type" }, e.type),
      " · ",
      time(e.timestamp),
    ),
    viewer.member && (payload || fork)
      ? el(
          "div",
          { class: "event-actions" },
          payload
            ? el(
                "details",
                null,
                el("summary", { attrs: { "aria-label": `Payload of event ${e.seq}` } }, "Payload"),
                json(payload),
              )
            : null,
          fork
            ? el(
                "button",
                {
                  class: "link fork",
                  attrs: { type: "button", "aria-label": `Fork the room here, at event ${e.seq}` },
                  on: { click: () => fork(e.seq) },
                },
                "Fork here",
              )
            : null,
        )
      : null,
  );
}
