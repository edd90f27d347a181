/**
 * Decoded tasks, kept per room with the stored text they were decoded from: a plan read decodes only the rows
 * whose text changed since the last read (a 100-task plan cost ~25 µs of JSON.parse per read, and as much again
 * to serialise the answer). The stored text is the key's check, so a write by any process — or a lease renewal
 * that rewrites the JSON in SQL — is seen at the next read. The records handed out are frozen and their
 * serialisation remembered (protocol/json-text.ts): answers holding them are not serialised again.
 */
import { knownJson } from "../../protocol/json-text.ts";
import type { Task } from "../../protocol/records.ts";

/**
 * Most stored text kept over all rooms, in characters (a 100-task plan is ~25,000); beyond it the least recently
 * read rooms are forgotten. Each kept task holds its text about three times (stored, serialised, escaped) plus the
 * decoded record: ~4 MB of characters here is at most ~50 MB of memory even for descriptions at their limit.
 */
const MAX_CHARS = 4_000_000;
/** What a kept room and a kept task cost beside their text, counted as characters so empty rooms are bounded too. */
const ROOM_COST = 256;
const ENTRY_COST = 128;

interface Entry {
  json: string;
  task: Task;
}

export function createTaskCache(maxChars = MAX_CHARS) {
  /** Room id → task id → entry; rooms in least recently read order (a read moves its room last). */
  const rooms = new Map<string, Map<string, Entry>>();
  /** Characters of stored text kept, over all rooms. */
  let size = 0;
  const sizeOf = (tasks: Map<string, Entry>) => {
    let chars = ROOM_COST;
    for (const entry of tasks.values()) chars += entry.json.length + ENTRY_COST;
    return chars;
  };

  function roomOf(roomId: string): Map<string, Entry> {
    let tasks = rooms.get(roomId);
    if (tasks) {
      rooms.delete(roomId);
    } else {
      tasks = new Map();
      size += ROOM_COST;
    }
    rooms.set(roomId, tasks);
    return tasks;
  }

  function decodeIn(tasks: Map<string, Entry>, id: string, json: string): Task {
    const entry = tasks.get(id);
    if (entry !== undefined && entry.json === json) return entry.task;
    const task = knownJson(JSON.parse(json) as Task, json);
    size += json.length - (entry === undefined ? -ENTRY_COST : entry.json.length);
    tasks.set(id, { json, task });
    return task;
  }

  function evict(): void {
    for (const [roomId, tasks] of rooms) {
      if (size <= maxChars) return;
      size -= sizeOf(tasks);
      rooms.delete(roomId);
    }
  }

  return {
    /** How many rooms are kept and what they count (characters, overheads included). */
    kept: () => ({ rooms: rooms.size, chars: size }),
    /** The task stored as `json` (one row of the room). */
    decode(roomId: string, row: { id: string; json: string }): Task {
      const task = decodeIn(roomOf(roomId), row.id, row.json);
      evict();
      return task;
    },
    /** Every task of the room, in the rows' order; tasks no longer among the rows are forgotten. */
    decodeAll(roomId: string, rows: { id: string; json: string }[]): Task[] {
      if (rows.length === 0) {
        // Nothing to keep: an empty plan's room is forgotten rather than kept as an empty entry.
        const kept = rooms.get(roomId);
        if (kept) size -= sizeOf(kept);
        rooms.delete(roomId);
        return [];
      }
      let tasks = roomOf(roomId);
      if (tasks.size > rows.length) {
        // Deleted tasks linger: start the room afresh from these rows, keeping the entries that still match.
        const fresh = new Map<string, Entry>();
        for (const row of rows) {
          const entry = tasks.get(row.id);
          if (entry !== undefined) fresh.set(row.id, entry);
        }
        size += sizeOf(fresh) - sizeOf(tasks);
        rooms.set(roomId, fresh);
        tasks = fresh;
      }
      const out = rows.map((row) => decodeIn(tasks, row.id, row.json));
      evict();
      return out;
    },
  };
}

export type TaskCache = ReturnType<typeof createTaskCache>;
