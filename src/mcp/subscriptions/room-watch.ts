/**
 * Which room resources a change touches, and a watch of a set of them through the process's live rooms (the hub
 * per room that streams and waits share, fed by the store's change feed, so changes made through any process
 * arrive): one hub watcher per room, never a store poll per subscriber. New events are read once from the hub's
 * cache and mapped to the resources they change; the presence signal touches the summary (its agent count).
 */
import type { LiveRooms, RoomHub, Watcher } from "../../live/hub.ts";
import type { RoomEvent } from "../../protocol/records.ts";
import type { SignalKind } from "../../store/types.ts";
import type { RoomResource } from "../surface/room-uris.ts";

/** Events that rewrite the plan or context as a whole (a template applied, a fork, tasks moved by a handoff). */
const WHOLESALE = new Set(["template_applied", "room_forked", "handoff_accepted"]);

const payloadId = (event: RoomEvent, field: string): unknown =>
  event.payload !== null && typeof event.payload === "object"
    ? (event.payload as Record<string, unknown>)[field]
    : undefined;

/** Whether `event` changes what `resource` reads. */
export function touches(event: RoomEvent, resource: RoomResource): boolean {
  const wholesale = WHOLESALE.has(event.type);
  const task = event.type.startsWith("task_");
  switch (resource.kind) {
    case "summary":
    case "events":
      return true;
    case "plan":
    case "agent-tasks":
      return task || wholesale;
    case "task":
      return wholesale || (task && payloadId(event, "taskId") === resource.taskId);
    case "context":
      return (
        wholesale ||
        (event.type.startsWith("context_") && payloadId(event, "contextId") === resource.contextId)
      );
    case "version":
      // A version never changes; deleting its entry removes it.
      return event.type === "context_deleted" && payloadId(event, "contextId") === resource.contextId;
  }
}

const EVENTS_PER_READ = 100;

export interface WatchedResource {
  uri: string;
  resource: RoomResource;
}

/**
 * Watches `resources` (all of rooms the caller may read: checked before), calling `updated` with each touched URI
 * (once per batch of changes) and `ended` once if a room's feed fails, a watched room is deleted (its hub ends every
 * watcher, as it ends room streams: the client subscribes again and reads what the room is now) or roomd shuts
 * down. stop() leaves every hub.
 */
export async function watchResources(
  live: LiveRooms,
  teamId: string,
  resources: readonly WatchedResource[],
  updated: (uri: string) => void,
  ended: () => void,
): Promise<{ stop(): void }> {
  const byRoom = new Map<string, WatchedResource[]>();
  for (const watched of resources) {
    const list = byRoom.get(watched.resource.roomId) ?? [];
    list.push(watched);
    byRoom.set(watched.resource.roomId, list);
  }
  const hubs: RoomHub[] = [];
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    for (const hub of hubs) hub.leave();
  };
  try {
    for (const [roomId, watched] of byRoom)
      hubs.push(await joinRoom(live, { roomId, teamId }, watched, updated, fail));
  } catch (error) {
    stop();
    throw error;
  }
  function fail() {
    if (stopped) return;
    stop();
    ended();
  }
  return { stop };
}

async function joinRoom(
  live: LiveRooms,
  scope: { roomId: string; teamId: string },
  watched: readonly WatchedResource[],
  updated: (uri: string) => void,
  fail: () => void,
): Promise<RoomHub> {
  let hub: (RoomHub & { start: number }) | undefined;
  let seen = 0;
  let reading = false;
  let again = false;
  const notify = (touched: (w: WatchedResource) => boolean) => {
    for (const w of watched) if (touched(w)) updated(w.uri);
  };
  const readNew = async (joined: RoomHub) => {
    const touched = new Set<WatchedResource>();
    while (seen < joined.head) {
      const events = await joined.eventsAfter(seen, EVENTS_PER_READ);
      if (events.length === 0) break;
      seen = (events.at(-1) as RoomEvent).seq;
      for (const w of watched) if (events.some((e) => touches(e, w.resource))) touched.add(w);
    }
    for (const w of touched) updated(w.uri);
  };
  const watcher: Watcher = {
    onEvents(error) {
      if (error !== undefined) return fail();
      if (!hub) return;
      const joined = hub;
      again = true;
      if (reading) return;
      reading = true;
      void (async () => {
        try {
          while (again) {
            again = false;
            await readNew(joined);
          }
        } catch {
          fail();
        } finally {
          reading = false;
        }
      })();
    },
    onSignal(kind: SignalKind) {
      if (kind === "presence") notify((w) => w.resource.kind === "summary");
    },
  };
  hub = await live.join(scope, watcher);
  seen = hub.start;
  // A change the hub heard of while this watcher was joining is read now.
  if (hub.head > seen) watcher.onEvents();
  return hub;
}
