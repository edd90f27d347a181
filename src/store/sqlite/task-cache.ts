/**
 * Decoded tasks, kept per room with the stored text they were decoded from: a plan read decodes only the rows
 * whose text changed since the last read (a 100-task plan cost ~25 µs of JSON.parse per read, and as much again
 * to serialise the answer). The stored text is the key's check, so a write by any process — or a lease renewal
 * that rewrites the JSON in SQL — is seen at the next read. The records handed out are frozen and their
 * serialisation remembered (protocol/json-text.ts): answers holding them are not serialised again.
 */
import { knownJson } from "../../protocol/json-text.ts";
import type { Task } from "../../protocol/records.ts";

/** Most tasks kept over all rooms; beyond it the least recently read rooms are forgotten. */
const MAX_TASKS = 20_000;

interface Entry {
  json: string;
  task: Task;
}

export function createTaskCache(maxTasks = MAX_TASKS) {
  /** Room id → task id → entry; rooms in least recently read order (a read moves its room last). */
  const rooms = new Map<string, Map<string, Entry>>();
  let size = 0;

  function roomOf(roomId: string): Map<string, Entry> {
    let tasks = rooms.get(roomId);
    if (tasks) {
      rooms.delete(roomId);
    } else {
      tasks = new Map();
    }
    rooms.set(roomId, tasks);
    return tasks;
  }

  function decodeIn(tasks: Map<string, Entry>, id: string, json: string): Task {
    const entry = tasks.get(id);
    if (entry !== undefined && entry.json === json) return entry.task;
    const task = knownJson(JSON.parse(json) as Task);
    if (entry === undefined) size++;
    tasks.set(id, { json, task });
    return task;
  }

  function evict(): void {
    for (const [roomId, tasks] of rooms) {
      if (size <= maxTasks) return;
      size -= tasks.size;
      rooms.delete(roomId);
    }
  }

  return {
    /** The task stored as `json` (one row of the room). */
    decode(roomId: string, row: { id: string; json: string }): Task {
      const task = decodeIn(roomOf(roomId), row.id, row.json);
      evict();
      return task;
    },
    /** Every task of the room, in the rows' order; tasks no longer among the rows are forgotten. */
    decodeAll(roomId: string, rows: { id: string; json: string }[]): Task[] {
      let tasks = roomOf(roomId);
      if (tasks.size > rows.length) {
        // Deleted tasks linger: start the room afresh from these rows, keeping the entries that still match.
        const fresh = new Map<string, Entry>();
        for (const row of rows) {
          const entry = tasks.get(row.id);
          if (entry !== undefined) fresh.set(row.id, entry);
        }
        size += fresh.size - tasks.size;
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
