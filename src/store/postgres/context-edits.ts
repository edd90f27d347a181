/**
 * Deleting a context entry (with its history) and reading every version of one in one transaction, as the SQLite
 * driver's (src/store/sqlite/context-edits.ts).
 */
import { errors } from "../../protocol/errors.ts";
import { BROADCAST, type ContextEntry } from "../../protocol/records.ts";
import type { ContextDeletion, ContextVersion, RoomScope } from "../types.ts";
import type { Events } from "./events.ts";
import type { StoreParts } from "./rooms.ts";
import type { Search } from "./search.ts";

export function createContextEdits({ pg, rooms }: StoreParts, events: Events, search: Search) {
  const get = pg.query<{ json: string }, [string, string]>(
    "SELECT json FROM contexts WHERE room_id = ? AND id = ?",
  );
  const history = pg.query<{ json: string }, [string, string]>(
    "SELECT json FROM context_history WHERE room_id = ? AND id = ? ORDER BY rowid",
  );
  const remove = pg.query<unknown, [string, string]>("DELETE FROM contexts WHERE room_id = ? AND id = ?");
  const removeHistory = pg.query<unknown, [string, string]>(
    "DELETE FROM context_history WHERE room_id = ? AND id = ?",
  );

  const find = async (roomId: string, id: string): Promise<ContextEntry> => {
    const row = await get.get(roomId, id);
    if (!row) throw errors.contextNotFound(id);
    return JSON.parse(row.json);
  };

  return {
    async deleteContext(scope: RoomScope, input: ContextDeletion): Promise<ContextEntry> {
      const room = await rooms.check(scope);
      if (!room) throw errors.contextNotFound(input.id);
      const entry = await find(room.room_id, input.id);
      if (input.expectedVersion !== undefined && input.expectedVersion !== entry.version) {
        throw errors.contextVersionConflict(entry);
      }
      await rooms.claim(scope);
      await remove.run(room.room_id, entry.id);
      await removeHistory.run(room.room_id, entry.id);
      await rooms.contextsChanged(room.room_id, -1);
      await search.drop(room.room_id, entry.id);
      const consumers = entry.consuming_agents;
      await events.append(room.room_id, {
        type: "context_deleted",
        from: input.agentId,
        to: consumers.length === 1 ? (consumers[0] as string) : BROADCAST,
        payload: { contextId: entry.id, entry },
      });
      return entry;
    },
    async contextVersions(
      scope: RoomScope,
      id: string,
    ): Promise<{ entry: ContextEntry; history: ContextVersion[] }> {
      const room = await rooms.read(scope);
      if (!room) throw errors.contextNotFound(id);
      const entry = await find(room.room_id, id);
      return { entry, history: (await history.all(room.room_id, id)).map((r) => JSON.parse(r.json)) };
    },
  };
}
