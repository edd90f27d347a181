/**
 * The arms: the same agents on the same tasks, coordinating by different means.
 *
 * - room: the protocol as roomd's printed agent instructions describe it (summary, claims, files, context, events,
 *   wait_for_events).
 * - chat: the message-passing baseline. Agents share only a channel (free-text `message` events to everyone; no
 *   plan, context, claims or locks). Its rules, written so that it is as good as messages allow: every agent reads
 *   every message (delivered as soon as it is posted, like the room's waits); state is restated — an agent
 *   announces what it takes ("CLAIMING"), what it finished ("DONE") and every contract in full with its version; a
 *   joining agent replays the whole transcript; an agent that needs a fact nobody stated within its patience asks
 *   once, and after a second patience a person relays it (counted as a human intervention).
 * - room-no-claims: the room without claim_task / claim_files (and without expectedVersion): agents pick from the
 *   plan and mark tasks in progress with update_task.
 * - room-no-context: contracts and change requests as events carrying them, never context entries.
 * - room-poll: no wait_for_events: an idle agent polls get_unread_events every `pollMs`.
 */
import type { Profile } from "../../src/mcp/tool.ts";

export const ARMS = ["room", "chat", "room-no-claims", "room-no-context", "room-poll"] as const;
export type Arm = (typeof ARMS)[number];

export interface ArmRules {
  arm: Arm;
  /** A plan of tasks in the room (chat: the task list is in the instructions; progress is messages). */
  plan: boolean;
  /** claim_task, claim_files and expectedVersion. */
  claims: boolean;
  /** Contracts and change requests as context entries. */
  context: boolean;
  /** Idle agents block in wait_for_events (else they poll every pollMs). */
  push: boolean;
  pollMs: number;
}

/** Default polling interval of room-poll (S6 sweeps it). */
export const DEFAULT_POLL_MS = 60_000;

export function rulesOf(arm: Arm, pollMs = DEFAULT_POLL_MS): ArmRules {
  return {
    arm,
    plan: arm !== "chat",
    claims: arm !== "chat" && arm !== "room-no-claims",
    context: arm !== "chat" && arm !== "room-no-context",
    push: arm !== "room-poll",
    pollMs,
  };
}

/** The chat arm's instructions: what each chat agent is told (its tokens are booked like the room's). */
export const CHAT_INSTRUCTIONS = [
  "## Coordination (team channel)",
  "- You share one channel with the other agents: post_event type `message` to `all`; read every message with",
  "  get_unread_events each turn, or wait_for_events when you are waiting. There is no plan, no context, no claims.",
  "- When you start, read the whole channel (read_events, oldest page last) to learn the state.",
  "- Before you take a task, post `CLAIMING <task>`; when you finish, post `DONE <task>`.",
  "- Publish a contract by posting it in full with its version; post it again in full whenever it changes.",
  "- If you need a fact nobody has posted, ask for it; if nobody answers, a person will tell you.",
].join("\n");

/** The tools a chat agent uses, and the only ones of its listing it is booked for. */
export const CHAT_TOOLS = ["post_event", "get_unread_events", "wait_for_events", "read_events"] as const;

/** Profiles an agent may use (`--profile`). */
export type { Profile };
