/**
 * `roomctl roles <room> [<person> <role> | <person> --remove]`: people's roles in a room (docs/people.md#roles) —
 * listed, set or removed through /admin/rooms/:roomId/roles. Setting needs a person's key that is an approver there
 * (an operator's anywhere); the server says which role an act needs.
 */
import { EVERYONE, ROLES, type Role } from "../protocol/roles.ts";
import { connect, seg } from "./api.ts";
import { type Command, noMore, only, roomArg, UsageError } from "./kit.ts";
import { out, printJson, table } from "./output.ts";

interface RolesView {
  roomId: string;
  roles: Record<string, Role>;
  others: Role;
  you: Role | null;
}

const PERSON = /^[A-Za-z0-9_.@-]{1,64}$/;

function print(view: RolesView): void {
  const rows = Object.entries(view.roles)
    .filter(([person]) => person !== EVERYONE)
    .map(([person, role]) => ({ person, role }));
  table(
    rows,
    [
      { head: "PERSON", get: (r) => r.person, style: () => "cyan" },
      { head: "ROLE", get: (r) => r.role },
    ],
    "No roles set: every person of the team is an approver here.",
  );
  if (rows.length > 0 || view.roles[EVERYONE] !== undefined)
    out(`Everyone else: ${view.others}. Operators: approver.`);
  if (view.you !== null) out(`You: ${view.you}.`);
}

export const roles: Command = {
  name: "roles",
  summary: "who is a viewer, member or approver in a room",
  help: `usage: roomctl roles <room> [--json]
       roomctl roles <room> <person> <${ROLES.join("|")}> [--json]
       roomctl roles <room> <person> --remove [--json]

Lists the people a room names with their role, sets one person's role, or removes it.
A viewer reads and watches; a member also posts messages, hands work over, forks and
writes through tools; an approver also decides approvals and takes the wheel. Team
operators are approvers everywhere. A room naming nobody makes every person an approver;
once it names someone, a person not named is a viewer, or takes the role of "${EVERYONE}".
Setting roles needs a person's key that is an approver in the room.

examples:
  roomctl roles my-project
  roomctl roles my-project alice approver
  roomctl roles my-project '${EVERYONE}' member
  roomctl roles my-project bob --remove`,
  options: { remove: { type: "boolean" }, json: { type: "boolean" } },
  async run({ values, positionals }) {
    const roomId = roomArg(positionals);
    const person = positionals[1];
    const role = positionals[2];
    const path = `/admin/rooms/${seg(roomId)}/roles`;
    let view: RolesView;
    if (person === undefined) {
      only(values, ["json"], "listing roles");
      view = await connect().get<RolesView>(path);
    } else {
      if (person !== EVERYONE && !PERSON.test(person))
        throw new UsageError(
          `<person> must be a person's id (1-64 chars of A-Z, a-z, 0-9, _ . @ -) or ${EVERYONE}`,
        );
      if (values.remove) {
        if (role !== undefined) throw new UsageError("a role or --remove, not both");
        view = await connect().del<RolesView>(`${path}/${seg(person)}`);
      } else {
        if (role === undefined || !(ROLES as readonly string[]).includes(role))
          throw new UsageError(`<role> must be one of ${ROLES.join(", ")} (or --remove)`);
        noMore(positionals, 3);
        view = await connect().put<RolesView>(`${path}/${seg(person)}`, { role });
      }
    }
    if (values.json) printJson(view);
    else print(view);
    return 0;
  },
};
