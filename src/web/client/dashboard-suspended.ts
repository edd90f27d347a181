/**
 * The dashboard's Suspended agents panel (docs/people.md#suspending-an-agent): the agents suspended in a room, who
 * did it, when and why, with Resume each, and a form to suspend one — /admin/rooms/:roomId/agents. The server decides
 * who may (an approver of the room, an operator) and says why not; the panel shows its answer.
 */
import { ApiError, api, toSignIn } from "./api.ts";
import { byId, el, replace, showError, time } from "./dom.ts";

interface Suspended {
  agentId: string;
  by: string;
  at: string;
  reason: string;
}

const path = (roomId: string, rest: string) => `/admin/rooms/${encodeURIComponent(roomId)}/agents/${rest}`;

async function act(work: () => Promise<unknown>): Promise<void> {
  showError(null);
  try {
    await work();
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) toSignIn();
    else showError(error instanceof Error ? error.message : String(error));
  }
}

/** Reads the chosen room's suspended agents again (the room list changed, another room was chosen, an act). */
export async function loadSuspended(): Promise<void> {
  const roomId = byId<HTMLSelectElement>("suspend-room").value;
  if (roomId === "") {
    replace(byId("suspended"));
    return;
  }
  const { suspended } = await api<{ suspended: Suspended[] }>("GET", path(roomId, "suspended"));
  replace(
    byId("suspended"),
    ...(suspended.length === 0
      ? [el("li", { class: "muted" }, "No agent is suspended in this room.")]
      : suspended.map((s) =>
          el(
            "li",
            { class: "role-row" },
            el("span", null, el("code", null, s.agentId), ` by ${s.by} since `, time(s.at), `: ${s.reason}`),
            el(
              "button",
              {
                class: "secondary small",
                attrs: { type: "button", "aria-label": `Resume ${s.agentId} in ${roomId}` },
                on: {
                  click: () =>
                    act(async () => {
                      await api("POST", path(roomId, `${encodeURIComponent(s.agentId)}/resume`), {});
                      await loadSuspended();
                    }),
                },
              },
              "Resume",
            ),
          ),
        )),
  );
}

byId("suspend-room").addEventListener("change", () => void act(loadSuspended));
const form = byId<HTMLFormElement>("suspend-form");
form.addEventListener("submit", (event) => {
  event.preventDefault();
  const field = (name: string) => form.elements.namedItem(name) as HTMLInputElement;
  const roomId = field("room").value;
  const agentId = field("agent").value.trim();
  const reason = field("reason").value.trim();
  if (roomId === "" || agentId === "" || reason === "") return;
  void act(async () => {
    await api("POST", path(roomId, `${encodeURIComponent(agentId)}/suspend`), { reason });
    field("agent").value = "";
    field("reason").value = "";
    await loadSuspended();
  });
});
