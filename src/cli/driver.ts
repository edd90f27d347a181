/**
 * People talking to agents (docs/people.md): `post` (a message), `drive` (see, take or release the wheel), `steer`
 * and `interrupt` (the driver's actions). Steer, interrupt and release carry the driver epoch: roomctl reads the
 * current one first (GET /rooms/:roomId/driver), so a person who lost the wheel meanwhile gets the server's
 * "Stale driver epoch …" or "Only the driver …" answer instead of acting on an old view.
 */
import { AGENT_ID } from "../protocol/ids.ts";
import type { DriverState } from "../protocol/people.ts";
import { type Api, connect, seg } from "./api.ts";
import { type Command, noMore, type OptionValues, only, roomArg, str, UsageError } from "./kit.ts";
import { clean, fields, out, printJson, when } from "./output.ts";

/** The words after the room, joined; "-" reads the text from stdin. */
async function textFrom(positionals: string[], what: string): Promise<string> {
  const words = positionals.slice(1);
  const joined =
    words.length === 1 && words[0] === "-" ? (await Bun.stdin.text()).trimEnd() : words.join(" ").trim();
  if (joined === "") throw new UsageError(`missing ${what}`);
  return joined;
}

function agentOption(values: OptionValues, required: boolean): string | undefined {
  const to = str(values, "to");
  if (to === undefined) {
    if (required) throw new UsageError("missing --to <agent>");
    return undefined;
  }
  if (!AGENT_ID.test(to))
    throw new UsageError("--to must be an agent id (1-64 chars of A-Z, a-z, 0-9, _ . : -)");
  return to;
}

const driverOf = (api: Api, roomId: string) => api.get<DriverState>(`/rooms/${seg(roomId)}/driver`);

export const post: Command = {
  name: "post",
  summary: "post a person's message to an agent or to all",
  help: `usage: roomctl post <room> <text…> [--to AGENT] [--json]

Posts a human_message from you (a person's key) to one agent, or to all without --to.
It leads the agent's next get_my_summary and reaches a running Claude Code agent
through its hooks. Text "-" reads the message from stdin.

examples:
  roomctl post my-project "Please add tests for the login route" --to backend
  git log -1 --format=%B | roomctl post my-project -`,
  options: { to: { type: "string" }, json: { type: "boolean" } },
  async run({ values, positionals }) {
    const roomId = roomArg(positionals);
    const to = agentOption(values, false) ?? "all";
    const text = await textFrom(positionals, "<text>");
    const sent = await connect().post<{ eventId: string; seq: number }>(`/rooms/${seg(roomId)}/messages`, {
      to,
      text,
    });
    if (values.json) printJson(sent);
    else out(`Posted #${sent.seq} to ${to}.`);
    return 0;
  },
};

export const drive: Command = {
  name: "drive",
  summary: "see who drives; take or release the wheel",
  help: `usage:
  roomctl drive <room> [--json]                who holds the wheel, and the epoch
  roomctl drive <room> take [--force] [--json] take the wheel (--force: an operator takes it from another person)
  roomctl drive <room> release [--json]        give it back (the current epoch is read for you)

The driver (a person) steers and interrupts the running agent. Taking a free wheel, or
one an agent holds, is granted at once; another person's is refused unless an operator
passes --force.

examples:
  roomctl drive my-project take
  roomctl drive my-project release`,
  options: { force: { type: "boolean" }, json: { type: "boolean" } },
  async run({ values, positionals }) {
    const roomId = roomArg(positionals);
    const action = positionals[1];
    noMore(positionals, action === undefined ? 1 : 2);
    if (action !== undefined && action !== "take" && action !== "release")
      throw new UsageError(`unknown drive action ${JSON.stringify(action)} (take, release)`);
    if (action !== "take") only(values, ["json"], action === undefined ? "drive" : "drive release");
    const api = connect();
    const path = `/rooms/${seg(roomId)}/driver`;
    const state =
      action === "take"
        ? await api.post<DriverState>(path, { action: "take", ...(values.force ? { force: true } : {}) })
        : action === "release"
          ? await api.post<DriverState>(path, {
              action: "release",
              epoch: (await driverOf(api, roomId)).epoch,
            })
          : await driverOf(api, roomId);
    if (values.json) {
      printJson(state);
      return 0;
    }
    if (action === undefined)
      fields([
        ["driver", state.holder ? `${state.holder} (${state.holderKind})` : "nobody"],
        ["epoch", state.epoch],
        ["since", when(state.since)],
      ]);
    else out(clean(`${action === "take" ? "You drive" : "Released"} ${roomId} (epoch ${state.epoch}).`));
    return 0;
  },
};

function driverAction(kind: "steer" | "interrupt"): Command {
  const field = kind === "steer" ? "text" : "reason";
  return {
    name: kind,
    summary:
      kind === "steer"
        ? "the driver steers an agent (added after its current step)"
        : "the driver interrupts an agent's next tool call",
    help: `usage: roomctl ${kind} <room> --to AGENT <${field}…> [--json]

${
  kind === "steer"
    ? "Sends a steer to the running agent: its bridge adds it as context after the current\ntool call."
    : "Interrupts the running agent: its bridge refuses its next tool call with your reason."
} Only the room's driver (a person: roomctl drive <room> take) may; the current
epoch is read for you. "-" reads the ${field} from stdin.

example:
  roomctl ${kind} my-project --to backend ${kind === "steer" ? '"Use the existing session middleware"' : '"Stop: that migration drops a table"'}`,
    options: { to: { type: "string" }, json: { type: "boolean" } },
    async run({ values, positionals }) {
      const roomId = roomArg(positionals);
      const to = agentOption(values, true) as string;
      const text = await textFrom(positionals, `<${field}>`);
      const api = connect();
      const { epoch } = await driverOf(api, roomId);
      const sent = await api.post<{ eventId: string; seq: number; epoch: number }>(
        `/rooms/${seg(roomId)}/${kind}`,
        {
          epoch,
          to,
          [field]: text,
        },
      );
      if (values.json) printJson(sent);
      else out(`${kind === "steer" ? "Steered" : "Interrupted"} ${to} (#${sent.seq}, epoch ${sent.epoch}).`);
      return 0;
    },
  };
}

export const steer = driverAction("steer");
export const interrupt = driverAction("interrupt");
