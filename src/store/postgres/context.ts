/**
 * Typed context entries, as the SQLite driver's (src/store/sqlite/context.ts): revised in place, earlier versions
 * kept in context_history.
 */
import { errors } from "../../protocol/errors.ts";
import type { ContextEntry } from "../../protocol/records.ts";
import { addressee, newContextEntry, revisedContextEntry } from "../sql-records.ts";
import type { ContextFilter, ContextUpdate, ContextVersion, NewContext, RoomScope } from "../types.ts";
import type { Events } from "./events.ts";
import type { StoreParts } from "./rooms.ts";

const parse = <T>(row: { json: string }): T => JSON.parse(row.json);

export function createContext({ pg, now, rooms }: StoreParts, events: Events) {
  const insert = pg.query<unknown, [string, string, number, string, string, number, string]>(
    `INSERT INTO contexts (room_id, id, n, type, author, changed_seq, json)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)`,
  );
  const update = pg.query<unknown, [string, number, string, string, string]>(
    "UPDATE contexts SET author = ?1, changed_seq = ?2, json = ?3 WHERE room_id = ?4 AND id = ?5",
  );
  const get = pg.query<{ json: string }, [string, string]>(
    "SELECT json FROM contexts WHERE room_id = ? AND id = ?",
  );
  const list = pg.query<{ json: string }, [{ room: string; type: string | null; author: string | null }]>(
    `SELECT json FROM contexts WHERE room_id = $room
     AND ($type::text IS NULL OR type = $type) AND ($author::text IS NULL OR author = $author) ORDER BY n`,
  );
  // The version leaving keeps the log head it became current at (forks rebuild context at any seq).
  const historyAdd = pg.query<unknown, [string, string, string]>(
    `INSERT INTO context_history (room_id, id, json, at_seq)
     SELECT room_id, id, ?3, at_seq FROM contexts WHERE room_id = ?1 AND id = ?2`,
  );
  const historyAll = pg.query<{ json: string }, [string, string]>(
    "SELECT json FROM context_history WHERE room_id = ? AND id = ? ORDER BY rowid",
  );
  const changedSince = pg.query<{ c: number }, [string, number]>(
    "SELECT count(*) AS c FROM contexts WHERE room_id = ? AND changed_seq > ?",
  );
  // Forks rebuild context at any seq (humans.md §5): each version records the log head it became current at.
  const placeAtHead = pg.query<unknown, [string, string]>(
    "UPDATE contexts SET at_seq = (SELECT event_seq FROM rooms WHERE room_id = ?1) WHERE room_id = ?1 AND id = ?2",
  );

  async function find(roomId: string, id: string): Promise<ContextEntry> {
    const row = await get.get(roomId, id);
    if (!row) throw errors.contextNotFound(id);
    return parse(row);
  }

  return {
    /** Entries written or updated after the context change counter stood at `mark`. */
    async countChangedSince(roomId: string, mark: number): Promise<number> {
      return (await changedSince.get(roomId, mark))?.c ?? 0;
    },
    async writeContext(scope: RoomScope, input: NewContext): Promise<ContextEntry> {
      await rooms.check(scope);
      await rooms.claim(scope);
      const n = await rooms.next(scope.roomId, "ctx_n");
      const entry = newContextEntry(n, input, now());
      const seq = await rooms.next(scope.roomId, "ctx_seq");
      const json = JSON.stringify(entry);
      await insert.run(scope.roomId, entry.id, n, entry.type, entry.author, seq, json);
      await rooms.contextsChanged(scope.roomId, 1);
      const to = addressee(entry.consuming_agents);
      if (to !== null) {
        const payload = {
          contextId: entry.id,
          contextType: entry.type,
          summary: entry.summary,
          consuming_agents: entry.consuming_agents,
        };
        await events.append(scope.roomId, { type: "context_available", from: entry.author, to, payload });
      }
      await placeAtHead.run(scope.roomId, entry.id);
      // Return what a read returns (the payload after its JSON round trip).
      return JSON.parse(json);
    },
    async readContext(scope: RoomScope, id: string): Promise<ContextEntry> {
      const room = await rooms.read(scope);
      if (!room) throw errors.contextNotFound(id);
      return find(room.room_id, id);
    },
    async contextHistory(scope: RoomScope, id: string): Promise<ContextVersion[]> {
      const room = await rooms.read(scope);
      if (!room) throw errors.contextNotFound(id);
      await find(room.room_id, id);
      return (await historyAll.all(room.room_id, id)).map(parse<ContextVersion>);
    },
    async listContext(scope: RoomScope, filter: ContextFilter): Promise<ContextEntry[]> {
      const room = await rooms.read(scope);
      if (!room) return [];
      const rows = await list.all({
        room: room.room_id,
        type: filter.type ?? null,
        author: filter.author ?? null,
      });
      return rows.map(parse<ContextEntry>);
    },
    async updateContext(scope: RoomScope, input: ContextUpdate): Promise<ContextEntry> {
      const room = await rooms.check(scope);
      if (!room) throw errors.contextNotFound(input.id);
      const previous = await find(room.room_id, input.id);
      const entry = revisedContextEntry(previous, input, now());
      const { id: _id, type: _type, ...kept } = previous;
      await rooms.claim(scope);
      await historyAdd.run(room.room_id, entry.id, JSON.stringify(kept satisfies ContextVersion));
      const json = JSON.stringify(entry);
      const seq = await rooms.next(room.room_id, "ctx_seq");
      await update.run(entry.author, seq, json, room.room_id, entry.id);
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
        await events.append(room.room_id, { type: "context_updated", from: entry.author, to, payload });
      }
      await placeAtHead.run(room.room_id, entry.id);
      return JSON.parse(json);
    },
  };
}

export type ContextOps = ReturnType<typeof createContext>;
