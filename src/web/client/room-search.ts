/**
 * The room view's search box (members): the room's own search (GET /rooms/:roomId/search, the `search` tool's
 * ranking), each hit a button that leads to what it found — a task's card on the board, a context entry's dialog,
 * an event in the timeline (read from the log when the page does not hold it). Snippets mark the words found;
 * they are built as text nodes and <mark> elements, never parsed.
 */
import { api } from "./api.ts";
import { type Child, el, replace } from "./dom.ts";

interface Hit {
  type: "task" | "context" | "event";
  id: string;
  title: string;
  field: string;
  snippet: string;
}

export interface SearchTargets {
  showTask(taskId: string): void;
  showEvent(seq: number): Promise<void>;
  openContext(contextId: string): void;
}

/** A snippet whose found words are wrapped in ** (the search's own marking) as text and <mark> nodes. */
export function snippetNodes(snippet: string): Child[] {
  return snippet.split("**").map((text, i) => (i % 2 === 1 ? el("mark", null, text) : text));
}

const LABEL = { task: "Task", context: "Context", event: "Event" } as const;

function hitItem(hit: Hit, targets: SearchTargets): HTMLLIElement {
  const seq = hit.type === "event" ? Number(/^evt-(\d+)$/.exec(hit.id)?.[1]) : Number.NaN;
  const go = () => {
    if (hit.type === "task") targets.showTask(hit.id);
    else if (hit.type === "context") targets.openContext(hit.id);
    else if (Number.isSafeInteger(seq)) void targets.showEvent(seq);
  };
  const name = hit.type === "event" ? `#${seq} ${hit.title}` : `${hit.id} ${hit.title}`;
  return el(
    "li",
    null,
    el(
      "button",
      { class: "link", attrs: { type: "button", "data-hit": hit.id }, on: { click: go } },
      `${LABEL[hit.type]} ${name}`,
    ),
    el("div", { class: "meta" }, ...snippetNodes(hit.snippet)),
  );
}

/** Binds the search form; failures go to `fail` (the page's error line). */
export function bindSearch(base: string, targets: SearchTargets, fail: (error: unknown) => void): void {
  const form = document.getElementById("search-form") as HTMLFormElement | null;
  const out = document.getElementById("search-results");
  if (!form || !out) return;
  const input = form.elements.namedItem("q") as HTMLInputElement;
  const close = el("button", { class: "secondary small", attrs: { type: "button" } }, "Close the results");
  close.addEventListener("click", () => {
    out.hidden = true;
    input.focus();
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const q = input.value.trim();
    if (q === "") return;
    api<{ hits: Hit[] }>("GET", `${base}/search?q=${encodeURIComponent(q)}&limit=20`)
      .then(({ hits }) => {
        replace(
          out,
          el(
            "p",
            { class: "meta" },
            hits.length === 0 ? `Nothing found for “${q}”.` : `${hits.length} found for “${q}”, best first:`,
          ),
          hits.length > 0 ? el("ol", { class: "list hits" }, ...hits.map((h) => hitItem(h, targets))) : null,
          close,
        );
        out.hidden = false;
      })
      .catch(fail);
  });
}
