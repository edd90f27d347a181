/**
 * The room board a chat client shows (docs/people.md, "The room board in chat clients"): one snapshot of a room —
 * tasks with owners, dependencies and leases, who is here, file claims and locks, the wheel, pending approvals,
 * open handoffs and the newest events — capped in size, since a host keeps every tool result it receives. Pure:
 * the board's own page script imports the shape.
 */
import type { FileClaim } from "./claims.ts";
import type { Approval, DriverState, Handoff } from "./people.ts";
import type { LockInfo, Presence, RoomEvent, Task } from "./records.ts";
import type { Role } from "./roles.ts";

/** How much a board holds at most. */
export const BOARD_LIMITS = {
  /** The snapshot's JSON, in bytes: past it, the longest lists are shortened until it fits. */
  maxBytes: 64 * 1024,
  tasks: 200,
  events: 30,
  presence: 50,
  claims: 50,
  locks: 50,
  approvals: 20,
  handoffs: 20,
  /** Longest text kept of a description, a note, and each string inside a payload or an approval's details. */
  text: 500,
} as const;

/** A task on the board: its description may be left out to fit the cap. */
export type BoardTask = Omit<Task, "description"> & { description?: string };
/** An event on the board: who read it is left out. */
export type BoardEvent = Omit<RoomEvent, "read_by">;

/** The board's lists, in the order the cap shortens them when they weigh the same. */
export const BOARD_LISTS = [
  "events",
  "tasks",
  "claims",
  "locks",
  "presence",
  "handoffs",
  "approvals",
] as const;
export type BoardList = (typeof BOARD_LISTS)[number];

/** A type rather than an interface: it travels as a JSON object (structuredContent). */
export type Board = {
  roomId: string;
  /** The log's head when the board was read: what a poll for changes passes as afterSeq. */
  seq: number;
  /**
   * A fingerprint of what changes without an event (who is here, claims, locks, the wheel): what a poll passes as
   * afterState, so a change made between two polls, on any process, is not missed.
   */
  state: string;
  /** Who is looking: `human:<id>` and their role in the room, or nulls for an agent's key. */
  viewer: { person: string | null; role: Role | null; operator: boolean };
  driver: DriverState;
  /** The plan, in plan order. */
  tasks: BoardTask[];
  presence: Presence[];
  claims: FileClaim[];
  locks: LockInfo[];
  /** Pending approvals only. */
  approvals: Approval[];
  /** Open (offered) handoffs only. */
  handoffs: Handoff[];
  /** The newest events, newest first. */
  events: BoardEvent[];
  /**
   * How many items of each list the limits left out, and how many tasks' descriptions (absent when nothing was).
   */
  omitted?: Partial<Record<BoardList | "descriptions", number>>;
};

/**
 * A JSON value made small: strings past `max` chars cut (with "…"), at most 20 items per list and 30 keys per
 * object, nothing deeper than 5 levels. What a person or an agent wrote keeps its shape, so the sentences still read.
 */
export function trimJson(value: unknown, max: number = BOARD_LIMITS.text, depth = 0): unknown {
  if (typeof value === "string") return value.length > max ? `${value.slice(0, max)}…` : value;
  if (value === null || typeof value !== "object") return value;
  if (depth >= 5) return "…";
  if (Array.isArray(value)) return value.slice(0, 20).map((v) => trimJson(v, max, depth + 1));
  const entries = Object.entries(value as Record<string, unknown>).slice(0, 30);
  return Object.fromEntries(entries.map(([k, v]) => [k, trimJson(v, max, depth + 1)]));
}

const encoder = new TextEncoder();
const bytes = (value: unknown) => encoder.encode(JSON.stringify(value)).length;

/**
 * The board within `maxBytes`: first every task description goes, then, while it is still too big, the heaviest
 * list loses half of its items — the oldest events, done tasks before the others, the last of the rest. What goes
 * is counted in `omitted`. Each item is small (trimJson), so this ends.
 */
export function capBoard(board: Board, maxBytes: number = BOARD_LIMITS.maxBytes): Board {
  let capped = board;
  if (bytes(capped) <= maxBytes) return capped;
  const described = capped.tasks.filter((t) => t.description).length;
  capped = {
    ...capped,
    tasks: capped.tasks.map(({ description: _d, ...task }) => task),
    ...(described > 0 ? { omitted: { ...capped.omitted, descriptions: described } } : {}),
  };
  while (bytes(capped) > maxBytes) {
    const heaviest = BOARD_LISTS.filter((list) => capped[list].length > 0).sort(
      (a, b) => bytes(capped[b]) - bytes(capped[a]),
    )[0];
    if (heaviest === undefined) break;
    const list = capped[heaviest] as unknown[];
    const kept = heaviest === "tasks" ? fewerTasks(capped.tasks) : list.slice(0, Math.floor(list.length / 2));
    const omitted = { ...capped.omitted };
    omitted[heaviest] = (omitted[heaviest] ?? 0) + list.length - kept.length;
    capped = { ...capped, [heaviest]: kept, omitted };
  }
  return capped;
}

/** Half of the done tasks go first (at least one); without done tasks, the last half of the plan. */
function fewerTasks(tasks: BoardTask[]): BoardTask[] {
  const done = tasks.filter((t) => t.status === "done");
  if (done.length === 0) return tasks.slice(0, Math.floor(tasks.length / 2));
  const dropped = new Set(done.slice(-Math.max(1, Math.ceil(done.length / 2))));
  return tasks.filter((t) => !dropped.has(t));
}
