/** Deleting a context entry (with its history) and reading every version of one in one transaction. */
import { errors } from "../../protocol/errors.ts";
import { BROADCAST, type ContextEntry } from "../../protocol/records.ts";
import type { ContextDeletion, ContextVersion, RoomScope } from "../types.ts";
import type { Events } from "./events.ts";
import type { StoreParts } from "./rooms.ts";
import type { Search } from "./search.ts";

export function createContextEdits({ db, rooms }: StoreParts, events: Events, search: Search) {
  const get = db.query<{ json: string }, [string, string]>(
    "SELECT json FROM contexts WHERE room_id = ? AND id = ?",
  );
  const history = db.query<{ json: string }, [string, string]>(
    "SELECT json FROM context_history WHERE room_id = ? AND id = ? ORDER BY rowid",
  );
  const remove = db.query<unknown, [string, string]>("DELETE FROM contexts WHERE room_id = ? AND id = ?");
  const removeHistory = db.query<unknown, [string, string]>(
    "DELETE FROM context_history WHERE room_id = ? AND id = ?",
  );

  const find = (roomId: string, id: string): ContextEntry => {
    const row = get.get(roomId, id);
    if (!row) throw errors.contextNotFound(id);
    return JSON.parse(row.json);
  };

  return {
    deleteContext(scope: RoomScope, input: ContextDeletion): ContextEntry {
      const room = rooms.check(scope);
      if (!room) throw errors.contextNotFound(input.id);
      const entry = find(room.room_id, input.id);
      if (input.expectedVersion !== undefined && input.expectedVersion !== entry.version) {
        throw errors.contextVersionConflict(entry);
      }
      rooms.claim(scope);
      remove.run(room.room_id, entry.id);
      removeHistory.run(room.room_id, entry.id);
      rooms.contextsChanged(room.room_id, -1);
      search.drop(room.room_id, entry.id);
      const consumers = entry.consuming_agents;
      events.append(room.room_id, {
        type: "context_deleted",
        from: input.agentId,
        to: consumers.length === 1 ? (consumers[0] as string) : BROADCAST,
        payload: { contextId: entry.id, entry },
      });
      return entry;
    },
    contextVersions(scope: RoomScope, id: string): { entry: ContextEntry; history: ContextVersion[] } {
      const room = rooms.read(scope);
      if (!room) throw errors.contextNotFound(id);
      const entry = find(room.room_id, id);
      return { entry, history: history.all(room.room_id, id).map((r) => JSON.parse(r.json)) };
    },
  };
}
