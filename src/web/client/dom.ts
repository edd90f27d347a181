/**
 * DOM building for the pages: elements are made with createElement and filled with textContent only, so no value
 * from the server is ever parsed as HTML (the browser code never assigns markup; a test checks).
 */

export type Child = Node | string | number | null | undefined | false | Child[];

export interface Props {
  class?: string;
  id?: string;
  title?: string;
  hidden?: boolean;
  /** Other attributes (aria-*, data-*, type, href…), set with setAttribute. */
  attrs?: Record<string, string>;
  on?: Partial<Record<keyof HTMLElementEventMap, (event: Event) => void>>;
}

/** An element with its properties and children (strings become text nodes). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props) {
    if (props.class) node.className = props.class;
    if (props.id) node.id = props.id;
    if (props.title) node.title = props.title;
    if (props.hidden) node.hidden = true;
    for (const [name, value] of Object.entries(props.attrs ?? {})) node.setAttribute(name, value);
    for (const [type, handler] of Object.entries(props.on ?? {})) {
      if (handler) node.addEventListener(type, handler);
    }
  }
  append(node, ...children);
  return node;
}

export function append(node: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) {
      append(node, ...child);
      continue;
    }
    node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

/** Replaces a node's children. */
export function replace(node: Node, ...children: Child[]): void {
  while (node.firstChild) node.removeChild(node.firstChild);
  append(node, ...children);
}

/** The element with this id (the page's markup has it). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no #${id}`);
  return node as T;
}

/** "12 s ago", "in 3 min" — the ISO time itself is the element's title and datetime. */
export function relative(iso: string, now = Date.now()): string {
  const ms = Date.parse(iso) - now;
  const future = ms > 0;
  const s = Math.round(Math.abs(ms) / 1000);
  const [n, unit] =
    s < 60
      ? [s, "s"]
      : s < 3600
        ? [Math.round(s / 60), "min"]
        : s < 86_400
          ? [Math.round(s / 3600), "h"]
          : [Math.round(s / 86_400), "d"];
  if (s < 5) return "just now";
  return future ? `in ${n} ${unit}` : `${n} ${unit} ago`;
}

/** A <time> showing the relative time, with the ISO time on hover. Kept current by refreshTimes(). */
export function time(iso: string): HTMLTimeElement {
  const node = el("time", { title: iso, attrs: { datetime: iso } }, relative(iso));
  return node;
}

/** Brings every <time> of the page up to date (a clock tick, no request). */
export function refreshTimes(): void {
  const now = Date.now();
  for (const node of document.querySelectorAll("time[datetime]")) {
    const iso = node.getAttribute("datetime");
    if (iso) node.textContent = relative(iso, now);
  }
}

/** Pretty JSON in a <pre>, as text. */
export function json(value: unknown): HTMLPreElement {
  return el("pre", { class: "json" }, JSON.stringify(value, null, 2));
}

/** Shows (or with null hides) the page's error line. */
export function showError(message: string | null): void {
  const node = document.getElementById("action-error");
  if (!node) return;
  node.textContent = message ?? "";
  node.hidden = message === null;
}
