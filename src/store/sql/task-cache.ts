/**
 * Decoded tasks, kept per room, and each room's plan as it stood at a revision.
 *
 * Every task is kept with the stored text it was decoded from: a read decodes only rows whose text changed since the
 * last read (a 100-task plan cost ~25 µs of JSON.parse per read, and as much again to serialise the answer). The
 * records handed out are frozen and their serialisation remembered (protocol/json-text.ts): answers holding them are
 * not serialised again.
 *
 * A plan read (plan.ts) also keeps the room's whole plan under the revision it read (`rooms.plan_base` and
 * `rooms.plan_rev`, which the schema's triggers on `tasks` keep: sqlite/schema.ts PLAN_REVISIONS). The next read of
 * the room, which reads the room's row anyway, answers from it when the revision is the same, reads only the rows
 * written since (`tasks.rev` above the kept revision, an index range) when the base is the same, and reads the plan
 * whole otherwise (a deleted task, a new room of the same id, a room never read). The answer is exact as long as it
 * is kept only from what a read transaction saw — committed — which is why only plan.ts's read bodies keep plans.
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

/** A task row as the plan's reads select it: its id, its place in the plan and its stored text. */
export interface PlanRow {
  id: string;
  n: number;
  json: string;
}

/** A room's plan as it stood at (base, rev): its tasks in plan order, their places, and where each id is. */
interface KeptPlan {
  base: string;
  rev: number;
  tasks: Task[];
  ns: number[];
  at: Map<string, number>;
}

interface Room {
  entries: Map<string, Entry>;
  plan: KeptPlan | null;
}

export function createTaskCache(maxChars = MAX_CHARS) {
  /** Room id → its kept tasks and plan; rooms in least recently read order (a read moves its room last). */
  const rooms = new Map<string, Room>();
  /** Characters of stored text kept, over all rooms. */
  let size = 0;
  const sizeOf = (entries: Map<string, Entry>) => {
    let chars = ROOM_COST;
    for (const entry of entries.values()) chars += entry.json.length + ENTRY_COST;
    return chars;
  };

  function roomOf(roomId: string): Room {
    let room = rooms.get(roomId);
    if (room) {
      rooms.delete(roomId);
    } else {
      room = { entries: new Map(), plan: null };
      size += ROOM_COST;
    }
    rooms.set(roomId, room);
    return room;
  }

  function decodeIn(entries: Map<string, Entry>, id: string, json: string): Task {
    const entry = entries.get(id);
    if (entry !== undefined && entry.json === json) return entry.task;
    const task = knownJson(JSON.parse(json) as Task, json);
    size += json.length - (entry === undefined ? -ENTRY_COST : entry.json.length);
    entries.set(id, { json, task });
    return task;
  }

  function evict(): void {
    for (const [roomId, room] of rooms) {
      if (size <= maxChars) return;
      size -= sizeOf(room.entries);
      rooms.delete(roomId);
    }
  }

  function forget(roomId: string): void {
    const kept = rooms.get(roomId);
    if (kept) size -= sizeOf(kept.entries);
    rooms.delete(roomId);
  }

  /** Every task of the room from all its rows (in plan order); entries no longer among the rows are forgotten. */
  function decodeAll(roomId: string, rows: readonly { id: string; json: string }[]): Task[] {
    if (rows.length === 0) {
      // Nothing to keep: an empty plan's room is forgotten rather than kept as an empty entry.
      forget(roomId);
      return [];
    }
    const room = roomOf(roomId);
    if (room.entries.size > rows.length) {
      // Deleted tasks linger: start the room afresh from these rows, keeping the entries that still match.
      const fresh = new Map<string, Entry>();
      for (const row of rows) {
        const entry = room.entries.get(row.id);
        if (entry !== undefined) fresh.set(row.id, entry);
      }
      size += sizeOf(fresh) - sizeOf(room.entries);
      room.entries = fresh;
    }
    const out = rows.map((row) => decodeIn(room.entries, row.id, row.json));
    evict();
    return out;
  }

  /** The kept plan of the room when it is under `base` (whatever its revision), else null. */
  const planUnder = (roomId: string, base: string): KeptPlan | null => {
    const plan = rooms.get(roomId)?.plan ?? null;
    return plan !== null && plan.base === base ? plan : null;
  };

  return {
    /** How many rooms are kept and what they count (characters, overheads included). */
    kept: () => ({ rooms: rooms.size, chars: size }),
    /** The task stored as `json` (one row of the room). */
    decode(roomId: string, row: { id: string; json: string }): Task {
      const task = decodeIn(roomOf(roomId).entries, row.id, row.json);
      evict();
      return task;
    },
    decodeAll,
    /** The room's plan at exactly (base, rev), in plan order, when it is kept; else null. Never decodes. */
    plan(roomId: string, base: string, rev: number): readonly Task[] | null {
      const plan = planUnder(roomId, base);
      if (plan === null || plan.rev !== rev) return null;
      roomOf(roomId);
      return plan.tasks;
    },
    /** The task `taskId` of the plan at exactly (base, rev): the record, null when the plan has no such task. */
    task(roomId: string, base: string, rev: number, taskId: string): Task | null | undefined {
      const plan = planUnder(roomId, base);
      if (plan === null || plan.rev !== rev) return undefined;
      const i = plan.at.get(taskId);
      return i === undefined ? null : plan.tasks[i];
    },
    /** The revision of the room's kept plan when it is under `base`: what a read of the rows since starts from. */
    since(roomId: string, base: string): number | null {
      return planUnder(roomId, base)?.rev ?? null;
    },
    /** Keeps the plan at (base, rev) read whole from `rows` (every row, in plan order); returns its tasks. */
    keepWhole(roomId: string, base: string, rev: number, rows: readonly PlanRow[]): readonly Task[] {
      const tasks = decodeAll(roomId, rows);
      const room = rooms.get(roomId);
      if (room !== undefined)
        room.plan = {
          base,
          rev,
          tasks,
          ns: rows.map((row) => row.n),
          at: new Map(rows.map((row, i) => [row.id, i])),
        };
      return tasks;
    },
    /**
     * Brings the plan kept at (base, from) to `rev` with `rows`, every row written since `from` (in any order; no
     * row was deleted, or the base would differ), and returns its tasks; null when the kept plan is no longer at
     * (base, from) — another read moved it meanwhile — so the caller reads the plan whole.
     */
    keepSince(
      roomId: string,
      base: string,
      from: number,
      rev: number,
      rows: readonly PlanRow[],
    ): readonly Task[] | null {
      const before = planUnder(roomId, base);
      if (before === null || before.rev !== from) return null;
      const room = roomOf(roomId);
      const tasks = [...before.tasks];
      const ns = [...before.ns];
      const at = new Map(before.at);
      let ordered = true;
      for (const row of rows) {
        const i = at.get(row.id);
        // A task's place never changes once made; were it to, the plan is read whole rather than guessed.
        if (i !== undefined && ns[i] !== row.n) return null;
        const task = decodeIn(room.entries, row.id, row.json);
        if (i !== undefined) {
          tasks[i] = task;
          continue;
        }
        if (ns.length > 0 && row.n < (ns[ns.length - 1] as number)) ordered = false;
        at.set(row.id, tasks.length);
        tasks.push(task);
        ns.push(row.n);
      }
      let plan: KeptPlan = { base, rev, tasks, ns, at };
      if (!ordered) {
        const order = tasks.map((_, i) => i).sort((a, b) => (ns[a] as number) - (ns[b] as number));
        plan = {
          base,
          rev,
          tasks: order.map((i) => tasks[i] as Task),
          ns: order.map((i) => ns[i] as number),
          at: new Map(order.map((i, k) => [(tasks[i] as Task).id, k])),
        };
      }
      room.plan = plan;
      evict();
      return plan.tasks;
    },
  };
}

export type TaskCache = ReturnType<typeof createTaskCache>;
