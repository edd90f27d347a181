/**
 * `roomctl tasks <room>` (the plan as a table) and `roomctl task add|update|claim`: plan changes go through the MCP
 * tools (add_task, update_task, claim_task), so every rule of the plan — dependencies, ownership, versions, the
 * plan lock, leases — is the server's, exactly as for agents. The acting agent is --agent, else ROOMD_AGENT, else
 * the key's bound agent.
 */
import { TASK_STATUSES, type Task } from "../protocol/records.ts";
import { connect } from "./api.ts";
import {
  type Command,
  int,
  list,
  noMore,
  type OptionValues,
  only,
  required,
  roomArg,
  str,
  UsageError,
} from "./kit.ts";
import { clean, out, printJson, statusStyle, table, when } from "./output.ts";

/** The agent a command acts as: --agent, else ROOMD_AGENT; nothing for a key bound to its agent. */
export const actingAgent = (values: OptionValues): { agentId?: string } => {
  const agentId = str(values, "agent") ?? (process.env.ROOMD_AGENT || undefined);
  return agentId === undefined ? {} : { agentId };
};

const text = (positionals: string[], from: number, what: string): string => {
  const joined = positionals.slice(from).join(" ").trim();
  if (joined === "") throw new UsageError(`missing ${what}`);
  return joined;
};

function printTasks(rows: Task[], json: boolean, empty: string): void {
  if (json) {
    printJson(rows);
    return;
  }
  table(
    rows,
    [
      { head: "ID", get: (t) => t.id, style: () => "cyan" },
      { head: "STATUS", get: (t) => t.status, style: (t) => statusStyle(t.status) },
      { head: "OWNER", get: (t) => t.owner ?? "-" },
      { head: "PRI", get: (t) => t.priority ?? "" },
      { head: "V", get: (t) => t.version },
      { head: "DEPENDS ON", get: (t) => t.depends_on.join(",") },
      { head: "TITLE", get: (t) => t.title, max: 80 },
    ],
    empty,
  );
}

const taskLine = (verb: string, t: Task) =>
  `${verb} ${t.id} "${t.title}": ${t.status}${t.owner ? ` @${t.owner}` : ""}, version ${t.version}${t.lease_expires_at ? `, lease until ${when(t.lease_expires_at)}` : ""}`;

export const tasks: Command = {
  name: "tasks",
  summary: "the plan as a table (--ready: only tasks that can start now)",
  help: `usage: roomctl tasks <room> [--ready] [--agent X] [--json]

Lists the room's tasks in plan order: id, status, owner, priority, version,
dependencies, title.

options:
  --ready     only pending tasks whose dependencies are all done, by priority
              (the get_unblocked_tasks tool); with --agent, only those X may take
  --agent X   with --ready: unowned tasks and X's own
  --json      the tasks as a JSON array (the Task records of docs/protocol.md)

examples:
  roomctl tasks my-project
  roomctl tasks my-project --ready --json`,
  options: { ready: { type: "boolean" }, agent: { type: "string" }, json: { type: "boolean" } },
  async run({ values, positionals }) {
    const roomId = roomArg(positionals);
    noMore(positionals, 1);
    if (!values.ready && str(values, "agent") !== undefined)
      throw new UsageError("--agent goes with --ready");
    const api = connect();
    if (values.ready) {
      const agent = str(values, "agent");
      const ready = await api.tool<Task[]>("get_unblocked_tasks", {
        roomId,
        ...(agent ? { agentId: agent } : {}),
      });
      printTasks(ready, values.json === true, "No task is ready to start.");
    } else {
      const plan = await api.tool<{ tasks: Task[] }>("read_plan", { roomId });
      printTasks(plan.tasks, values.json === true, "No tasks yet (roomctl task add <room> <title>).");
    }
    return 0;
  },
};

function priorityOf(values: OptionValues, allowNone: boolean): { priority?: number | null } {
  if (str(values, "priority") === "none" && allowNone) return { priority: null };
  const priority = int(values, "priority");
  return priority === undefined ? {} : { priority };
}

function statusOf(values: OptionValues): { status?: string } {
  const status = str(values, "status");
  if (status === undefined) return {};
  if (!(TASK_STATUSES as readonly string[]).includes(status))
    throw new UsageError(`--status must be one of ${TASK_STATUSES.join(", ")}`);
  return { status };
}

async function add(roomId: string, positionals: string[], values: OptionValues): Promise<Task> {
  const title = text(positionals, 2, "<title>");
  const depends = list(values, "depends-on");
  const description = str(values, "description");
  const args = {
    roomId,
    title,
    ...(description !== undefined ? { description } : {}),
    ...(depends !== undefined ? { depends_on: depends } : {}),
    ...priorityOf(values, false),
    ...actingAgent(values),
  };
  return connect().tool<Task>("add_task", args);
}

async function update(roomId: string, positionals: string[], values: OptionValues): Promise<Task> {
  const taskId = required(positionals, 2, "<task-id>");
  noMore(positionals, 3);
  if (values.unassign && str(values, "owner") !== undefined)
    throw new UsageError("--owner or --unassign, not both");
  const changes: Record<string, unknown> = {
    ...statusOf(values),
    ...(values.unassign
      ? { owner: null }
      : str(values, "owner") !== undefined
        ? { owner: str(values, "owner") }
        : {}),
    ...(str(values, "title") !== undefined ? { title: str(values, "title") } : {}),
    ...(str(values, "description") !== undefined ? { description: str(values, "description") } : {}),
    ...(list(values, "depends-on") !== undefined ? { depends_on: list(values, "depends-on") } : {}),
    ...priorityOf(values, true),
    ...(str(values, "note") !== undefined ? { note: str(values, "note") } : {}),
  };
  if (Object.keys(changes).length === 0)
    throw new UsageError("nothing to change: give --status, --owner, --title, --note, …");
  const expectedVersion = int(values, "expected-version", 1);
  return connect().tool<Task>("update_task", {
    roomId,
    taskId,
    ...changes,
    ...(expectedVersion !== undefined ? { expectedVersion } : {}),
    ...actingAgent(values),
  });
}

async function claim(roomId: string, positionals: string[], values: OptionValues): Promise<Task> {
  const taskId = required(positionals, 2, "<task-id>");
  noMore(positionals, 3);
  const leaseSeconds = int(values, "lease", 1);
  const expectedVersion = int(values, "expected-version", 1);
  const agent = actingAgent(values);
  try {
    return await connect().tool<Task>("claim_task", {
      roomId,
      taskId,
      ...(leaseSeconds !== undefined ? { leaseSeconds } : {}),
      ...(expectedVersion !== undefined ? { expectedVersion } : {}),
      ...agent,
    });
  } catch (error) {
    // Only the server knows whether the key is bound to an agent; a key that is not needs one named.
    if (agent.agentId === undefined && error instanceof Error && /agentId: required/.test(error.message))
      throw new UsageError(
        "a claim is an agent's: pass --agent <id>, set ROOMD_AGENT, or use a key bound to an agent",
      );
    throw error;
  }
}

const FORM_OPTIONS = {
  add: ["description", "depends-on", "priority", "agent", "json"],
  update: [
    "status",
    "owner",
    "unassign",
    "title",
    "description",
    "depends-on",
    "priority",
    "note",
    "expected-version",
    "agent",
    "json",
  ],
  claim: ["lease", "expected-version", "agent", "json"],
};

export const task: Command = {
  name: "task",
  summary: "add, update or claim a task (the plan tools)",
  help: `usage:
  roomctl task add <room> <title…> [--description D] [--depends-on t1,t2] [--priority N]
  roomctl task update <room> <task-id> [--status S] [--owner X | --unassign] [--title T]
                      [--description D] [--depends-on t1,t2] [--priority N|none] [--note N]
                      [--expected-version V]
  roomctl task claim <room> <task-id> [--lease SECONDS] [--expected-version V]
every form takes [--agent X] [--json]

add, update and claim are the add_task, update_task and claim_task tools: the plan's
rules apply (dependencies done before in_progress/done; another agent's task needs
--expected-version; claim gives the task to exactly one agent, with a lease).
The acting agent is --agent, else ROOMD_AGENT, else the agent the key is bound to.
--status is one of ${TASK_STATUSES.join(", ")}. --depends-on "" clears the dependencies.

examples:
  roomctl task add my-project "Add POST /login" --depends-on task-1 --priority 1
  roomctl task claim my-project task-2 --agent backend
  roomctl task update my-project task-2 --status done --note "merged" --agent backend`,
  options: {
    description: { type: "string" },
    "depends-on": { type: "string", multiple: true },
    priority: { type: "string" },
    status: { type: "string" },
    owner: { type: "string" },
    unassign: { type: "boolean" },
    title: { type: "string" },
    note: { type: "string" },
    "expected-version": { type: "string" },
    lease: { type: "string" },
    agent: { type: "string" },
    json: { type: "boolean" },
  },
  async run({ values, positionals }) {
    const action = required(positionals, 0, "action (add, update or claim)");
    if (!["add", "update", "claim"].includes(action))
      throw new UsageError(`unknown task action ${JSON.stringify(action)} (add, update, claim)`);
    only(values, FORM_OPTIONS[action as keyof typeof FORM_OPTIONS], `task ${action}`);
    const roomId = roomArg(positionals, 1);
    const result =
      action === "add"
        ? await add(roomId, positionals, values)
        : action === "update"
          ? await update(roomId, positionals, values)
          : await claim(roomId, positionals, values);
    if (values.json) printJson(result);
    else
      out(clean(taskLine(action === "add" ? "Added" : action === "update" ? "Updated" : "Claimed", result)));
    return 0;
  },
};
