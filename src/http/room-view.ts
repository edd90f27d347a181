/**
 * What the live room view shows (docs/web.md), in one JSON answer: the plan, presence, locks and file claims,
 * context entries, the driver and the room's origin, approvals, verdicts, handoffs and the newest events.
 *
 * - Members (any key or session that may read the room) get everything, payloads included.
 * - Anyone else, only with ROOM_SUMMARY=public, gets the same view without payloads: no event payloads, context
 *   payloads, task descriptions, approval details or decision notes, verdict details, handoff notes or claim
 *   reasons, or who suspended an agent and why. Titles, summaries, ids, names, times and status texts stay (the public
 *   summary showed those already), and which agents are suspended since when.
 *
 * It is one read of each kind, all in parallel: about ten store round trips, never a write and never a claim.
 */
import { RoomError } from "../protocol/errors.ts";
import type { RoomInfo } from "../protocol/people.ts";
import type { RoomEvent } from "../protocol/records.ts";
import type { Suspension } from "../protocol/suspensions.ts";
import type { RoomScope, RoomStore } from "../store/types.ts";

/** Events the view carries (newest first); the page adds live ones as they come. */
export const VIEW_EVENTS = 100;

/** An event as the public sees it: everything but the payload and who has read it. */
export function publicEvent(event: RoomEvent): object {
  const { payload: _payload, read_by: _readBy, ...header } = event;
  return header;
}

/** The room's suspended agents (protocol/suspensions.ts); none for a room the team does not have yet. */
async function suspensionsOf(store: RoomStore, scope: RoomScope): Promise<Suspension[]> {
  try {
    return await store.listSuspensions(scope);
  } catch (error) {
    if (error instanceof RoomError && error.kind === "denied") return [];
    throw error;
  }
}

/**
 * Everything the room page shows, read for `given`'s team (a member, or the owner on behalf of a public viewer),
 * as someone looking on: no read records a use of the room.
 */
export async function readRoomView(store: RoomStore, given: RoomScope, member: boolean) {
  // Someone looking at the room (a member's page or the public one) is not using it: nothing is recorded.
  const scope: RoomScope = { ...given, observe: true };
  const [info, plan, state, locks, context, approvals, verdicts, handoffs, events, suspended] =
    await Promise.all([
      store.roomInfo(scope),
      store.readPlan(scope),
      store.roomState(scope),
      store.listLocks(scope),
      store.listContext(scope, {}),
      store.listApprovals(scope),
      store.listVerdicts(scope),
      store.listHandoffs(scope),
      store.readEvents(scope, { limit: VIEW_EVENTS }),
      suspensionsOf(store, scope),
    ]);
  const view = {
    roomId: scope.roomId,
    member,
    info: info satisfies RoomInfo,
    head: state.lastSeq,
    tasks: plan.tasks,
    presence: state.presence,
    locks,
    claims: state.claims,
    context: context.map(({ payload: _payload, ...entry }) => entry),
    approvals,
    verdicts,
    handoffs,
    events,
    suspended,
  };
  if (member) return view;
  return {
    ...view,
    tasks: view.tasks.map(({ description: _d, ...task }) => task),
    claims: view.claims.map(({ reason: _r, ...claim }) => claim),
    approvals: view.approvals.map(({ details: _d, note: _n, ...approval }) => approval),
    verdicts: view.verdicts.map(({ details: _d, ...verdict }) => verdict),
    handoffs: view.handoffs.map(({ note: _n, reason: _r, ...handoff }) => handoff),
    events: view.events.map(publicEvent),
    // Who is suspended and since when shows; who did it and why is the team's.
    suspended: view.suspended.map(({ agentId, at }) => ({ agentId, at })),
  };
}
