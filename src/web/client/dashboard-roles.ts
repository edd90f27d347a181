/**
 * The dashboard's Roles panel (docs/people.md#roles): the people a room names with their role, a form to set one,
 * and a Remove button each — /admin/rooms/:roomId/roles. The server decides who may change them and says why not;
 * the panel shows its answer. A list rather than a table, so every button stays in reach at 390 px.
 */
import { EVERYONE, ROLES, type Role } from "../../protocol/roles.ts";
import { ApiError, api, toSignIn } from "./api.ts";
import { byId, el, replace, showError } from "./dom.ts";

interface RolesView {
  roomId: string;
  roles: Record<string, Role>;
  others: Role;
  you: Role | null;
}

const path = (roomId: string, person?: string) =>
  `/admin/rooms/${encodeURIComponent(roomId)}/roles${person === undefined ? "" : `/${encodeURIComponent(person)}`}`;

async function act(work: () => Promise<unknown>): Promise<void> {
  showError(null);
  try {
    await work();
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) toSignIn();
    else showError(error instanceof Error ? error.message : String(error));
  }
}

function draw(view: RolesView): void {
  const named = Object.entries(view.roles).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  replace(
    byId("roles-summary"),
    named.length === 0
      ? "This room names nobody: every person of the team is an approver here."
      : `People not named: ${view.others}. Operators: approver.`,
    view.you !== null ? ` You: ${view.you}.` : "",
  );
  replace(
    byId("roles"),
    ...named.map(([person, role]) =>
      el(
        "li",
        { class: "role-row" },
        el(
          "span",
          null,
          el("code", null, person === EVERYONE ? "* (everyone not named)" : person),
          ` ${role}`,
        ),
        el(
          "button",
          {
            class: "secondary small",
            attrs: { type: "button", "aria-label": `Remove the role of ${person} in ${view.roomId}` },
            on: { click: () => act(() => change(view.roomId, person, null)) },
          },
          "Remove",
        ),
      ),
    ),
  );
}

async function change(roomId: string, person: string, role: Role | null): Promise<void> {
  draw(
    role === null
      ? await api<RolesView>("DELETE", path(roomId, person))
      : await api<RolesView>("PUT", path(roomId, person), { role }),
  );
}

/** Reads the chosen room's roles again (the room list changed, or another room was chosen). */
export async function loadRoles(): Promise<void> {
  const roomId = byId<HTMLSelectElement>("roles-room").value;
  if (roomId === "") {
    replace(byId("roles"));
    replace(byId("roles-summary"));
    return;
  }
  draw(await api<RolesView>("GET", path(roomId)));
}

byId("roles-room").addEventListener("change", () => void act(loadRoles));
const form = byId<HTMLFormElement>("roles-form");
form.addEventListener("submit", (event) => {
  event.preventDefault();
  const value = (name: string) => (form.elements.namedItem(name) as HTMLInputElement).value.trim();
  const role = value("role");
  if (!(ROLES as readonly string[]).includes(role)) return;
  void act(async () => {
    await change(value("room"), value("person"), role as Role);
    (form.elements.namedItem("person") as HTMLInputElement).value = "";
  });
});
