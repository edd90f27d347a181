/**
 * The room board's two forms — a message to an agent, and work handed over — built once and kept current as the
 * board changes: their choices (the agents, the open tasks) follow the room, and what a person has chosen or typed
 * stays. Each submits through the act the board passes in (a tool the host calls as the person).
 */
import type { Board } from "../../protocol/board.ts";
import { el, replace } from "./dom.ts";
import { agentsOf, field } from "./room-render.ts";

/** The acts behind the forms: each resolves true when roomd took it (a refusal is shown by the caller). */
export interface FormActs {
  message(to: string, text: string): Promise<boolean>;
  handOver(taskId: string, to: string, note: string): Promise<boolean>;
}

const textArea = (id: string, max: number) =>
  el("textarea", {
    id,
    attrs: { name: id, rows: "2", required: "", maxlength: String(max), "data-key": id },
  });

/** The message form: to an agent or to all, sent as the person's human_message. */
export function messageForm(acts: FormActs): HTMLFormElement {
  const to = el("select", { id: "b-message-to", attrs: { name: "to", required: "" } });
  const text = textArea("b-message-text", 8000);
  const form = el(
    "form",
    { class: "row-form", id: "b-message-form", attrs: { "aria-label": "Message an agent" } },
    field("To", to),
    field("Message", text, true),
    el("button", { attrs: { type: "submit" } }, "Send"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const said = text.value.trim();
    if (said === "") return;
    void acts.message(to.value, said).then((sent) => {
      if (sent) text.value = "";
    });
  });
  return form;
}

/** The hand-over form: one task, to an agent or to any, with a note on where it stands. */
export function handoffForm(acts: FormActs): HTMLFormElement {
  const task = el("select", { id: "b-handoff-task", attrs: { name: "task", required: "" } });
  const to = el("select", { id: "b-handoff-to", attrs: { name: "to", required: "" } });
  const note = textArea("b-handoff-note", 4000);
  const form = el(
    "form",
    { class: "row-form", id: "b-handoff-form", attrs: { "aria-label": "Hand work over" } },
    field("Task", task),
    field("To", to),
    field("Where it stands", note, true),
    el("button", { attrs: { type: "submit" } }, "Offer"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const said = note.value.trim();
    if (said === "" || task.value === "") return;
    void acts.handOver(task.value, to.value, said).then((offered) => {
      if (offered) note.value = "";
    });
  });
  return form;
}

/** A select's options replaced by `choices` ([value, label]), keeping the chosen one while it is offered. */
function offer(select: HTMLSelectElement | null, choices: [string, string][]): void {
  if (!select) return;
  const chosen = select.value;
  const signature = JSON.stringify(choices);
  if (select.dataset.choices === signature) return;
  select.dataset.choices = signature;
  replace(select, ...choices.map(([value, label]) => el("option", { attrs: { value } }, label)));
  if (choices.some(([value]) => value === chosen)) select.value = chosen;
}

/** The forms' choices for this board: its agents, and its tasks that are not done. */
export function updateChoices(board: Board): void {
  const agents = agentsOf(board).map((a): [string, string] => [a, a]);
  offer(document.getElementById("b-message-to") as HTMLSelectElement | null, [
    ["all", "all agents"],
    ...agents,
  ]);
  offer(document.getElementById("b-handoff-to") as HTMLSelectElement | null, [
    ["any", "any agent"],
    ...agents,
  ]);
  const open = board.tasks.filter((t) => t.status !== "done");
  offer(
    document.getElementById("b-handoff-task") as HTMLSelectElement | null,
    open.map((t): [string, string] => [t.id, `${t.id} · ${t.title}`]),
  );
}
