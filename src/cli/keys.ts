/**
 * `roomctl keys` and `roomctl invites <room>`: the team's dynamic keys and a room's invites (/admin/keys,
 * /admin/rooms/:roomId/invites). A secret is printed once, when it is made — the server keeps only its digest.
 */
import { AGENT_ID } from "../protocol/ids.ts";
import { connect, seg } from "./api.ts";
import { type Command, noMore, type OptionValues, only, required, roomArg, str, UsageError } from "./kit.ts";
import { clean, out, printJson, table, when } from "./output.ts";

interface KeyRow {
  keyId: string;
  createdAt: string;
  note?: string;
  boundAgentId?: string;
  humanId?: string;
  hint: string;
  expiresAt?: string;
  lastUsedAt?: string;
  rooms?: string[];
  readOnly?: boolean;
  agentRateLimitPerMinute?: number;
  rotatedTo?: string;
}

/** What a key may reach: its rooms scope and read-only, or the whole team. */
const scopeOf = (row: KeyRow) =>
  [row.rooms ? `rooms ${row.rooms.join(",")}` : "", row.readOnly ? "read-only" : ""]
    .filter(Boolean)
    .join(", ") || "team";

/** " (rooms a,b, read-only, until …)" for a narrowed or expiring key; "" for a plain one. */
function detailOf(row: KeyRow): string {
  const parts = [
    scopeOf(row) === "team" ? "" : scopeOf(row),
    row.agentRateLimitPerMinute !== undefined ? `${row.agentRateLimitPerMinute} calls/min per agent` : "",
    row.expiresAt ? `until ${when(row.expiresAt)}` : "",
  ];
  const shown = parts.filter(Boolean).join(", ");
  return shown === "" ? "" : ` (${shown})`;
}

/** --agent-rate N: the key's own agent budget, a whole number of calls per minute (the server checks the range). */
function agentRateOption(values: OptionValues): number | undefined {
  const given = str(values, "agent-rate");
  if (given === undefined) return undefined;
  if (!/^\d{1,9}$/.test(given.trim()))
    throw new UsageError(
      `--agent-rate must be a whole number of calls per minute, got ${JSON.stringify(given)}`,
    );
  return Number(given.trim());
}

/** The --rooms list: comma-separated room ids (the server checks each). */
function roomsOption(values: OptionValues): string[] | undefined {
  const given = str(values, "rooms");
  if (given === undefined) return undefined;
  const rooms = given
    .split(",")
    .map((r) => r.trim())
    .filter((r) => r !== "");
  if (rooms.length === 0) throw new UsageError("--rooms must name at least one room id (a,b,c)");
  return rooms;
}

interface InviteRow {
  tokenId: string;
  createdAt: string;
  expiresAt: string;
  hint: string;
  humanId?: string;
}

/** --agent X (an agent's key or invite, bound to X) or --human Y (a person's), never both. */
function whose(values: OptionValues, agentField: "boundAgentId" | "agentId"): Record<string, string> {
  const agent = str(values, "agent");
  const human = str(values, "human");
  if (agent !== undefined && human !== undefined) throw new UsageError("--agent or --human, not both");
  if (agent !== undefined) {
    if (!AGENT_ID.test(agent) || agent.startsWith("human:"))
      throw new UsageError("--agent must be an agent id (1-64 chars of A-Z, a-z, 0-9, _ . : -)");
    return { [agentField]: agent };
  }
  if (human !== undefined) {
    if (!/^[A-Za-z0-9_.@-]{1,64}$/.test(human))
      throw new UsageError("--human must be 1-64 chars of A-Z, a-z, 0-9, _ . @ -");
    return { kind: "human", humanId: human };
  }
  return {};
}

const whoOf = (row: { boundAgentId?: string; humanId?: string }) =>
  row.humanId ? `human:${row.humanId}` : row.boundAgentId ? `agent ${row.boundAgentId}` : "agent (unbound)";

/** A duration: seconds, or a number with s, m, h or d. */
export function seconds(value: string, option = "--expires"): number {
  const m = /^(\d{1,9})([smhd]?)$/.exec(value.trim());
  if (!m)
    throw new UsageError(
      `${option} must be a duration such as 3600, 90m, 12h or 7d, got ${JSON.stringify(value)}`,
    );
  return Number(m[1]) * { "": 1, s: 1, m: 60, h: 3600, d: 86_400 }[m[2] as "" | "s" | "m" | "h" | "d"];
}

export const keys: Command = {
  name: "keys",
  summary:
    "the team's keys: list, create (for an agent or a person, with a lifetime and a scope), rotate, revoke",
  help: `usage:
  roomctl keys [--json]                                       the team's dynamic keys
  roomctl keys create [--agent X | --human Y] [--note N] [--expires D] [--rooms a,b] [--read-only]
                      [--agent-rate N] [--json]               a new key; its secret is shown once
  roomctl keys rotate <key-id> [--grace D] [--expires D] [--json]
                                                              a successor key (secret shown once); the old
                                                              key keeps working for the grace (default 1h)
  roomctl keys revoke <key-id> [--json]                       the key stops working at once

--agent X binds the key to agent X (it can act only as X: give it to that agent);
--human Y makes a person's key (only a person may). Neither: an unbound agent key.
--expires D: the key stops working after D (seconds, or 90m, 12h, 7d); without it, never
(a rotated key's successor gets the old key's lifetime). --rooms a,b: the key reaches only these
rooms; --read-only: it may only read. A scoped key cannot use the admin API (keys, rooms, invites).
--agent-rate N: each agent this key's calls act as may make N tool calls a minute (inside the
team's budget), in place of AGENT_RATE_LIMIT_PER_MINUTE; rotation keeps it.
The list shows when each key expires, when it was last used (to the minute) and its agent rate.

examples:
  roomctl keys create --agent backend --note "backend claude" --expires 30d
  roomctl keys create --agent backend --json | jq -r .secret
  roomctl keys create --agent watcher --rooms my-project --read-only
  roomctl keys rotate k_local_ab12cd34 --grace 10m
  roomctl keys revoke k_local_ab12cd34`,
  options: {
    agent: { type: "string" },
    human: { type: "string" },
    note: { type: "string" },
    expires: { type: "string" },
    rooms: { type: "string" },
    "read-only": { type: "boolean" },
    "agent-rate": { type: "string" },
    grace: { type: "string" },
    json: { type: "boolean" },
  },
  async run({ values, positionals }) {
    const [action] = positionals;
    if (action === undefined || action === "list") {
      noMore(positionals, action === undefined ? 0 : 1);
      only(values, ["json"], "keys");
      const { keys: rows } = await connect().get<{ keys: KeyRow[] }>("/admin/keys");
      if (values.json) printJson(rows);
      else
        table(
          rows,
          [
            { head: "KEY ID", get: (k) => k.keyId, style: () => "cyan" },
            { head: "FOR", get: (k) => whoOf(k) },
            { head: "SECRET", get: (k) => k.hint, style: () => "dim" },
            { head: "CREATED", get: (k) => when(k.createdAt) },
            { head: "EXPIRES", get: (k) => (k.expiresAt ? when(k.expiresAt) : "never") },
            { head: "LAST USED", get: (k) => (k.lastUsedAt ? when(k.lastUsedAt) : "never") },
            { head: "SCOPE", get: (k) => scopeOf(k), max: 40 },
            {
              head: "AGENT RATE",
              get: (k) => (k.agentRateLimitPerMinute !== undefined ? `${k.agentRateLimitPerMinute}/min` : ""),
            },
            {
              head: "NOTE",
              get: (k) => [k.rotatedTo && `rotated to ${k.rotatedTo}`, k.note].filter(Boolean).join("; "),
              max: 60,
            },
          ],
          "No keys (roomctl keys create --agent <id>).",
        );
      return 0;
    }
    if (action === "create") {
      noMore(positionals, 1);
      only(
        values,
        ["agent", "human", "note", "expires", "rooms", "read-only", "agent-rate", "json"],
        "keys create",
      );
      const note = str(values, "note");
      const expires = str(values, "expires");
      const rooms = roomsOption(values);
      const agentRate = agentRateOption(values);
      const body = {
        ...whose(values, "boundAgentId"),
        ...(note !== undefined ? { note } : {}),
        ...(expires !== undefined ? { expiresIn: seconds(expires) } : {}),
        ...(rooms !== undefined ? { rooms } : {}),
        ...(values["read-only"] === true ? { readOnly: true } : {}),
        ...(agentRate !== undefined ? { agentRateLimitPerMinute: agentRate } : {}),
      };
      const made = await connect().post<KeyRow & { secret: string }>("/admin/keys", body);
      if (values.json) printJson(made);
      else
        out(
          clean(
            `Created key ${made.keyId} for ${whoOf(made)}${detailOf(made)}. Its secret, shown only this once:`,
          ) + `\n${clean(made.secret)}`,
        );
      return 0;
    }
    if (action === "rotate") {
      const keyId = required(positionals, 1, "<key-id>");
      noMore(positionals, 2);
      only(values, ["grace", "expires", "json"], "keys rotate");
      const grace = str(values, "grace");
      const expires = str(values, "expires");
      const body = {
        ...(grace !== undefined ? { graceSeconds: seconds(grace, "--grace") } : {}),
        ...(expires !== undefined ? { expiresIn: seconds(expires) } : {}),
      };
      const made = await connect().post<
        KeyRow & { secret: string; rotated: { keyId: string; expiresAt: string } }
      >(`/admin/keys/${seg(keyId)}/rotate`, body);
      if (values.json) printJson(made);
      else
        out(
          clean(
            `Rotated ${keyId}: it keeps working until ${when(made.rotated.expiresAt)}. Its successor ${made.keyId} (for ${whoOf(made)}, ${scopeOf(made)}), secret shown only this once:`,
          ) + `\n${clean(made.secret)}`,
        );
      return 0;
    }
    if (action === "revoke") {
      const keyId = required(positionals, 1, "<key-id>");
      noMore(positionals, 2);
      only(values, ["json"], "keys revoke");
      const gone = await connect().del(`/admin/keys/${seg(keyId)}`);
      if (values.json) printJson(gone);
      else out(clean(`Revoked ${keyId}.`));
      return 0;
    }
    throw new UsageError(`unknown keys action ${JSON.stringify(action)} (list, create, rotate, revoke)`);
  },
};

export const invites: Command = {
  name: "invites",
  summary: "a room's invites: list, create, revoke",
  help: `usage:
  roomctl invites <room> [--json]                             the room's live invites
  roomctl invites <room> create [--agent X | --human Y] [--expires 7d] [--json]
                                                              a new invite; its token is shown once
  roomctl invites <room> revoke <token-id> [--json]

An invite works for this one room only, until it expires (60 s to 90 days; default 7 days;
--expires takes seconds or 90m, 12h, 7d) or is revoked. --agent X: it acts as agent X;
--human Y: a person's invite (Y watches and takes part as human:Y; only a person may make one).

examples:
  roomctl invites my-project create --agent reviewer --expires 1d
  roomctl invites my-project revoke tok_ab12cd34`,
  options: {
    agent: { type: "string" },
    human: { type: "string" },
    expires: { type: "string" },
    json: { type: "boolean" },
  },
  async run({ values, positionals }) {
    const roomId = roomArg(positionals);
    const action = positionals[1];
    const base = `/admin/rooms/${seg(roomId)}`;
    if (action === undefined || action === "list") {
      noMore(positionals, action === undefined ? 1 : 2);
      only(values, ["json"], "invites");
      const { invites: rows } = await connect().get<{ invites: InviteRow[] }>(`${base}/invites`);
      if (values.json) printJson(rows);
      else
        table(
          rows,
          [
            { head: "TOKEN ID", get: (i) => i.tokenId, style: () => "cyan" },
            { head: "FOR", get: (i) => (i.humanId ? `human:${i.humanId}` : "agent") },
            { head: "TOKEN", get: (i) => i.hint, style: () => "dim" },
            { head: "CREATED", get: (i) => when(i.createdAt) },
            { head: "EXPIRES", get: (i) => when(i.expiresAt) },
          ],
          `No live invites for ${roomId}.`,
        );
      return 0;
    }
    if (action === "create") {
      noMore(positionals, 2);
      only(values, ["agent", "human", "expires", "json"], "invites create");
      const expires = str(values, "expires");
      const body = {
        ...whose(values, "agentId"),
        ...(expires !== undefined ? { expiresIn: seconds(expires) } : {}),
      };
      const made = await connect().post<InviteRow & { token: string }>(`${base}/invite`, body);
      if (values.json) printJson(made);
      else
        out(
          `${clean(
            `Created invite ${made.tokenId} for ${roomId}, until ${when(made.expiresAt)}. Its token, shown only this once:`,
          )}\n${clean(made.token)}`,
        );
      return 0;
    }
    if (action === "revoke") {
      const tokenId = required(positionals, 2, "<token-id>");
      noMore(positionals, 3);
      only(values, ["json"], "invites revoke");
      const gone = await connect().del(`${base}/invites/${seg(tokenId)}`);
      if (values.json) printJson(gone);
      else out(clean(`Revoked invite ${tokenId}.`));
      return 0;
    }
    throw new UsageError(`unknown invites action ${JSON.stringify(action)} (list, create, revoke)`);
  },
};
