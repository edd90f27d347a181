/**
 * `roomctl agents <room>`, `roomctl suspend <room> <agent> --reason <why>` and `roomctl resume <room> <agent>`:
 * suspended agents (docs/protocol.md#suspended-agents) through /admin/rooms/:roomId/agents. Any team key may; a
 * person's key needs the approver role in the room (the server says so otherwise).
 */
import type { ResumeResult, SuspendResult, Suspension } from "../protocol/suspensions.ts";
import { connect, seg } from "./api.ts";
import { type Command, noMore, only, required, roomArg, str, UsageError } from "./kit.ts";
import { clean, out, printJson, table, when } from "./output.ts";

const AGENT = /^[A-Za-z0-9_.:-]{1,64}$/;

function agentArg(positionals: string[]): string {
  const agent = required(positionals, 1, "<agent>");
  if (!AGENT.test(agent) || agent.startsWith("human:"))
    throw new UsageError(
      "<agent> must be an agent's id (1-64 chars of A-Z, a-z, 0-9, _ . : -), not a person",
    );
  return agent;
}

export const agents: Command = {
  name: "agents",
  summary: "the agents suspended in a room: who suspended each, when and why",
  help: `usage: roomctl agents <room> [--json]

Lists the agents suspended in the room. While suspended, every call an agent makes in
the room is refused (AGENT_SUSPENDED); suspend and resume change that.

examples:
  roomctl agents my-project`,
  options: { json: { type: "boolean" } },
  async run({ values, positionals }) {
    const roomId = roomArg(positionals);
    noMore(positionals, 1);
    const view = await connect().get<{ suspended: Suspension[] }>(
      `/admin/rooms/${seg(roomId)}/agents/suspended`,
    );
    if (values.json) printJson(view);
    else
      table(
        view.suspended,
        [
          { head: "AGENT", get: (s) => s.agentId, style: () => "cyan" },
          { head: "BY", get: (s) => s.by },
          { head: "SINCE", get: (s) => when(s.at) },
          { head: "REASON", get: (s) => s.reason },
        ],
        "No agent is suspended in this room.",
      );
    return 0;
  },
};

export const suspend: Command = {
  name: "suspend",
  summary: "stop an agent in a room: its work goes back, its calls are refused",
  help: `usage: roomctl suspend <room> <agent> --reason <why> [--json]

Suspends the agent in the room: at once its task leases go back (pending, unowned), its
file claims and locks are released, and the room's log says who suspended it and why.
Until you resume it, every call it makes in the room is refused with that message.
Needs a team key, or a person's key that is an approver in the room.

examples:
  roomctl suspend my-project builder --reason "keeps rewriting the lockfile"`,
  options: { reason: { type: "string" }, json: { type: "boolean" } },
  async run({ values, positionals }) {
    const roomId = roomArg(positionals);
    const agentId = agentArg(positionals);
    noMore(positionals, 2);
    const reason = str(values, "reason");
    if (reason === undefined || reason.trim() === "") throw new UsageError("--reason <why> is required");
    const result = await connect().post<SuspendResult>(
      `/admin/rooms/${seg(roomId)}/agents/${seg(agentId)}/suspend`,
      { reason },
    );
    if (values.json) printJson(result);
    else if (result.already)
      out(
        `${clean(agentId)} was already suspended by ${clean(result.suspension.by)} ${when(result.suspension.at)}: ${clean(result.suspension.reason)}`,
      );
    else {
      const { tasks, paths, locks } = result.released;
      out(`Suspended ${clean(agentId)} in ${clean(roomId)}.`);
      out(`Released: ${tasks.length} task(s), ${paths.length} file claim(s), ${locks.length} lock(s).`);
    }
    return 0;
  },
};

export const resume: Command = {
  name: "resume",
  summary: "lift an agent's suspension in a room",
  help: `usage: roomctl resume <room> <agent> [--json]

Resumes a suspended agent: its calls in the room work again. What the suspension
released stays released.

examples:
  roomctl resume my-project builder`,
  options: { json: { type: "boolean" } },
  async run({ values, positionals }) {
    only(values, ["json"], "resuming");
    const roomId = roomArg(positionals);
    const agentId = agentArg(positionals);
    noMore(positionals, 2);
    const result = await connect().post<ResumeResult>(
      `/admin/rooms/${seg(roomId)}/agents/${seg(agentId)}/resume`,
      {},
    );
    if (values.json) printJson(result);
    else
      out(
        result.resumed
          ? `Resumed ${clean(agentId)} in ${clean(roomId)}.`
          : `${clean(agentId)} was not suspended.`,
      );
    return 0;
  },
};
