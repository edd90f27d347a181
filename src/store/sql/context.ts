/** Typed context entries, revised in place with their earlier versions kept in context_history. */

import { addressee, newContextEntry, revisedContextEntry } from "../../protocol/context-rules.ts";
import { errors } from "../../protocol/errors.ts";
import type { ContextEntry } from "../../protocol/records.ts";
import type { ContextFilter, ContextUpdate, ContextVersion, NewContext, RoomScope } from "../types.ts";
import type { Events } from "./events.ts";
import type { SqlParts } from "./rooms.ts";
import type { Op } from "./run.ts";

const parse = <T>(row: { json: string }): T => JSON.parse(row.json);

/** How many entries changed since a mark: a range of the (room_id, changed_seq) index, read from it alone. */
export const CONTEXT_CHANGED_SINCE_SQL =
  "SELECT count(*) AS c FROM contexts WHERE room_id = ? AND changed_seq > ?";

/** The entries of one type, in order: a range of the (room_id, type, n) index. */
export const CONTEXT_OF_TYPE_SQL = `SELECT json FROM contexts WHERE room_id = $room AND type = $type
     AND (CAST($author AS TEXT) IS NULL OR author = $author) ORDER BY n`;

export function createContext({ sql, now, rooms }: SqlParts, events: Events) {
  const insert = sql.query<unknown, [string, string, number, string, string, number, string]>(
    `INSERT INTO contexts (room_id, id, n, type, author, changed_seq, json)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)`,
  );
  const update = sql.query<unknown, [string, number, string, string, string]>(
    "UPDATE contexts SET author = ?1, changed_seq = ?2, json = ?3 WHERE room_id = ?4 AND id = ?5",
  );
  const get = sql.query<{ json: string }, [string, string]>(
    "SELECT json FROM contexts WHERE room_id = ? AND id = ?",
  );
  const list = sql.query<{ json: string }, [{ room: string; author: string | null }]>(
    `SELECT json FROM contexts WHERE room_id = $room AND (CAST($author AS TEXT) IS NULL OR author = $author)
     ORDER BY n`,
  );
  // A type asked for reads only its entries, in order, from the (room_id, type, n) index: one statement for both,
  // testing "$type IS NULL OR type = $type", read every entry of the room.
  const listOfType = sql.query<{ json: string }, [{ room: string; type: string; author: string | null }]>(
    CONTEXT_OF_TYPE_SQL,
  );
  // Forks rebuild context at any seq: each version records the log head it became current at (at_seq), and
  // keeps it when it moves to history.
  const historyAdd = sql.query<unknown, [string, string, string]>(
    `INSERT INTO context_history (room_id, id, json, at_seq)
     SELECT room_id, id, ?3, at_seq FROM contexts WHERE room_id = ?1 AND id = ?2`,
  );
  const historyAll = sql.query<{ json: string }, [string, string]>(
    "SELECT json FROM context_history WHERE room_id = ? AND id = ? ORDER BY rowid",
  );
  const changedSince = sql.query<{ c: number }, [string, number]>(CONTEXT_CHANGED_SINCE_SQL);
  const placeAtHead = sql.query<unknown, [string, string]>(
    "UPDATE contexts SET at_seq = (SELECT event_seq FROM rooms WHERE room_id = ?1) WHERE room_id = ?1 AND id = ?2",
  );

  function* find(roomId: string, id: string): Op<ContextEntry> {
    const row = yield* get.get(roomId, id);
    if (!row) throw errors.contextNotFound(id);
    return parse(row);
  }

  return {
    /** Entries written or updated after the context change counter stood at `mark`. */
    *countChangedSince(roomId: string, mark: number): Op<number> {
      return (yield* changedSince.get(roomId, mark))?.c ?? 0;
    },
    *writeContext(scope: RoomScope, input: NewContext): Op<ContextEntry> {
      yield* rooms.check(scope);
      yield* rooms.claim(scope);
      const n = yield* rooms.next(scope.roomId, "ctx_n");
      const entry = newContextEntry(n, input, now());
      const seq = yield* rooms.next(scope.roomId, "ctx_seq");
      const json = JSON.stringify(entry);
      yield* insert.run(scope.roomId, entry.id, n, entry.type, entry.author, seq, json);
      yield* rooms.contextsChanged(scope.roomId, 1);
      const to = addressee(entry.consuming_agents);
      if (to !== null) {
        const payload = {
          contextId: entry.id,
          contextType: entry.type,
          summary: entry.summary,
          consuming_agents: entry.consuming_agents,
        };
        yield* events.append(scope.roomId, { type: "context_available", from: entry.author, to, payload });
      }
      yield* placeAtHead.run(scope.roomId, entry.id);
      // Return what a read returns (the payload after its JSON round trip).
      return JSON.parse(json);
    },
    *readContext(scope: RoomScope, id: string): Op<ContextEntry> {
      const room = yield* rooms.read(scope);
      if (!room) throw errors.contextNotFound(id);
      return yield* find(room.room_id, id);
    },
    *contextHistory(scope: RoomScope, id: string): Op<ContextVersion[]> {
      const room = yield* rooms.read(scope);
      if (!room) throw errors.contextNotFound(id);
      yield* find(room.room_id, id);
      return (yield* historyAll.all(room.room_id, id)).map(parse<ContextVersion>);
    },
    *listContext(scope: RoomScope, filter: ContextFilter): Op<ContextEntry[]> {
      const room = yield* rooms.read(scope);
      if (!room) return [];
      const author = filter.author ?? null;
      const rows =
        filter.type === undefined
          ? yield* list.all({ room: room.room_id, author })
          : yield* listOfType.all({ room: room.room_id, type: filter.type, author });
      return rows.map(parse<ContextEntry>);
    },
    *updateContext(scope: RoomScope, input: ContextUpdate): Op<ContextEntry> {
      const room = yield* rooms.check(scope);
      if (!room) throw errors.contextNotFound(input.id);
      const previous = yield* find(room.room_id, input.id);
      const entry = revisedContextEntry(previous, input, now());
      const { id: _id, type: _type, ...kept } = previous;
      yield* rooms.claim(scope);
      yield* historyAdd.run(room.room_id, entry.id, JSON.stringify(kept satisfies ContextVersion));
      const json = JSON.stringify(entry);
      const seq = yield* rooms.next(room.room_id, "ctx_seq");
      yield* update.run(entry.author, seq, json, room.room_id, entry.id);
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
        yield* events.append(room.room_id, { type: "context_updated", from: entry.author, to, payload });
      }
      yield* placeAtHead.run(room.room_id, entry.id);
      return JSON.parse(json);
    },
  };
}

export type ContextOps = ReturnType<typeof createContext>;
