/**
 * `roomctl oauth`: the team's OAuth grants (/admin/oauth/grants) — which person connected which client, as which
 * agent in which room — and revoking one, which ends its access and refresh tokens at once.
 */
import { connect, seg } from "./api.ts";
import { type Command, noMore, only, required, UsageError } from "./kit.ts";
import { clean, out, printJson, table, when } from "./output.ts";

interface GrantRow {
  grantId: string;
  humanId: string;
  clientId: string;
  clientName: string;
  roomId: string;
  rooms?: string[];
  readOnly?: true;
  agentId: string;
  createdAt: string;
  expiresAt: string;
  accessExpiresAt?: string;
}

export const oauth: Command = {
  name: "oauth",
  summary: "clients connected with OAuth: list, revoke",
  help: `usage:
  roomctl oauth [--json]                    the team's OAuth grants (client, person, rooms, read-only, agent)
  roomctl oauth revoke <grant-id> [--json]  the grant's access and refresh tokens stop working at once

A grant is made when a person allows a client on roomd's consent page; it acts as one agent in
the room(s) the person picked, read-only if they chose so. It also ends when the person's key
is revoked.

examples:
  roomctl oauth
  roomctl oauth revoke g_local_ab12cd34`,
  options: { json: { type: "boolean" } },
  async run({ values, positionals }) {
    const [action] = positionals;
    if (action === undefined || action === "list") {
      noMore(positionals, action === undefined ? 0 : 1);
      only(values, ["json"], "oauth");
      const { grants } = await connect().get<{ grants: GrantRow[] }>("/admin/oauth/grants");
      if (values.json) printJson(grants);
      else
        table(
          grants,
          [
            { head: "GRANT ID", get: (g) => g.grantId, style: () => "cyan" },
            { head: "CLIENT", get: (g) => g.clientName, max: 40 },
            { head: "BY", get: (g) => `human:${g.humanId}` },
            { head: "ROOMS", get: (g) => (g.rooms ?? [g.roomId]).join(",") },
            { head: "SCOPE", get: (g) => (g.readOnly ? "read-only" : "") },
            { head: "AGENT", get: (g) => g.agentId },
            { head: "CREATED", get: (g) => when(g.createdAt) },
            { head: "ENDS", get: (g) => when(g.expiresAt) },
          ],
          "No OAuth grants (a person allows a client on roomd's consent page).",
        );
      return 0;
    }
    if (action === "revoke") {
      const grantId = required(positionals, 1, "<grant-id>");
      noMore(positionals, 2);
      only(values, ["json"], "oauth revoke");
      const gone = await connect().del(`/admin/oauth/grants/${seg(grantId)}`);
      if (values.json) printJson(gone);
      else out(clean(`Revoked ${grantId}.`));
      return 0;
    }
    throw new UsageError(`unknown oauth action ${JSON.stringify(action)} (list, revoke)`);
  },
};
