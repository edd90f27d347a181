/**
 * The checks a write of one task makes first, inlined into its script after PLAN_HELPERS (lua-plan.ts), on the
 * script's arguments `agent`, `id` and `expected` (a number, nil for any version); they leave the task as reads
 * show it in `raw` and `t`. Kept apart from the script declarations (scripts.ts turns every script a lua-*.ts
 * module declares into a script).
 */

/**
 * Plan lock, existence, version — on the task as reads show it (a lease that ran out already undone; record_leases
 * writes that once the checks passed). claim_task goes on with its own ownership rules (a lease).
 */
export const TASK_CHECKS = `
local locked = OWNED and plan_locked(agent)
if locked then return locked end
if OWNED then leases_due() end
local raw = OWNED and task_raw(id)
if not raw then return '{"err":"taskNotFound","id":' .. str(id) .. '}' end
local t = cjson.decode(raw)
local stale = version_refused(t, expected)
if stale then return stale end
`;

/** What every plan write checks first, in order: TASK_CHECKS, then ownership (another agent's task needs expected). */
export const PLAN_WRITE_CHECKS = `${TASK_CHECKS}local not_yours = owner_refused(t, agent, expected)
if not_yours then return not_yours end
`;
