/**
 * `roomctl approvals <room>`, `approve|reject <room> <id> [--note …]`: what agents asked a person to approve
 * (request_approval), and deciding it — a person's key only, exactly once (docs/people.md).
 */
import { APPROVAL_STATUSES, type Approval } from "../protocol/people.ts";
import { connect, seg } from "./api.ts";
import { type Command, noMore, only, required, roomArg, str, UsageError } from "./kit.ts";
import { clean, out, printJson, statusStyle, table, when } from "./output.ts";

export const approvals: Command = {
  name: "approvals",
  summary: "what agents asked a person to approve",
  help: `usage: roomctl approvals <room> [--pending | --status S] [--json]

Lists the room's approvals, oldest first: id, status, the action asked for, who asked,
when, and who decided. --pending is --status pending; S is one of ${APPROVAL_STATUSES.join(", ")}.
Decide with roomctl approve / roomctl reject.

example:
  roomctl approvals my-project --pending`,
  options: { pending: { type: "boolean" }, status: { type: "string" }, json: { type: "boolean" } },
  async run({ values, positionals }) {
    const roomId = roomArg(positionals);
    noMore(positionals, 1);
    if (values.pending && str(values, "status") !== undefined)
      throw new UsageError("--pending or --status, not both");
    const status = values.pending ? "pending" : str(values, "status");
    if (status !== undefined && !(APPROVAL_STATUSES as readonly string[]).includes(status))
      throw new UsageError(`--status must be one of ${APPROVAL_STATUSES.join(", ")}`);
    const query = status ? `?status=${status}` : "";
    const { approvals: list } = await connect().get<{ approvals: Approval[] }>(
      `/rooms/${seg(roomId)}/approvals${query}`,
    );
    if (values.json) {
      printJson(list);
      return 0;
    }
    table(
      list,
      [
        { head: "ID", get: (a) => a.id, style: () => "cyan" },
        { head: "STATUS", get: (a) => a.status, style: (a) => statusStyle(a.status) },
        { head: "REQUESTED BY", get: (a) => a.requestedBy },
        { head: "CREATED", get: (a) => when(a.created_at) },
        {
          head: "DECIDED BY",
          get: (a) =>
            a.decidedBy ??
            (a.status === "pending"
              ? `${a.approvers ? `for ${a.approvers.join(", ")}, ` : ""}expires ${when(a.expires_at)}`
              : ""),
        },
        { head: "ACTION", get: (a) => a.action, max: 80 },
      ],
      status ? `No ${status} approvals.` : "No approvals.",
    );
    return 0;
  },
};

function decide(decision: "approve" | "reject"): Command {
  return {
    name: decision,
    summary:
      decision === "approve"
        ? "approve an agent's request (people only)"
        : "reject an agent's request (people only)",
    help: `usage: roomctl ${decision} <room> <approval-id> [--note TEXT] [--json]

${decision === "approve" ? "Approves" : "Rejects"} a pending approval. Only a person decides, exactly once: a
second decision is refused naming the first, and an expired approval cannot be decided.
The requesting agent gets an approval_decided event.

example:
  roomctl ${decision} my-project apr-1 --note "${decision === "approve" ? "go ahead" : "not on main; open a pull request"}"`,
    options: { note: { type: "string" }, json: { type: "boolean" } },
    async run({ values, positionals }) {
      const roomId = roomArg(positionals);
      const id = required(positionals, 1, "<approval-id>");
      noMore(positionals, 2);
      only(values, ["note", "json"], decision);
      const note = str(values, "note");
      const decided = await connect().post<Approval>(`/rooms/${seg(roomId)}/approvals/${seg(id)}`, {
        decision,
        ...(note !== undefined ? { note } : {}),
      });
      if (values.json) printJson(decided);
      else out(clean(`${decided.id} ${decided.status} (${decided.action}).`));
      return 0;
    },
  };
}

export const approve = decide("approve");
export const reject = decide("reject");
