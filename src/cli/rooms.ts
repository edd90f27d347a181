/** `roomctl rooms`, `rooms create [id]`, `rooms delete <id>`: the team's rooms (/admin/rooms). */
import { connect, seg } from "./api.ts";
import { CliError, type Command, confirm, noMore, roomArg, UsageError } from "./kit.ts";
import { out, printJson, table, when } from "./output.ts";

interface RoomRow {
  roomId: string;
  createdAt?: string;
  lastActivity?: string;
}

export const rooms: Command = {
  name: "rooms",
  summary: "list, create and delete the team's rooms",
  help: `usage:
  roomctl rooms [--json]                 the team's live rooms, oldest first
  roomctl rooms create [<id>] [--json]   create a room (a generated 12-char id without <id>)
  roomctl rooms delete <id> [--yes]      delete a room and everything in it

A key bound to an agent, or an invite, cannot use the admin routes: rooms then lists
the rooms the key can use (the list_rooms tool). delete asks you to type the room id
back unless --yes is given (required when stdin is not a terminal).

examples:
  roomctl rooms
  roomctl rooms create my-project
  roomctl rooms delete my-project --yes`,
  options: { json: { type: "boolean" }, yes: { type: "boolean", short: "y" } },
  async run({ values, positionals }) {
    const [action] = positionals;
    if (action === undefined || action === "list") {
      noMore(positionals, action === undefined ? 0 : 1);
      const api = connect();
      let list: RoomRow[];
      try {
        list = (await api.get<{ rooms: RoomRow[] }>("/admin/rooms")).rooms;
      } catch (error) {
        // Bound keys and invites are refused the admin routes; the tool lists what they can use.
        if (!(error instanceof CliError && /\(403\)/.test(error.message))) throw error;
        list = (await api.tool<{ rooms: RoomRow[] }>("list_rooms", {})).rooms;
      }
      if (values.json) printJson(list);
      else
        table(
          list,
          [
            { head: "ROOM", get: (r) => r.roomId, style: () => "cyan" },
            { head: "CREATED", get: (r) => when(r.createdAt) },
            { head: "LAST ACTIVITY", get: (r) => when(r.lastActivity) },
          ],
          "No rooms yet (roomctl rooms create <id>).",
        );
      return 0;
    }
    if (action === "create") {
      noMore(positionals, 2);
      const roomId = positionals[1] === undefined ? undefined : roomArg(positionals, 1);
      const made = await connect().post<{ roomId: string; teamId: string }>(
        "/admin/rooms",
        roomId === undefined ? {} : { roomId },
      );
      if (values.json) printJson(made);
      else out(`Created room ${made.roomId} (team ${made.teamId}).`);
      return 0;
    }
    if (action === "delete") {
      noMore(positionals, 2);
      const roomId = roomArg(positionals, 1);
      const what = `Delete room ${roomId} with its plan, context and events`;
      // Refused before anything else when it cannot be confirmed (a script without --yes).
      if (values.yes !== true && !process.stdin.isTTY) await confirm(false, what, roomId);
      const api = connect();
      await confirm(values.yes === true, what, roomId);
      const gone = await api.del(`/admin/rooms/${seg(roomId)}`);
      if (values.json) printJson(gone);
      else out(`Deleted room ${roomId}.`);
      return 0;
    }
    throw new UsageError(`unknown rooms action ${JSON.stringify(action)} (list, create, delete)`);
  },
};
