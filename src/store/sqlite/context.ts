/** Typed context entries, revised in place with their earlier versions kept in context_history. */
import { errors } from "../../protocol/errors.ts";
import type { ContextEntry } from "../../protocol/records.ts";
import { addressee, newContextEntry, revisedContextEntry } from "../sql-records.ts";
import type { ContextFilter, ContextUpdate, ContextVersion, NewContext, RoomScope } from "../types.ts";
import type { Events } from "./events.ts";
import type { StoreParts } from "./rooms.ts";

const parse = <T>(row: { json: string }): T => JSON.parse(row.json);

export function createContext({ db, now, rooms }: StoreParts, events: Events) {
  const insert = db.query<unknown, [string, string, number, string, string, number, string]>(
    `INSERT INTO contexts (room_id, id, n, type, author, changed_seq, json)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)`,
  );
  const update = db.query<unknown, [string, number, string, string, string]>(
    "UPDATE contexts SET author = ?1, changed_seq = ?2, json = ?3 WHERE room_id = ?4 AND id = ?5",
  );
  const get = db.query<{ json: string }, [string, string]>(
    "SELECT json FROM contexts WHERE room_id = ? AND id = ?",
  );
  const list = db.query<{ json: string }, { room: string; type: string | null; author: string | null }>(
    `SELECT json FROM contexts WHERE room_id = $room
     AND ($type IS NULL OR type = $type) AND ($author IS NULL OR author = $author) ORDER BY n`,
  );
  const historyAdd = db.query<unknown, [string, string, string]>(
    "INSERT INTO context_history (room_id, id, json) VALUES (?, ?, ?)",
  );
  const historyAll = db.query<{ json: string }, [string, string]>(
    "SELECT json FROM context_history WHERE room_id = ? AND id = ? ORDER BY rowid",
  );
  const changedSince = db.query<{ c: number }, [string, number]>(
    "SELECT count(*) AS c FROM contexts WHERE room_id = ? AND changed_seq > ?",
  );
  // Forks rebuild context at any seq (humans.md §5): each version records the log head it became current at, and
  // keeps it when it moves to history.
  const placeAtHead = db.query<unknown, [string, string]>(
    "UPDATE contexts SET at_seq = (SELECT event_seq FROM rooms WHERE room_id = ?1) WHERE room_id = ?1 AND id = ?2",
  );
  const historyPlace = db.query<unknown, [string, string]>(
    `UPDATE context_history SET at_seq = (SELECT at_seq FROM contexts WHERE room_id = ?1 AND id = ?2)
     WHERE rowid = last_insert_rowid()`,
  );

  function find(roomId: string, id: string): ContextEntry {
    const row = get.get(roomId, id);
    if (!row) throw errors.contextNotFound(id);
    return parse(row);
  }

  return {
    /** Entries written or updated after the context change counter stood at `mark`. */
    countChangedSince(roomId: string, mark: number): number {
      return changedSince.get(roomId, mark)?.c ?? 0;
    },
    writeContext(scope: RoomScope, input: NewContext): ContextEntry {
      rooms.check(scope);
      rooms.claim(scope);
      const n = rooms.next(scope.roomId, "ctx_n");
      const entry = newContextEntry(n, input, now());
      const seq = rooms.next(scope.roomId, "ctx_seq");
      const json = JSON.stringify(entry);
      insert.run(scope.roomId, entry.id, n, entry.type, entry.author, seq, json);
      rooms.contextsChanged(scope.roomId, 1);
      const to = addressee(entry.consuming_agents);
      if (to !== null) {
        const payload = {
          contextId: entry.id,
          contextType: entry.type,
          summary: entry.summary,
          consuming_agents: entry.consuming_agents,
        };
        events.append(scope.roomId, { type: "context_available", from: entry.author, to, payload });
      }
      placeAtHead.run(scope.roomId, entry.id);
      // Return what a read returns (the payload after its JSON round trip).
      return JSON.parse(json);
    },
    readContext(scope: RoomScope, id: string): ContextEntry {
      const room = rooms.read(scope);
      if (!room) throw errors.contextNotFound(id);
      return find(room.room_id, id);
    },
    contextHistory(scope: RoomScope, id: string): ContextVersion[] {
      const room = rooms.read(scope);
      if (!room) throw errors.contextNotFound(id);
      find(room.room_id, id);
      return historyAll.all(room.room_id, id).map(parse<ContextVersion>);
    },
    listContext(scope: RoomScope, filter: ContextFilter): ContextEntry[] {
      const room = rooms.read(scope);
      if (!room) return [];
      const rows = list.all({ room: room.room_id, type: filter.type ?? null, author: filter.author ?? null });
      return rows.map(parse<ContextEntry>);
    },
    updateContext(scope: RoomScope, input: ContextUpdate): ContextEntry {
      const room = rooms.check(scope);
      if (!room) throw errors.contextNotFound(input.id);
      const previous = find(room.room_id, input.id);
      const entry = revisedContextEntry(previous, input, now());
      const { id: _id, type: _type, ...kept } = previous;
      rooms.claim(scope);
      historyAdd.run(room.room_id, entry.id, JSON.stringify(kept satisfies ContextVersion));
      historyPlace.run(room.room_id, entry.id);
      const json = JSON.stringify(entry);
      update.run(entry.author, rooms.next(room.room_id, "ctx_seq"), json, room.room_id, entry.id);
      const to = addressee(entry.consuming_agents);
      if (to !== null) {
        const payload = {
          contextId: entry.id,
          contextType: entry.type,
          summary: entry.summary,
          previousVersion: previous.version,
          version: entry.version,
          consuming_agents: entry.consuming_agents,
        };
        events.append(room.room_id, { type: "context_updated", from: entry.author, to, payload });
      }
      placeAtHead.run(room.room_id, entry.id);
      return JSON.parse(json);
    },
  };
}

export type ContextOps = ReturnType<typeof createContext>;
