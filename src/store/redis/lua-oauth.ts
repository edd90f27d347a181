/**
 * Lua of the OAuth grants (store/oauth-types.ts): team-slot scripts on TEAM_PRELUDE (lua-team.ts), like the keys.
 * K_OAUTH holds each grant's JSON by id, with three fields TS strips: `_end` and `_access` (the grant's and its access
 * token's end, ms) and `_digests` (every digest it ever held, so a revocation drops them all). K_OAUTH_DIGESTS maps
 * a digest to `<role>|<grantId>`: role "code", "access", "refresh" (current) or "spent" (a redeemed code or rotated
 * refresh token, kept while the grant lives so a second use revokes it). The rules are oauth-types.ts's.
 */
import type { NewOAuthGrant } from "../oauth-types.ts";
import { arg, returns, script } from "./script-decl.ts";

/** A grant as Lua keeps it. */
export type StoredGrant = Omit<NewOAuthGrant, "codeDigest"> & {
  _end: number;
  _access?: number;
  _digests: string[];
};

/** The helpers every OAuth script shares: find a digest's grant, tell whether it is live, revoke it. */
const OAUTH_HELPERS = `
local function find(digest)
  local entry = redis.call("HGET", K_OAUTH_DIGESTS, digest)
  if not entry then return nil, nil end
  local bar = string.find(entry, "|", 1, true)
  return string.sub(entry, 1, bar - 1), string.sub(entry, bar + 1)
end
-- The grant while it has not ended and its person's key (if it names one) exists; nil otherwise.
local function live_grant(id)
  local raw = redis.call("HGET", K_OAUTH, id)
  if not raw then return nil end
  local g = cjson.decode(raw)
  if g._end <= NOW then return nil end
  if type(g.keyId) == "string" and redis.call("HEXISTS", K_KEYS, g.keyId) == 0 then return nil end
  return g
end
local function revoke(id)
  local raw = redis.call("HGET", K_OAUTH, id)
  if not raw then return false end
  for _, d in ipairs(cjson.decode(raw)._digests) do redis.call("HDEL", K_OAUTH_DIGESTS, d) end
  redis.call("HDEL", K_OAUTH, id)
  return true
end
`;

/** createOAuthGrant: drops the team's ended grants, stores the new one and its code. Replies {ok: true}. */
export const CREATE_OAUTH_GRANT = script({
  args: {
    id: arg.text, // grant id
    digest: arg.text, // sha256(code)
    grant: arg.text, // the grant's JSON as Lua keeps it (StoredGrant)
  },
  reply: returns<boolean>(),
  body: `${OAUTH_HELPERS}
local all = redis.call("HGETALL", K_OAUTH)
for i = 1, #all, 2 do
  if cjson.decode(all[i + 1])._end <= NOW then revoke(all[i]) end
end
redis.call("HSET", K_OAUTH, id, grant)
redis.call("HSET", K_OAUTH_DIGESTS, digest, "code|" .. id)
return ok("true")
`,
});

/**
 * exchangeOAuthGrant: spends a code or the current refresh token for a new access and refresh pair. Replies
 * {ok: grant JSON} (as stored, TS strips the underscored fields), {ok: "reused"} or {ok: "invalid"}.
 */
export const EXCHANGE_OAUTH_GRANT = script({
  args: {
    kind: arg.text, // "code" | "refresh": what was presented
    digest: arg.text, // its digest
    access: arg.text, // sha256(new access token)
    accessEnd: arg.number, // its end, ms
    accessAt: arg.text, // its end, ISO
    refresh: arg.text, // sha256(new refresh token)
    refreshEnd: arg.number, // its end (the grant's new end), ms
    refreshAt: arg.text, // its end, ISO
  },
  reply: returns<StoredGrant | "reused" | "invalid">(),
  body: `${OAUTH_HELPERS}
local role, id = find(digest)
if not role then return ok('"invalid"') end
if role == "spent" then revoke(id) return ok('"reused"') end
if role ~= kind then return ok('"invalid"') end
local g = live_grant(id)
if not g then return ok('"invalid"') end
redis.call("HSET", K_OAUTH_DIGESTS, digest, "spent|" .. id)
local kept = {}
for _, d in ipairs(g._digests) do
  local r = find(d)
  if r == "access" then redis.call("HDEL", K_OAUTH_DIGESTS, d) elseif r then kept[#kept + 1] = d end
end
kept[#kept + 1] = access
kept[#kept + 1] = refresh
redis.call("HSET", K_OAUTH_DIGESTS, access, "access|" .. id)
redis.call("HSET", K_OAUTH_DIGESTS, refresh, "refresh|" .. id)
g._digests = kept
g._end = refresh_end
g._access = access_end
g.expiresAt = refresh_at
g.accessExpiresAt = access_at
local out = cjson.encode(g)
redis.call("HSET", K_OAUTH, id, out)
return ok(out)
`,
});

/** resolveOAuthToken: the grant of a current, unexpired access token. Replies {ok: grant JSON|null}. */
export const RESOLVE_OAUTH_TOKEN = script({
  args: {
    digest: arg.text, // sha256(access token)
  },
  reply: returns<StoredGrant | null>(),
  body: `${OAUTH_HELPERS}
local role, id = find(digest)
if role ~= "access" then return ok("null") end
local g = live_grant(id)
if not g or not g._access or g._access <= NOW then return ok("null") end
return ok(redis.call("HGET", K_OAUTH, id))
`,
});

/** listOAuthGrants: the live grants, unordered (sorted in TS). Replies {ok: [grant JSON…]}. */
export const LIST_OAUTH_GRANTS = script({
  args: {},
  reply: returns<StoredGrant[]>(),
  body: `${OAUTH_HELPERS}
local out = {}
local all = redis.call("HGETALL", K_OAUTH)
for i = 1, #all, 2 do
  if live_grant(all[i]) then out[#out + 1] = all[i + 1] end
end
return ok("[" .. table.concat(out, ",") .. "]")
`,
});

/** revokeOAuthGrant: by id, or by any digest the grant held ("" for none). Replies {ok: true|false}. */
export const REVOKE_OAUTH_GRANT = script({
  args: {
    id: arg.textOrEmpty, // grant id, or "" to find it by digest
    digest: arg.textOrEmpty, // a digest it held, or ""
  },
  reply: returns<boolean>(),
  body: `${OAUTH_HELPERS}
local gid = id
if gid == "" then
  local _, found = find(digest)
  if not found then return ok("false") end
  gid = found
end
return ok(revoke(gid) and "true" or "false")
`,
});
