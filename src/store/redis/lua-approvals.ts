/**
 * Lua bodies of approvals and verdicts (humans.md §3), each prepended with PRELUDE, LOG and GUARD. An approval is
 * stored with its expiry in ms (stripped in TS) and its details last, spliced verbatim, so a decision rewrites the
 * record without re-encoding what the agent sent.
 */
import { PEOPLE_HELPERS } from "./lua-people-helpers.ts";

/** requestApproval. Replies {ok: approval as stored}. */
export const REQUEST_APPROVAL = `${PEOPLE_HELPERS}
local by = ARGV[5]              -- requesting agent
local action = ARGV[6]          -- what it asks to do
local details = ARGV[7]         -- details JSON object, spliced verbatim
local ttl = tonumber(ARGV[8])   -- lifetime in ms
if not OWNED and not CLAIM_OK then return CLAIM end
local a = { id = "apr-" .. num(W("HINCRBY", K_META, "approval_n", 1)), action = action, requestedBy = by,
  status = "pending", created_at = NOW_ISO, expiresMs = NOW + ttl, expires_at = R.iso(NOW + ttl) }
W("HSET", K_APPROVALS, a.id, P.approval(a, details, true))
append_event("approval_requested", by, "all", '{"approval":' .. P.approval(a, details, false) .. '}')
commit()
return ok(P.approval(a, details, true))
`;

/** getApproval. Replies {ok: approval as stored} or {err: "approvalNotFound"}. */
export const GET_APPROVAL = `
local id = ARGV[5]              -- approval id
local raw = OWNED and redis.call("HGET", K_APPROVALS, id)
if not raw then return '{"err":"approvalNotFound","id":' .. str(id) .. '}' end
return ok(raw)
`;

/** listApprovals. Replies {ok: [approval as stored…]} (unordered; sorted and filtered in TS). */
export const LIST_APPROVALS = `
if not OWNED then return ok("[]") end
return ok("[" .. table.concat(redis.call("HVALS", K_APPROVALS), ",") .. "]")
`;

/**
 * decideApproval: exactly once. Replies {ok: approval as stored} or {err: "approvalNotFound" | "approvalExpired" |
 * "approvalDecided"}.
 */
export const DECIDE_APPROVAL = `${PEOPLE_HELPERS}
local id = ARGV[5]              -- approval id
local by = ARGV[6]              -- the person deciding
local decision = ARGV[7]        -- "approve" or "reject"
local note = ARGV[8]            -- note, used when ARGV[9] is "1"
local has_note = ARGV[9] == "1"
local raw = OWNED and redis.call("HGET", K_APPROVALS, id)
if not raw then return '{"err":"approvalNotFound","id":' .. str(id) .. '}' end
local a = cjson.decode(raw)
if a.status == "pending" and a.expiresMs <= NOW then
  return '{"err":"approvalExpired","id":' .. str(id) .. ',"expires_at":' .. str(a.expires_at) .. '}'
end
if a.status ~= "pending" then
  return '{"err":"approvalDecided","id":' .. str(id) .. ',"status":' .. str(a.status) .. ',"decidedBy":'
    .. str(a.decidedBy) .. ',"decided_at":' .. str(a.decided_at) .. '}'
end
local details = P.details_of(raw)
a.status = decision == "approve" and "approved" or "rejected"
a.decidedBy = by
a.decided_at = NOW_ISO
if has_note then a.note = note end
local stored = P.approval(a, details, true)
W("HSET", K_APPROVALS, id, stored)
append_event("approval_decided", by, a.requestedBy, '{"approvalId":' .. str(id) .. ',"action":' .. str(a.action)
  .. ',"decision":' .. str(decision) .. ',"decidedBy":' .. str(by) .. (has_note and (',"note":' .. str(note)) or "") .. '}')
commit()
return ok(stored)
`;

/** recordVerdict: kept and announced, nothing else touched. Replies {ok: verdict}. */
export const RECORD_VERDICT = `
local by = ARGV[5]              -- the reviewer
local verdict = ARGV[6]         -- pass, fail or neutral
local summary = ARGV[7]         -- one paragraph
local details = ARGV[8]         -- markdown
local ref = ARGV[9]             -- a URL, used when ARGV[10] is "1"
local has_ref = ARGV[10] == "1"
if not OWNED and not CLAIM_OK then return CLAIM end
local id = "vrd-" .. num(W("HINCRBY", K_META, "verdict_n", 1))
local json = '{"id":' .. str(id) .. ',"verdict":' .. str(verdict) .. ',"summary":' .. str(summary) .. ',"details":'
  .. str(details) .. ',"ref":' .. (has_ref and str(ref) or "null") .. ',"by":' .. str(by) .. ',"created_at":'
  .. str(NOW_ISO) .. '}'
W("HSET", K_VERDICTS, id, json)
append_event("verdict_recorded", by, "all", '{"verdict":' .. json .. '}')
commit()
return ok(json)
`;

/** listVerdicts. Replies {ok: [verdict…]} (unordered; sorted newest first in TS). */
export const LIST_VERDICTS = `
if not OWNED then return ok("[]") end
return ok("[" .. table.concat(redis.call("HVALS", K_VERDICTS), ",") .. "]")
`;
