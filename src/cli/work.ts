/**
 * Work between roles (docs/people.md): `handoff` offers tasks and context to another agent, `handoffs` lists the
 * offers, `fork` makes a new room from a prefix of the log, `verdicts` lists reviewers' verdicts.
 */
import { AGENT_ID } from "../protocol/ids.ts";
import { HANDOFF_STATUSES, type Handoff, type Verdict } from "../protocol/people.ts";
import { connect, seg } from "./api.ts";
import { type Command, int, list, noMore, roomArg, str, UsageError } from "./kit.ts";
import { clean, out, printJson, statusStyle, table, when } from "./output.ts";

export const handoff: Command = {
  name: "handoff",
  summary: "offer tasks and context to another agent",
  help: `usage: roomctl handoff <room> --to AGENT|any --note TEXT [--task ID …] [--context ID …]
                       [--from AGENT] [--json]

Offers the tasks and context entries to the agent (or to any agent with --to any).
Accepting moves each task whose owner is unchanged since the offer. A person offers on
behalf of the room (from human:<you>, or --from the agent whose work it is); an agent
key offers its own or unowned tasks. --task and --context repeat or take commas.

example:
  roomctl handoff my-project --to frontend --task task-3 --task task-4 --note "API is done; wire the UI"`,
  options: {
    to: { type: "string" },
    note: { type: "string" },
    task: { type: "string", multiple: true },
    context: { type: "string", multiple: true },
    from: { type: "string" },
    json: { type: "boolean" },
  },
  async run({ values, positionals }) {
    const roomId = roomArg(positionals);
    noMore(positionals, 1);
    const to = str(values, "to");
    if (to === undefined) throw new UsageError("missing --to <agent> (or --to any)");
    if (!AGENT_ID.test(to)) throw new UsageError("--to must be an agent id or any");
    const note = str(values, "note");
    if (note === undefined || note.trim() === "")
      throw new UsageError("missing --note (what the next agent needs to know)");
    const from = str(values, "from");
    const offered = await connect().post<Handoff>(`/rooms/${seg(roomId)}/handoffs`, {
      to,
      note,
      taskIds: list(values, "task") ?? [],
      contextIds: list(values, "context") ?? [],
      ...(from !== undefined ? { from } : {}),
    });
    if (values.json) printJson(offered);
    else
      out(
        clean(
          `Offered ${offered.id} from ${offered.from} to ${offered.to} (tasks: ${offered.taskIds.join(", ") || "none"}; context: ${offered.contextIds.join(", ") || "none"}).`,
        ),
      );
    return 0;
  },
};

export const handoffs: Command = {
  name: "handoffs",
  summary: "the room's handoff offers",
  help: `usage: roomctl handoffs <room> [--status S] [--json]

Lists handoffs, oldest first; S is one of ${HANDOFF_STATUSES.join(", ")}.

example:
  roomctl handoffs my-project --status offered`,
  options: { status: { type: "string" }, json: { type: "boolean" } },
  async run({ values, positionals }) {
    const roomId = roomArg(positionals);
    noMore(positionals, 1);
    const status = str(values, "status");
    if (status !== undefined && !(HANDOFF_STATUSES as readonly string[]).includes(status))
      throw new UsageError(`--status must be one of ${HANDOFF_STATUSES.join(", ")}`);
    const { handoffs: rows } = await connect().get<{ handoffs: Handoff[] }>(
      `/rooms/${seg(roomId)}/handoffs${status ? `?status=${status}` : ""}`,
    );
    if (values.json) {
      printJson(rows);
      return 0;
    }
    table(
      rows,
      [
        { head: "ID", get: (h) => h.id, style: () => "cyan" },
        { head: "STATUS", get: (h) => h.status, style: (h) => statusStyle(h.status) },
        { head: "FROM", get: (h) => h.from },
        { head: "TO", get: (h) => h.to },
        { head: "TASKS", get: (h) => h.taskIds.join(",") },
        { head: "CREATED", get: (h) => when(h.created_at) },
        { head: "NOTE", get: (h) => h.note, max: 60 },
      ],
      "No handoffs.",
    );
    return 0;
  },
};

export const fork: Command = {
  name: "fork",
  summary: "a new room from the log up to a seq",
  help: `usage: roomctl fork <room> [--at SEQ] [--as NEW-ID] [--json]

Makes a new room of your team from the events with seq ≤ SEQ (default: all of them),
with the plan, context, approvals, handoffs, reviews and verdicts as they stood then.
Leases, locks, file claims and the wheel are released: nobody drives the fork until
someone takes the wheel. The source room is unchanged. Without --as the new room gets a
generated id.

example:
  roomctl fork my-project --at 120 --as my-project-retry`,
  options: { at: { type: "string" }, as: { type: "string" }, json: { type: "boolean" } },
  async run({ values, positionals }) {
    const roomId = roomArg(positionals);
    noMore(positionals, 1);
    const atSeq = int(values, "at", 0);
    const newRoomId = str(values, "as");
    if (newRoomId !== undefined) roomArg([newRoomId]);
    const made = await connect().post<{ roomId: string; forkedFrom: { roomId: string; seq: number } }>(
      `/rooms/${seg(roomId)}/fork`,
      { ...(atSeq !== undefined ? { atSeq } : {}), ...(newRoomId !== undefined ? { newRoomId } : {}) },
    );
    if (values.json) printJson(made);
    else out(`Forked ${made.forkedFrom.roomId} at #${made.forkedFrom.seq} into ${made.roomId}.`);
    return 0;
  },
};

export const verdicts: Command = {
  name: "verdicts",
  summary: "reviewers' verdicts, newest first",
  help: `usage: roomctl verdicts <room> [--json]

Lists the verdicts reviewers recorded (record_verdict): pass, fail or neutral, with a
summary and a reference such as the pull request.

example:
  roomctl verdicts my-project --json`,
  options: { json: { type: "boolean" } },
  async run({ values, positionals }) {
    const roomId = roomArg(positionals);
    noMore(positionals, 1);
    const { verdicts: rows } = await connect().get<{ verdicts: Verdict[] }>(`/rooms/${seg(roomId)}/verdicts`);
    if (values.json) {
      printJson(rows);
      return 0;
    }
    table(
      rows,
      [
        { head: "ID", get: (v) => v.id, style: () => "cyan" },
        { head: "VERDICT", get: (v) => v.verdict, style: (v) => statusStyle(v.verdict) },
        { head: "BY", get: (v) => v.by },
        { head: "CREATED", get: (v) => when(v.created_at) },
        { head: "REF", get: (v) => v.ref ?? "" },
        { head: "SUMMARY", get: (v) => v.summary, max: 80 },
      ],
      "No verdicts.",
    );
    return 0;
  },
};
