/** The JSON the room page reads (GET /room/:roomId/view, the streams), as the page uses it. */
import type { FileClaim } from "../../protocol/claims.ts";
import type { Approval, Handoff, RoomInfo, Verdict } from "../../protocol/people.ts";
import type { ContextEntry, LockInfo, Presence, RoomEvent, Task } from "../../protocol/records.ts";
import type { Role } from "../../protocol/roles.ts";

/** A public viewer's records lack payloads, descriptions, details and notes: every such field may be absent. */
export type Event = Omit<RoomEvent, "payload" | "read_by"> & Partial<Pick<RoomEvent, "payload" | "read_by">>;

export interface View {
  roomId: string;
  member: boolean;
  info: RoomInfo;
  head: number;
  tasks: (Omit<Task, "description"> & { description?: string })[];
  presence: Presence[];
  locks: LockInfo[];
  claims: FileClaim[];
  context: Omit<ContextEntry, "payload">[];
  approvals: (Omit<Approval, "details"> & { details?: Approval["details"] })[];
  verdicts: (Omit<Verdict, "details"> & { details?: string })[];
  handoffs: (Omit<Handoff, "note"> & { note?: string })[];
  events: Event[];
  /** Suspended agents (protocol/suspensions.ts Suspension); the public sees only who and since when. */
  suspended?: { agentId: string; at: string; by?: string; reason?: string }[];
}

export interface ContextVersions {
  entry: ContextEntry;
  history: Omit<ContextEntry, "id" | "type">[];
}

/** Who is looking, from the page's data attributes. */
export interface Viewer {
  roomId: string;
  member: boolean;
  /** `human:<id>` when signed in. */
  me: string;
  operator: boolean;
  /** The person's role in the room (protocol/roles.ts); undefined for the public. The page offers what it allows. */
  role?: Role;
  /** May fork the room (a team's person; not a person's invite). */
  fork: boolean;
}
