/**
 * The room summary answer, kept for at most `ttlMs` (1 s) per (room, viewer): the public view is one entry per
 * room, the private view one per (room, team). The read in flight is shared too, so a burst of anonymous clients
 * costs one store read per room per second per process, however many arrive before the first read returns. A
 * failed read is not kept. Memory is bounded by `maxEntries` (expired entries go first, then the oldest).
 */
import type { Clock } from "../protocol/time.ts";
import type { RoomSummaryView } from "../store/access-types.ts";

export type SummaryRead = (roomId: string, teamId?: string) => Promise<RoomSummaryView | null>;

export interface SummaryCache {
  get(roomId: string, teamId?: string): Promise<RoomSummaryView | null>;
}

export function createSummaryCache(
  read: SummaryRead,
  options: { now: Clock; ttlMs?: number; maxEntries?: number },
): SummaryCache {
  const ttlMs = options.ttlMs ?? 1000;
  const maxEntries = options.maxEntries ?? 10_000;
  // Insertion order = expiry order (every entry lives ttlMs and is re-inserted when renewed).
  const entries = new Map<string, { expires: number; view: Promise<RoomSummaryView | null> }>();

  const makeRoom = (at: number) => {
    for (const [key, entry] of entries) {
      if (entry.expires > at && entries.size < maxEntries) return;
      entries.delete(key);
    }
  };

  return {
    get(roomId, teamId) {
      // Room ids and team ids cannot contain a space, so the key is unambiguous.
      const key = teamId === undefined ? roomId : `${roomId} ${teamId}`;
      const at = options.now();
      const hit = entries.get(key);
      if (hit && hit.expires > at) return hit.view;
      entries.delete(key);
      makeRoom(at);
      const view = read(roomId, teamId);
      const entry = { expires: at + ttlMs, view };
      entries.set(key, entry);
      view.catch(() => {
        if (entries.get(key) === entry) entries.delete(key);
      });
      return view;
    },
  };
}
