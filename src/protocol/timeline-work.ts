/**
 * Sentences of the work: the plan, context, file claims, handoffs, reviews, verdicts, templates and shared
 * variables, each read from its payload as docs/protocol.md#events-roomd-appends-itself describes it.
 */
import {
  aside,
  type Build,
  type EventLike,
  has,
  listed,
  type Obj,
  obj,
  type Part,
  plural,
  saying,
  str,
  strs,
  taskRef,
  whom,
} from "./timeline-parts.ts";

/** A status a task moved to, as the words around its reference. */
const STATUS_VERB: Record<string, [string, string]> = {
  done: ["finished ", ""],
  in_progress: ["started ", ""],
  blocked: ["marked ", " blocked"],
  pending: ["moved ", " back to pending"],
};

/** The other fields a task_updated changed, briefly: " (for bob, priority changed)". */
function alsoChanged(changes: Obj, skip: string[], owner: string | null | undefined, actor: string): Part[] {
  const extra: Part[][] = [];
  if (!skip.includes("owner") && owner !== undefined && owner !== actor)
    extra.push(owner === null ? ["unassigned"] : ["for ", { who: owner }]);
  if (!skip.includes("depends_on") && "depends_on" in changes) extra.push(["dependencies changed"]);
  if (!skip.includes("priority") && "priority" in changes) extra.push(["priority changed"]);
  if ("title" in changes || "description" in changes) extra.push(["edited"]);
  if (extra.length === 0) return [];
  return [" (", ...extra.flatMap((parts, i) => (i > 0 ? [", ", ...parts] : parts)), ")"];
}

/** task_updated: the change that matters most leads (status, then owner, dependencies, priority); others follow. */
function taskUpdated(e: EventLike, p: Obj): Part[] | undefined {
  const ref = taskRef(obj(p.task));
  if (!ref) return undefined;
  const changes = obj(p.changes) ?? {};
  const status = str(changes.status);
  const verb = status !== undefined && status !== str(p.previousStatus) ? STATUS_VERB[status] : undefined;
  const owner = "owner" in changes ? (str(changes.owner) ?? null) : undefined;
  let lead: Part[];
  let skip: string[] = [];
  if (verb) lead = [verb[0], ...ref, verb[1]];
  else if (owner !== undefined) {
    skip = ["owner"];
    lead =
      owner === null
        ? ["unassigned ", ...ref]
        : owner === e.from
          ? ["took ", ...ref]
          : ["assigned ", ...ref, " to ", { who: owner }];
  } else if ("depends_on" in changes) {
    skip = ["depends_on"];
    const deps = strs(changes.depends_on);
    lead =
      deps.length > 0
        ? ["made ", ...ref, " depend on ", ...listed(deps)]
        : ["cleared the dependencies of ", ...ref];
  } else if ("priority" in changes) {
    skip = ["priority"];
    const priority = changes.priority;
    lead = Number.isSafeInteger(priority)
      ? ["set ", ...ref, ` to priority ${priority}`]
      : ["cleared the priority of ", ...ref];
  } else return [{ who: e.from }, " edited ", ...ref, ...saying(changes.note)];
  return [
    { who: e.from },
    " ",
    ...lead,
    ...alsoChanged(changes, skip, owner, e.from),
    ...saying(changes.note),
  ];
}

/** "context api_contract `checkout` v1.2 by backend (for frontend): Checkout API" (new: "new context …", no version). */
function contextSentence(e: EventLike, p: Obj, fresh: boolean): Part[] | undefined {
  return has(str(p.contextId), (id) => {
    const version = fresh ? undefined : str(p.version);
    const consumers = strs(p.consuming_agents);
    return [
      fresh ? "new context " : "context ",
      ...(has(str(p.contextType), (type) => [`${type} `]) ?? []),
      { code: id },
      ...(version ? [` v${version}`] : []),
      " by ",
      { who: e.from },
      ...(consumers.length > 0 ? [" (for ", ...listed(consumers), ")"] : []),
      ...saying(p.summary),
    ];
  });
}

export const WORK_SENTENCES: Record<string, Build> = {
  task_added: (e, p) =>
    has(taskRef(obj(p.task)), (ref) => {
      const deps = strs(obj(p.task)?.depends_on);
      return [
        { who: e.from },
        " added ",
        ...ref,
        ...(deps.length > 0 ? [" (depends on ", ...listed(deps), ")"] : []),
      ];
    }),
  task_updated: taskUpdated,
  task_claimed: (e, p) => has(taskRef(obj(p.task)), (ref) => [{ who: e.from }, " claimed ", ...ref]),
  task_deleted: (e, p) =>
    has(taskRef(obj(p.task), p.taskId), (ref) => {
      const left = strs(p.dependents);
      const verb = left.length === 1 ? " still depends on it)" : " still depend on it)";
      return [
        { who: e.from },
        " deleted ",
        ...ref,
        ...(left.length > 0 ? [" (", ...listed(left), verb] : []),
      ];
    }),
  task_lease_expired: (_e, p) =>
    has(taskRef(obj(p.task), p.taskId), (ref) => [
      ...(has(str(p.previousOwner), (owner) => [{ who: owner }, "'s lease on "]) ?? ["the lease on "]),
      ...ref,
      " ran out; the task is open again",
    ]),
  context_available: (e, p) => contextSentence(e, p, true),
  context_updated: (e, p) => contextSentence(e, p, false),
  context_deleted: (e, p) => {
    const entry = obj(p.entry);
    return has(str(p.contextId) ?? str(entry?.id), (id) => [
      { who: e.from },
      " deleted context ",
      ...(has(str(entry?.type), (type) => [`${type} `]) ?? []),
      { code: id },
      ...saying(entry?.summary),
    ]);
  },
  files_claimed: (e, p) => {
    const paths = strs(p.paths);
    return paths.length > 0
      ? [{ who: e.from }, " claimed ", ...listed(paths, true), ...saying(p.reason)]
      : undefined;
  },
  files_released: (e, p) => {
    const paths = strs(p.paths);
    return paths.length > 0 ? [{ who: e.from }, " released ", ...listed(paths, true)] : undefined;
  },
  files_claim_expired: (_e, p) =>
    has(str(p.path), (path) => [
      ...(has(str(p.heldBy), (holder) => [{ who: holder }, "'s claim on "]) ?? ["the claim on "]),
      { code: path },
      " ran out",
    ]),
  handoff_offered: (e, p) =>
    has(obj(p.handoff), (h) => {
      const by = str(h.offeredBy) ?? e.from;
      const from = str(h.from);
      const items = [...strs(h.taskIds), ...strs(h.contextIds)];
      return [
        { who: by },
        " offered ",
        ...(items.length > 0 ? listed(items) : ["work"]),
        ...(from && from !== by ? [" of ", { who: from }] : []),
        " to ",
        whom(str(h.to) ?? e.to),
        ...saying(h.note),
      ];
    }),
  handoff_accepted: (e, p) =>
    has(str(p.handoffId), (id) => {
      const moved = strs(p.moved);
      const kept = Array.isArray(p.conflicts) ? p.conflicts.flatMap((c) => str(obj(c)?.taskId) ?? []) : [];
      const stays = kept.length === 1 ? " had changed hands and stays" : " had changed hands and stay";
      return [
        { who: str(p.by) ?? e.from },
        ` accepted ${id}`,
        ...(has(str(p.from), (from) => [" from ", { who: from }]) ?? []),
        ...(moved.length > 0 ? [" and took ", ...listed(moved)] : []),
        ...(kept.length > 0 ? ["; ", ...listed(kept), stays] : []),
      ];
    }),
  handoff_declined: (e, p) =>
    has(str(p.handoffId), (id) => [{ who: str(p.by) ?? e.from }, ` declined ${id}`, ...saying(p.reason)]),
  handoff_cancelled: (e, p) =>
    has(str(p.handoffId), (id) => [{ who: str(p.by) ?? e.from }, ` cancelled ${id}`]),
  review_requested: (e, p) => {
    const r = obj(p.review);
    return has(str(r?.subject), (subject) => [
      { who: str(r?.requester) ?? e.from },
      " asked ",
      whom(str(r?.reviewer) ?? e.to),
      " to review ",
      { quote: subject },
      ...aside(str(r?.task_id) ?? str(r?.context_id)),
    ]);
  },
  review_decided: (e, p) => {
    const r = obj(p.review);
    const status = str(r?.status);
    if (status !== "approved" && status !== "rejected") return undefined;
    return has(str(r?.subject), (subject) => [
      { who: str(r?.reviewer) ?? e.from },
      ` ${status} the review `,
      { quote: subject },
      ...saying(r?.comment),
    ]);
  },
  verdict_recorded: (e, p) => {
    const v = obj(p.verdict);
    return has(str(v?.verdict), (verdict) => [
      { who: str(v?.by) ?? e.from },
      ` recorded a ${verdict} verdict`,
      ...saying(v?.summary),
    ]);
  },
  template_applied: (e, p) =>
    has(str(p.template), (template) => [
      { who: e.from },
      " applied the template ",
      { code: template },
      ` (${plural(strs(p.tasks).length, "task")}, ${plural(strs(p.contexts).length, "context entry", "context entries")})`,
    ]),
  shared_var_set: (e, p) =>
    has(str(p.key), (key) => [{ who: e.from }, " set the shared variable ", { code: key }]),
};
