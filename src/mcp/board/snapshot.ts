/**
 * Reading a room's board (protocol/board.ts): seven reads in parallel, as someone looking on (no use of the room is
 * recorded and nothing is claimed), then each list limited, long texts trimmed and the whole capped in bytes; and
 * the poll's cheaper look at where the room stands (its head and a fingerprint of the rest).
 */
import { BOARD_LIMITS, type Board, type BoardList, capBoard, trimJson } from "../../protocol/board.ts";
import type { FileClaim } from "../../protocol/claims.ts";
import type { DriverState } from "../../protocol/people.ts";
import { personOf } from "../../protocol/principal.ts";
import type { LockInfo, Presence } from "../../protocol/records.ts";
import { roleIn } from "../../store/room-roles.ts";
import type { RoomScope } from "../../store/types.ts";
import type { ToolCall } from "../tool.ts";

const trimmed = (text: string) => trimJson(text) as string;

type Omitted = NonNullable<Board["omitted"]>;

/** At most `max` items, counting what was left out. */
function limit<T>(list: readonly T[], max: number, name: BoardList, omitted: Omitted): T[] {
  if (list.length > max) omitted[name] = list.length - max;
  return list.slice(0, max);
}

/**
 * The room as someone looking on reads it: no use recorded, nothing claimed. The caller stays: a suspended agent's
 * look at the board is refused in each read's own step (RoomScope.caller).
 */
const lookingAt = (given: RoomScope): RoomScope => ({
  roomId: given.roomId,
  teamId: given.teamId,
  mayClaim: false,
  observe: true,
  caller: given.caller,
});

interface Standing {
  presence: readonly Presence[];
  claims: readonly FileClaim[];
  locks: readonly LockInfo[];
  driver: DriverState;
}

/**
 * A fingerprint of what the board shows that changes without an event — who is here and their status text, file
 * claims, locks, the wheel — leaving out what moves with every call (last seen, expiry times), so a poll tells a
 * change from an agent merely being busy, whichever process it asks.
 */
function stateOf(s: Standing): string {
  const text = JSON.stringify([
    s.presence.map((p) => [p.agentId, p.status, p.statusText ?? ""]),
    s.claims.map((c) => [c.path, c.heldBy, c.reason ?? ""]),
    s.locks.map((l) => [l.resource, l.owner, l.fence]),
    [s.driver.holder, s.driver.epoch],
  ]);
  return new Bun.CryptoHasher("sha256").update(text).digest("hex").slice(0, 16);
}

/** Where the room stands now: its log's head and the fingerprint of the rest (three reads). */
export async function lookAtRoom(
  store: ToolCall["store"],
  given: RoomScope,
): Promise<{ seq: number; state: string }> {
  const scope = lookingAt(given);
  const [room, locks, driver] = await Promise.all([
    store.roomState(scope),
    store.listLocks(scope),
    store.getDriver(scope),
  ]);
  return { seq: room.lastSeq, state: stateOf({ ...room, locks, driver }) };
}

/** The board of the room `given` names, for the caller of `call`. */
export async function readBoard(
  call: Pick<ToolCall, "store" | "principal">,
  given: RoomScope,
): Promise<Board> {
  const { store, principal } = call;
  const scope = lookingAt(given);
  const [driver, plan, state, locks, approvals, handoffs, events, role] = await Promise.all([
    store.getDriver(scope),
    store.readPlan(scope),
    store.roomState(scope),
    store.listLocks(scope),
    store.listApprovals(scope, "pending"),
    store.listHandoffs(scope, "offered"),
    store.readEvents(scope, { limit: BOARD_LIMITS.events }),
    roleIn(store, scope, principal),
  ]);
  const omitted: Omitted = {};
  const board: Board = {
    roomId: scope.roomId,
    seq: state.lastSeq,
    state: stateOf({ ...state, locks, driver }),
    viewer: {
      person: personOf(principal) ?? null,
      role: role ?? null,
      operator: principal.kind === "operator",
    },
    driver,
    tasks: limit(plan.tasks, BOARD_LIMITS.tasks, "tasks", omitted).map((t) => ({
      ...t,
      description: trimmed(t.description),
    })),
    presence: limit(state.presence, BOARD_LIMITS.presence, "presence", omitted),
    claims: limit(state.claims, BOARD_LIMITS.claims, "claims", omitted).map((c) =>
      c.reason === undefined ? c : { ...c, reason: trimmed(c.reason) },
    ),
    locks: limit(locks, BOARD_LIMITS.locks, "locks", omitted),
    approvals: limit(approvals, BOARD_LIMITS.approvals, "approvals", omitted).map((a) => ({
      ...a,
      details: trimJson(a.details) as Record<string, unknown>,
    })),
    handoffs: limit(handoffs, BOARD_LIMITS.handoffs, "handoffs", omitted).map((h) => ({
      ...h,
      note: trimmed(h.note),
    })),
    events: [...events].map(({ read_by: _r, ...e }) => ({
      ...e,
      payload: trimJson(e.payload) as Record<string, unknown>,
    })),
  };
  return capBoard(Object.keys(omitted).length > 0 ? { ...board, omitted } : board);
}
