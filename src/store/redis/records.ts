import {
  type ContextEntry,
  type JsonObject,
  type Presence,
  presenceOf,
  type RoomEvent,
  type Task,
} from "../../protocol/records.ts";
import type { TermCounts } from "../../protocol/search.ts";

/** A document's search terms by field, as scripts index them (protocol/search.ts fieldTerms). */
export type SearchTerms = Record<string, TermCounts>;

/** An entry as stored: JSON without payload ("m") and its payload ("p"). */
export interface StoredEntry {
  m: Omit<ContextEntry, "payload">;
  p: JsonObject;
}

/** An event as stored (without read_by) and its readers. */
export interface StoredEvent {
  e: Omit<RoomEvent, "read_by">;
  r: string[];
}

export interface StoredPresence {
  lastSeen: number;
  statusText?: string;
  /** Set by leave_room until the agent's next call. */
  left?: boolean;
}

/** The number of a minted "task-<n>" / "ctx-<n>" id. */
export const serial = (id: string) => Number(id.slice(id.lastIndexOf("-") + 1));
/** Creation order of minted ids, which Lua hashes do not keep. */
export const byCreation = (a: { id: string }, b: { id: string }) => serial(a.id) - serial(b.id);

export function toEntry({ m, p }: StoredEntry): ContextEntry {
  return {
    id: m.id,
    type: m.type,
    author: m.author,
    timestamp: m.timestamp,
    summary: m.summary,
    consuming_agents: m.consuming_agents,
    payload: p,
    version: m.version,
  };
}

export function toEvent({ e, r }: StoredEvent): RoomEvent {
  const event: RoomEvent = {
    id: e.id,
    seq: e.seq,
    type: e.type,
    from: e.from,
    to: e.to,
    payload: e.payload,
    timestamp: e.timestamp,
    read_by: r,
  };
  if (e.reply_to_id !== undefined) event.reply_to_id = e.reply_to_id;
  if (e.deleted !== undefined) event.deleted = e.deleted;
  return event;
}

export const toPresence = (agentId: string, stored: StoredPresence, now: number): Presence =>
  presenceOf(agentId, stored.lastSeen, stored.statusText, now, stored.left === true);

/** Every agent ever seen, ordered by agentId. */
export function toPresenceList(stored: Record<string, StoredPresence>, now: number): Presence[] {
  return Object.keys(stored)
    .sort()
    .map((agentId) => toPresence(agentId, stored[agentId] as StoredPresence, now));
}

export const sortTasks = (tasks: Task[]): Task[] => tasks.sort(byCreation);
