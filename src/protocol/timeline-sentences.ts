/**
 * The sentence of each event type (protocol/timeline.ts says how they are used): the work's (timeline-work.ts),
 * then messages, people's acts and roomd's own notes here. A full sentence needs its payload's fields; without them
 * (a public viewer's payload-free event, an odd payload) the short form — who did what, without the substance —
 * stands in. Agents' own types get a generic sentence with the gist of their payload.
 */
import {
  aside,
  type Build,
  type EventLike,
  has,
  int,
  listed,
  type Obj,
  obj,
  type Part,
  plural,
  saying,
  str,
  strs,
  whom,
} from "./timeline-parts.ts";
import { WORK_SENTENCES } from "./timeline-work.ts";

const DRIVER: Record<string, (holder: Part, previous: Part) => Part[]> = {
  taken: (h) => [h, " took the wheel"],
  claimed: (h) => [h, " took the wheel"],
  taken_from_agent: (h, prev) => [h, " took the wheel from ", prev],
  forced: (h, prev) => [h, " took the wheel from ", prev, " (operator)"],
  released: (_h, prev) => [prev, " released the wheel"],
  forked: (h) => [h, " drives this fork"],
};

/** What an agent's leaving or suspension released ("<lead>task-3; 2 file claims; lock `deploy`"), or nothing. */
function freedBy(p: Obj, lead: string): Part[] {
  const freed: Part[][] = [];
  const tasks = strs(p.tasks);
  const paths = strs(p.paths);
  const locks = strs(p.locks);
  if (tasks.length > 0) freed.push(listed(tasks));
  if (paths.length > 0) freed.push([plural(paths.length, "file claim")]);
  if (locks.length > 0) freed.push([locks.length === 1 ? "lock " : "locks ", ...listed(locks, true)]);
  return freed.length > 0 ? [lead, ...freed.flatMap((parts, i) => (i > 0 ? ["; ", ...parts] : parts))] : [];
}

const OTHER_SENTENCES: Record<string, Build> = {
  human_message: (e, p) =>
    has(str(p.text), (text) => [{ who: e.from }, " wrote to ", whom(e.to), ": ", text]),
  broadcast: (e, p) =>
    has(str(p.message), (message) => [
      { who: e.from },
      " wrote to everyone: ",
      message,
      ...(has(str(p.status), (status) => [` (status: ${status})`]) ?? []),
    ]),
  steer: (e, p) => has(str(p.text), (text) => [{ who: e.from }, " steered ", whom(e.to), ": ", text]),
  interrupt: (e, p) => [{ who: e.from }, " interrupted ", whom(e.to), ...saying(p.reason)],
  driver_changed: (e, p) =>
    has(DRIVER[str(p.reason) ?? ""], (say) =>
      say({ who: str(p.holder) ?? e.from }, { who: str(p.previous) ?? e.from }),
    ),
  approval_requested: (e, p) => {
    const a = obj(p.approval);
    return has(str(a?.action), (action) => [
      { who: str(a?.requestedBy) ?? e.from },
      " asks for approval: ",
      { quote: action },
      ...aside(a?.id),
    ]);
  },
  approval_decided: (e, p) => {
    const decision = str(p.decision);
    if (decision !== "approve" && decision !== "reject") return undefined;
    return has(str(p.approvalId), (id) => [
      { who: str(p.decidedBy) ?? e.from },
      decision === "approve" ? " approved " : " rejected ",
      ...(has(str(p.action), (action) => [{ quote: action }, ` (${id})`]) ?? [id]),
      ...saying(p.note),
    ]);
  },
  agent_left: (e, p) => [
    { who: str(p.agentId) ?? e.from },
    " left the room",
    ...freedBy(p, " and released "),
  ],
  agent_suspended: (e, p) =>
    has(str(p.agentId), (agent) => [
      { who: str(p.by) ?? e.from },
      " suspended ",
      { who: agent },
      ...saying(p.reason),
      ...freedBy(p, "; released "),
    ]),
  agent_resumed: (e, p) =>
    has(str(p.agentId), (agent) => [{ who: str(p.by) ?? e.from }, " resumed ", { who: agent }]),
  agent_step: (e, p) =>
    has(str(p.tool), (tool) => [
      { who: e.from },
      " ran ",
      { code: tool },
      ...(has(str(p.target), (target) => [" on ", target]) ?? []),
      ...(p.ok === false ? [" (failed)"] : []),
    ]),
  event_deleted: (e, p) =>
    has(int(p.seq), (seq) => [
      { who: e.from },
      ` deleted event #${seq}`,
      ...(has(str(p.type), (type) => [" (", { code: type }, ")"]) ?? []),
    ]),
  room_forked: (e, p) => {
    const from = obj(p.from);
    const released = (Array.isArray(p.released) ? p.released : []).flatMap((t) => str(obj(t)?.id) ?? []);
    return has(str(from?.roomId), (room) => [
      { who: e.from },
      " forked this room from ",
      { code: room },
      ...(has(int(from?.seq), (seq) => [` at event #${seq}`]) ?? []),
      ...(released.length > 0 ? [", releasing the leases on ", ...listed(released)] : []),
    ]);
  },
  webhook_disabled: (_e, p) =>
    has(str(p.webhookId), (id) => {
      const failures = int(p.consecutiveFailures);
      const why =
        str(p.reason) === "gone"
          ? "its receiver is gone"
          : failures !== undefined
            ? `it failed ${plural(failures, "time")} in a row`
            : "it kept failing";
      return ["webhook ", { code: id }, ` was turned off: ${why}`];
    }),
};

/** Every roomd event type's full sentence. */
export const SENTENCES: Readonly<Record<string, Build>> = { ...WORK_SENTENCES, ...OTHER_SENTENCES };

/** Who did what, without the substance. */
const SHORT: Record<string, string> = {
  task_added: "added a task",
  task_updated: "updated a task",
  task_claimed: "claimed a task",
  task_deleted: "deleted a task",
  task_lease_expired: "noted that a task lease ran out",
  context_available: "published context",
  context_updated: "updated context",
  context_deleted: "deleted context",
  files_claimed: "claimed files",
  files_released: "released files",
  files_claim_expired: "noted that a file claim ran out",
  agent_left: "left the room",
  agent_suspended: "suspended an agent",
  agent_resumed: "resumed an agent",
  human_message: "wrote to",
  broadcast: "wrote to everyone",
  steer: "steered",
  interrupt: "interrupted",
  driver_changed: "changed who drives the room",
  approval_requested: "asked for an approval",
  approval_decided: "decided an approval",
  handoff_offered: "offered a handoff to",
  handoff_accepted: "accepted a handoff",
  handoff_declined: "declined a handoff",
  handoff_cancelled: "cancelled a handoff",
  review_requested: "asked for a review by",
  review_decided: "decided a review",
  verdict_recorded: "recorded a verdict",
  template_applied: "applied a template",
  shared_var_set: "set a shared variable",
  event_deleted: "deleted an event",
  room_forked: "forked this room",
  webhook_disabled: "turned a webhook off",
  agent_step: "took a step",
};
/** Short forms that name the addressee after the verb. */
const ADDRESSED = new Set(["human_message", "steer", "interrupt", "handoff_offered", "review_requested"]);

/** Fields whose text is the gist of an agent's payload, in order of preference. */
const GIST_KEYS = [
  "text",
  "message",
  "question",
  "answer",
  "summary",
  "note",
  "reason",
  "description",
  "title",
  "status",
];
/** Most scalar fields shown as the gist of a payload without a main text. */
const GIST_FIELDS = 3;
/** Verbs for a few types agents often post; any other type is "posted `type`". */
const POST_VERB: Record<string, string> = {
  question: "asked",
  ask: "asked",
  answer: "answered",
  reply: "answered",
};

/** The gist of a payload: its main text, else up to three scalar fields, else its compact JSON (cut). */
export function gist(p: Obj): string | undefined {
  for (const key of GIST_KEYS) {
    const text = str(p[key]);
    if (text !== undefined) return text;
  }
  const scalars = Object.entries(p).filter(
    ([, v]) => (typeof v === "string" && v !== "") || typeof v === "number" || typeof v === "boolean",
  );
  if (scalars.length > 0)
    return str(
      scalars
        .slice(0, GIST_FIELDS)
        .map(([k, v]) => `${k}: ${String(v)}`)
        .join(", "),
    );
  const json = JSON.stringify(p);
  return json === "{}" ? undefined : str(json);
}

/** An agent's own event: "frontend asked backend: …", "qa posted `test_run` to everyone: passed: 41". */
function posted(e: EventLike): Part[] {
  const verb = POST_VERB[e.type.toLowerCase()];
  const head: Part[] = verb
    ? [{ who: e.from }, ` ${verb} `, whom(e.to)]
    : [{ who: e.from }, " posted ", { code: e.type }, ...(e.to !== "all" ? [" to ", whom(e.to)] : [])];
  const reply = /^evt-(\d+)$/.exec(e.reply_to_id ?? "");
  return [
    ...head,
    ...(reply ? [` (reply to #${reply[1]})`] : []),
    ...saying(e.payload ? gist(e.payload) : undefined),
  ];
}

/** The sentence of one event that is not a tombstone. */
export function sentenceFor(e: EventLike): Part[] {
  const build = SENTENCES[e.type];
  if (!build) return posted(e);
  const full = e.payload ? build(e, e.payload) : undefined;
  if (full) return full;
  return [
    { who: e.from },
    ` ${SHORT[e.type] ?? "posted"}`,
    ...(ADDRESSED.has(e.type) ? [" ", whom(e.to)] : []),
  ];
}
