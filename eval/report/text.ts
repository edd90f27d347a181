/** The prose of docs/evaluation.md that does not come from numbers: kept here so the whole file is generated. */
import type { ScenarioId } from "../scenarios/index.ts";

export const HONESTY = `These numbers come from **scripted agents**, not from language models. Each agent follows a fixed policy
written in \`eval/scenarios/\` and calls a real roomd over real HTTP with the official MCP SDK client, one key
bound to it each; the harness owns roomd's clock, so a working day passes in seconds and one seed gives the same
numbers every time.

What they can show: the **mechanics and costs of the protocol** — how many calls and tokens coordination takes
under each arm's rules, what claims do to collisions, what expectedVersion and the plan lock do to concurrent
writes, how long a change takes to reach a waiting consumer under push and under polling, what a mid-flight join
reads — all measured on roomd's real answers (every token counted is a token of a real result).

What they cannot show: **how a model behaves**. A scripted agent never misreads a contract, forgets an
instruction, skips a check, hallucinates a field or gets confused by a long transcript; the chat baseline here is
as diligent as messages allow, which real agents are not. Differences in correctness, interventions and wasted
work therefore come only from the rules written below, not from observed agents; they are not a study of real
agents and must not be quoted as one. The policies sit behind one interface (\`Actor\` and \`Ops\` in
\`eval/harness/\`), so a driver for real agents can be added later; none exists now. To measure real sessions,
use the room report (\`GET /rooms/:roomId/report\`, \`roomctl report\`) on rooms real agents worked in.`;

export const ASSUMPTIONS = `Cost model:
- Tokens are counted with o200k_base (js-tiktoken) on the exact text a model would read: once per session, the
  tool list its profile returns (\`tools/list\`) and its instructions (roomd's printed agent instructions; the
  chat rules for chat agents, who are booked only the four tools they use); then the text of every tool result it
  reads; plus a fixed **{OUTPUT} output tokens per call** (arguments and a line of reasoning; an estimate, not
  measured). Context is counted once per session, not re-read on every turn: real clients re-send it each turn
  (often cached), so real totals are higher and weigh the tool list more.
- Every roomd call is coordination; implementation (editing code) happens outside the room and is not counted in
  tokens, only in time.
- Latency is wall clock of one call at a time; it is reported apart and is the only number that changes between
  runs of one seed.

Behaviour model:
- Think time per decision: 2–10 s. Work happens in turns of 1–4 min; after each turn an agent reads its events
  once (\`get_unread_events\`, as the instructions say). Task sizes are drawn from a stream of their own, so every
  arm gets the same tasks of the same sizes.
- An idle agent waits with \`wait_for_events\` (push; up to 30 s a call) or, in \`room-poll\`, polls
  \`get_unread_events\` every 60 s (S6 sweeps 5–300 s). A wait is sent at the moment it returns — the harness knows
  from the store when an event for the agent is appended — so roomd's answer is real but its blocking is
  simulated, and push costs nothing in virtual time.
- Patience: an agent waiting for a fact another agent holds re-checks after 10 min. In the room arms the state
  answers (the plan and presence say who holds the work): it reads the plan once and keeps waiting. In chat only a
  message answers: it asks once; the holder answers at its next turn; after a second 10 min without an answer a
  person relays the state (counted). Chat agents restate: CLAIMING before a task, DONE after it, every contract in
  full with its version; a joining chat agent replays the whole channel; every message is read by everyone.
- S2's change costs the consumer a third of its client work (rebuilt against the new version); S7's steer costs
  half of what the builder had done; a rebuild overtaken by a newer version (S6) is wasted whole.
- People decide an approval 2–15 min after it is asked; they steer at a fixed time.
- \`room-no-claims\` drops every ownership guard (claim_task, claim_files, expectedVersion); \`room-no-context\`
  passes contracts and change requests as events; \`room-poll\` never blocks. Everything else is as in \`room\`.`;

export const QUESTIONS: Record<ScenarioId, string> = {
  S1: "The backend drafts the orders contract and publishes it to the frontend, then implements it; the frontend waits for it, then builds its client against it. Does the consumer build against the contract, at what coordination cost?",
  S2: "As S1, but halfway through the frontend needs a `cursor` field the contract lacks: it asks for the change (change_request, event or message), the backend publishes 1.1, the frontend rebuilds a third of its work. The case where message passing is said to degrade most.",
  S3: "N = 1…16 agents start together on 16 independent tasks that edit 12 files (task i edits file i mod 12). The first pick of every agent comes from the same read: without claims it is the birthday problem, p(N,K); with claims exactly one agent gets each task. A full workload per N gives makespan and wasted work.",
  S4: "Agents append their line to one task's description at the same moment (read, think, write). Without expectedVersion a write made on a stale read drops the lines written since; with it the stale write is refused and retried; with the plan lock writes queue.",
  S5: "The S2 session beside a team of three working through fifteen chores; an hour in, a new agent joins and recovers: a summary and a typed read of the contract (room), a walk through the log (room-no-context), or a replay of the channel (chat).",
  S6: "The producer revises the contract several times while the consumer, between rebuilds, waits idle. How long until the consumer sees each version, under push and at each polling interval, and at what cost?",
  S7: "A person redirects one agent mid-task and approves another's deploy: a steer and a structured approval (room arms) or the same words and the decision posted as messages (chat).",
};
