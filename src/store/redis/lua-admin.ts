/**
 * Lua of the owner's access operations in the room's slot: invites and room administration. Each is
 * prepended with PRELUDE and GUARD, so a room owned by another team is refused before anything else. Invites are
 * stored as their JSON plus `digest` and `expiresMs` (which TS strips), so Lua can compare expiry as a number.
 */
import type { NewInvite } from "../access-types.ts";
import type { Numbered } from "./access-records.ts";
import { arg, returns, script } from "./script-decl.ts";

/** The owner-only check of every body below (GUARD already refused other owners; this refuses unowned rooms). */
const OWNER_ONLY = `
if not OWNED then return '{"err":"denied"}' end
`;

/**
 * createInvite: never claims. Drops the expired invites it sees, then stores unless `max` live ones remain.
 * Replies {ok: invite JSON} or {ok: "limit"}.
 */
export const CREATE_INVITE = script({
  args: {
    id: arg.text, // token id
    digest: arg.text, // sha256(token)
    invite: arg.text, // invite JSON as stored (with digest and expiresMs: access-records.ts storedInvite)
    max: arg.number, // most live invites the room may have
  },
  reply: returns<NewInvite | "limit">(),
  body: `${OWNER_ONLY}
local all = redis.call("HGETALL", K_INVITES)
local live = 0
for i = 1, #all, 2 do
  local old = cjson.decode(all[i + 1])
  if old.expiresMs > NOW then
    live = live + 1
  else
    redis.call("HDEL", K_INVITES, all[i])
    if redis.call("HGET", K_INVITE_DIGESTS, old.digest) == all[i] then redis.call("HDEL", K_INVITE_DIGESTS, old.digest) end
  end
end
if live >= max then
  return ok('"limit"')
end
-- The creation number "n" is spliced in: listings sort by createdAt, then n.
local n = W("HINCRBY", K_META, "invite_n", 1)
W("HSET", K_INVITES, id, string.sub(invite, 1, -2) .. ',"n":' .. n .. '}')
W("HSET", K_INVITE_DIGESTS, digest, id)
return ok(invite)
`,
});

/** listInvites: live invites only. Replies {ok: [invite JSON…]} (unordered; sorted in TS). */
export const LIST_INVITES = script({
  args: {},
  reply: returns<Numbered<NewInvite & { expiresMs?: number }>[]>(),
  body: `${OWNER_ONLY}
local out = {}
for _, raw in ipairs(redis.call("HVALS", K_INVITES)) do
  if cjson.decode(raw).expiresMs > NOW then out[#out + 1] = raw end
end
return ok("[" .. table.concat(out, ",") .. "]")
`,
});

/** deleteInvite: revokes. Replies {ok: true} when a live invite was revoked, {ok: false} otherwise. */
export const DELETE_INVITE = script({
  args: {
    id: arg.text, // token id
  },
  reply: returns<boolean>(),
  body: `${OWNER_ONLY}
local raw = redis.call("HGET", K_INVITES, id)
if not raw then return ok("false") end
local invite = cjson.decode(raw)
redis.call("HDEL", K_INVITES, id)
if redis.call("HGET", K_INVITE_DIGESTS, invite.digest) == id then redis.call("HDEL", K_INVITE_DIGESTS, invite.digest) end
-- An expired invite was already gone as far as listInvites is concerned: no such invite.
return ok(invite.expiresMs > NOW and "true" or "false")
`,
});

/** createRoom: claims an unowned room (once the team index has its place) or confirms it is ours. Replies {ok: {created}}. */
export const CREATE_ROOM = script({
  args: {},
  reply: returns<{ created: boolean }>(),
  body: `
if OWNED then
  return ok('{"created":false}')
end
if not CLAIM_OK then return CLAIM end
commit()
return ok('{"created":true}')
`,
});

/**
 * deleteRoom: every key of the room's fixed list (invites included), and "0" on the room's feed, so its watchers
 * end before anything of a next life of the room reaches them. Replies {ok: true}.
 */
export const DELETE_ROOM = script({
  args: {},
  reply: returns<true>(),
  body: `${OWNER_ONLY}
redis.call("DEL", unpack(KEYS))
publish("0")
return reply("true")
`,
});

/**
 * deleteIdleRoom: as DELETE_ROOM, only when the room's last use (meta last_used) is at or before `idle_since`; a room
 * without a recorded last use is kept. Replies {ok: true} when deleted, {ok: false} otherwise.
 */
export const DELETE_IDLE_ROOM = script({
  args: {
    idleSince: arg.number, // ms: the last use the archived export saw
  },
  reply: returns<boolean>(),
  body: `
if not OWNED then return reply("false") end
local used = tonumber(META[5])
if not used or used > idle_since then return reply("false") end
redis.call("DEL", unpack(KEYS))
publish("0")
return reply("true")
`,
});
