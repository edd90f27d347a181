/**
 * Lua of approvals and verdicts (docs/people.md, Approvals and Verdicts), each prepended with PRELUDE, LOG and GUARD. An approval is
 * stored with its expiry in ms (stripped in TS) and its details last, spliced verbatim, so a decision rewrites the
 * record without re-encoding what the agent sent.
 */
import type { Approval, Verdict } from "../../protocol/people.ts";
import type { JsonObject } from "../../protocol/records.ts";
import { PEOPLE_HELPERS } from "./lua-people-helpers.ts";
import { arg, returns, script } from "./script-decl.ts";

/** An approval as stored: with its expiry in ms, for comparing (TS strips it). */
export type StoredApproval = Approval & { expiresMs?: number };

/** requestApproval. Replies {ok: approval as stored}. */
export const REQUEST_APPROVAL = script({
  args: {
    by: arg.text, // requesting agent
    action: arg.text, // what it asks to do
    details: arg.jsonText<JsonObject>(), // details, spliced verbatim
    ttl: arg.number, // lifetime in ms
    approvers: arg.maybeJson<string[]>(), // the people who alone decide it, none for any approver
  },
  reply: returns<StoredApproval>(),
  body: `${PEOPLE_HELPERS}
if not OWNED and not CLAIM_OK then return CLAIM end
local a = { id = "apr-" .. num(W("HINCRBY", K_META, "approval_n", 1)), action = action, requestedBy = by,
  approvers = approvers, status = "pending", created_at = NOW_ISO, expiresMs = NOW + ttl, expires_at = R.iso(NOW + ttl) }
W("HSET", K_APPROVALS, a.id, P.approval(a, details, true))
append_event("approval_requested", by, "all", '{"approval":' .. P.approval(a, details, false) .. '}')
commit()
return ok(P.approval(a, details, true))
`,
});

/** getApproval. Replies {ok: approval as stored} or {err: "approvalNotFound"}. */
export const GET_APPROVAL = script({
  args: {
    id: arg.text, // approval id
  },
  reply: returns<StoredApproval>(),
  body: `
local raw = OWNED and redis.call("HGET", K_APPROVALS, id)
if not raw then return '{"err":"approvalNotFound","id":' .. str(id) .. '}' end
return ok(raw)
`,
});

/** listApprovals. Replies {ok: [approval as stored…]} (unordered; sorted and filtered in TS). */
export const LIST_APPROVALS = script({
  args: {},
  reply: returns<StoredApproval[]>(),
  body: `
if not OWNED then return ok("[]") end
return ok("[" .. table.concat(redis.call("HVALS", K_APPROVALS), ",") .. "]")
`,
});

/**
 * decideApproval: exactly once. Replies {ok: approval as stored} or {err: "approvalNotFound" | "approvalExpired" |
 * "approvalDecided"}.
 */
export const DECIDE_APPROVAL = script({
  args: {
    id: arg.text, // approval id
    by: arg.text, // the person deciding
    decision: arg.text, // "approve" or "reject"
    note: arg.maybeText, // the decision's note, none for none
  },
  reply: returns<StoredApproval>(),
  body: `${PEOPLE_HELPERS}
local raw = OWNED and redis.call("HGET", K_APPROVALS, id)
if not raw then return '{"err":"approvalNotFound","id":' .. str(id) .. '}' end
local a = cjson.decode(raw)
local refused = P.approval_refused(a)
if refused then return refused end
local details = P.details_of(raw)
a.status = decision == "approve" and "approved" or "rejected"
a.decidedBy = by
a.decided_at = NOW_ISO
if note then a.note = note end
local stored = P.approval(a, details, true)
W("HSET", K_APPROVALS, id, stored)
append_event("approval_decided", by, a.requestedBy, '{"approvalId":' .. str(id) .. ',"action":' .. str(a.action)
  .. ',"decision":' .. str(decision) .. ',"decidedBy":' .. str(by) .. (note and (',"note":' .. str(note)) or "") .. '}')
commit()
return ok(stored)
`,
});

/** recordVerdict: kept and announced, nothing else touched. Replies {ok: verdict}. */
export const RECORD_VERDICT = script({
  args: {
    by: arg.text, // the reviewer
    verdict: arg.text, // pass, fail or neutral
    summary: arg.text, // one paragraph
    details: arg.text, // markdown
    ref: arg.maybeText, // a URL, none for null
  },
  reply: returns<Verdict>(),
  body: `
if not OWNED and not CLAIM_OK then return CLAIM end
local id = "vrd-" .. num(W("HINCRBY", K_META, "verdict_n", 1))
local json = '{"id":' .. str(id) .. ',"verdict":' .. str(verdict) .. ',"summary":' .. str(summary) .. ',"details":'
  .. str(details) .. ',"ref":' .. (ref and str(ref) or "null") .. ',"by":' .. str(by) .. ',"created_at":'
  .. str(NOW_ISO) .. '}'
W("HSET", K_VERDICTS, id, json)
append_event("verdict_recorded", by, "all", '{"verdict":' .. json .. '}')
commit()
return ok(json)
`,
});

/** listVerdicts. Replies {ok: [verdict…]} (unordered; sorted newest first in TS). */
export const LIST_VERDICTS = script({
  args: {},
  reply: returns<Verdict[]>(),
  body: `
if not OWNED then return ok("[]") end
return ok("[" .. table.concat(redis.call("HVALS", K_VERDICTS), ",") .. "]")
`,
});
