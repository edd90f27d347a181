/**
 * Event types roomd appends itself. Agents may not post them (post_event, reply_to_event and the compact `post`
 * refuse them): parts of roomd act on them — the bridge hands steers, interrupts and people's messages to
 * agents, get_my_summary lists people's messages, a fork rebuilds the plan and context from task and context
 * events — so an agent posting one could impersonate a person, the driver or roomd. docs/protocol.md lists
 * each (a test keeps the list and the documentation equal). `broadcast` is not among them: room_broadcast
 * appends it for the sending agent, and an agent posting one says no more than it could through room_broadcast.
 */
export const ROOMD_EVENT_TYPES: ReadonlySet<string> = new Set([
  "agent_left",
  "agent_resumed",
  "agent_step",
  "agent_suspended",
  "approval_decided",
  "approval_requested",
  "context_available",
  "context_deleted",
  "context_updated",
  "driver_changed",
  "event_deleted",
  "files_claim_expired",
  "files_claimed",
  "files_released",
  "handoff_accepted",
  "handoff_cancelled",
  "handoff_declined",
  "handoff_offered",
  "human_message",
  "interrupt",
  "review_decided",
  "review_requested",
  "room_forked",
  "shared_var_set",
  "steer",
  "task_added",
  "task_claimed",
  "task_deleted",
  "task_lease_expired",
  "task_updated",
  "template_applied",
  "verdict_recorded",
  "webhook_disabled",
]);

/** The refusal of a reserved type, naming it. */
export const reservedTypeMessage = (type: string) =>
  `Event type ${type} is reserved for events roomd appends itself; choose another type (e.g. ${type}_note)`;

/**
 * Event types that record people's acts or the wheel (docs/people.md "Who can do what"): a person's message, steer,
 * interrupt and decision — appended only for a person — and every change of driver. A room whose log holds one is
 * imported only by a person, or an agent's key could forge them (the bridge hands steers and messages to agents).
 */
export const PEOPLE_EVENT_TYPES: ReadonlySet<string> = new Set([
  "approval_decided",
  "driver_changed",
  "human_message",
  "interrupt",
  "steer",
]);
