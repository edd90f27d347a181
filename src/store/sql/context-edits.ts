/** Deleting a context entry (with its history) and reading every version of one in one transaction. */

import { checkContextVersion, deletionAddressee } from "../../protocol/context-rules.ts";
import { errors } from "../../protocol/errors.ts";
import type { ContextEntry } from "../../protocol/records.ts";
import type { ContextDeletion, ContextVersion, RoomScope } from "../types.ts";
import type { Events } from "./events.ts";
import type { SqlParts } from "./rooms.ts";
import type { Op } from "./run.ts";

export function createContextEdits({ sql, rooms, dialect }: SqlParts, events: Events) {
  const get = sql.query<{ json: string }, [string, string]>(
    "SELECT json FROM contexts WHERE room_id = ? AND id = ?",
  );
  const history = sql.query<{ json: string }, [string, string]>(
    "SELECT json FROM context_history WHERE room_id = ? AND id = ? ORDER BY rowid",
  );
  const remove = sql.query<unknown, [string, string]>("DELETE FROM contexts WHERE room_id = ? AND id = ?");
  const removeHistory = sql.query<unknown, [string, string]>(
    "DELETE FROM context_history WHERE room_id = ? AND id = ?",
  );

  function* find(roomId: string, id: string): Op<ContextEntry> {
    const row = yield* get.get(roomId, id);
    if (!row) throw errors.contextNotFound(id);
    return JSON.parse(row.json);
  }

  return {
    *deleteContext(scope: RoomScope, input: ContextDeletion): Op<ContextEntry> {
      const room = yield* rooms.check(scope);
      if (!room) throw errors.contextNotFound(input.id);
      const entry = yield* find(room.room_id, input.id);
      checkContextVersion(entry, input.expectedVersion);
      yield* rooms.claim(scope);
      yield* remove.run(room.room_id, entry.id);
      yield* removeHistory.run(room.room_id, entry.id);
      yield* rooms.contextsChanged(room.room_id, -1);
      yield* dialect.search.drop(room.room_id, entry.id);
      yield* events.append(room.room_id, {
        type: "context_deleted",
        from: input.agentId,
        to: deletionAddressee(entry.consuming_agents),
        payload: { contextId: entry.id, entry },
      });
      return entry;
    },
    *contextVersions(scope: RoomScope, id: string): Op<{ entry: ContextEntry; history: ContextVersion[] }> {
      const room = yield* rooms.read(scope);
      if (!room) throw errors.contextNotFound(id);
      const entry = yield* find(room.room_id, id);
      return { entry, history: (yield* history.all(room.room_id, id)).map((r) => JSON.parse(r.json)) };
    },
  };
}
