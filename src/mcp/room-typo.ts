/**
 * What a call on a room the caller cannot use adds to "Room not found or access denied": the id may be a typo, and
 * the caller's own rooms with the closest ids. Only the caller's rooms are ever named (a team key's live rooms, an
 * invite's one room), and they are the same whether the id asked for is missing or another team's, so the answer
 * still tells nothing about other teams. It runs only on that refusal: a successful call pays nothing.
 */

import { closestNames } from "../protocol/closest.ts";
import { defaultRoom, roomsOf } from "../protocol/key-life.ts";
import type { Principal } from "../protocol/principal.ts";
import { roomHint } from "../protocol/records.ts";
import type { RoomStore } from "../store/types.ts";

/** At most this many of the team's rooms are compared: a team with more still gets an answer in bounded time. */
export const TYPO_SCAN_MAX = 5_000;

/** At most this many room ids are suggested. */
const SUGGESTED_MAX = 3;

/**
 * The caller's rooms with the ids closest to `asked`, closest first (at most 3): an invite's one room, or the
 * team's live rooms read with one usableRooms call. When that read fails the list is empty rather than the answer
 * failing.
 */
export async function closestRooms(
  asked: string,
  principal: Principal,
  store: Pick<RoomStore, "usableRooms">,
): Promise<string[]> {
  let mine: string[];
  // A scoped principal is told only of the rooms it may reach (an invite's one room, a scoped key's rooms).
  const only = roomsOf(principal);
  if (only !== undefined && principal.allowedRoomId !== undefined) mine = [...only];
  else {
    try {
      const rooms = (await store.usableRooms(principal.teamId)).map((r) => r.roomId);
      mine = (only === undefined ? rooms : rooms.filter((r) => only.includes(r))).slice(0, TYPO_SCAN_MAX);
    } catch {
      mine = [];
    }
  }
  return closestNames(asked, mine, SUGGESTED_MAX);
}

const suggestion = (closest: readonly string[]) =>
  closest.length === 0
    ? "list_rooms lists the rooms you can use"
    : `your rooms with the closest ids: ${closest.map((r) => JSON.stringify(r)).join(", ")}`;

/**
 * The hint appended to the refusal, e.g. ` (roomId "bakend" may be a typo; your rooms with the closest ids:
 * "backend", "backend-2")`.
 */
export async function roomTypoHint(
  asked: string | undefined,
  principal: Principal,
  store: Pick<RoomStore, "usableRooms">,
): Promise<string> {
  if (asked === undefined) return "";
  const closest = await closestRooms(asked, principal, store);
  return ` (roomId ${JSON.stringify(asked)} may be a typo; ${suggestion(closest)})`;
}

/**
 * The hint of a call that found no room and recorded nothing (heartbeat, get_my_summary, leave_room): the room
 * has no state yet, and the id may be a typo of one of the caller's rooms.
 */
export async function missingRoomHint(
  roomId: string,
  call: { principal: Principal; store: Pick<RoomStore, "usableRooms"> },
): Promise<string> {
  const closest = await closestRooms(roomId, call.principal, call.store);
  return `${roomHint(roomId)}; if the id is a typo, ${suggestion(closest)}`;
}

/** The room a call asked for: its roomId argument, else the X-Roomd-Room header, else the invite's room. */
export function askedRoom(
  raw: unknown,
  header: string | undefined,
  principal: Principal,
): string | undefined {
  const given = raw !== null && typeof raw === "object" ? (raw as Record<string, unknown>).roomId : undefined;
  if (typeof given === "string") return given;
  return header ?? defaultRoom(principal);
}
