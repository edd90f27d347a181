/**
 * The refusals of people's scripts (lua-driver.ts, lua-approvals.ts, lua-handoffs.ts, lua-fork.ts) as the RoomErrors
 * every driver throws (FORK_WRITE's own refusals are handled by fork-ops.ts, which knows the new room's id).
 */
import type { RoomError } from "../../protocol/errors.ts";
import { type DriverState, peopleErrors } from "../../protocol/people.ts";

type Reply = { err: string; [detail: string]: unknown };

const text = (value: unknown) => String(value ?? "");

/** The RoomError of a people refusal, or undefined for any other kind of refusal. */
export function peopleRefusal(reply: Reply): RoomError | undefined {
  const id = text(reply.id);
  const driver = reply.driver as DriverState;
  switch (reply.err) {
    case "driverHeld":
      return peopleErrors.driverHeld(driver);
    case "driverTaken":
      return peopleErrors.driverTaken(driver);
    case "staleEpoch":
      return peopleErrors.staleEpoch(Number(reply.given), driver);
    case "notDriver":
      return peopleErrors.notDriver(text(reply.action), driver);
    case "approvalNotFound":
      return peopleErrors.approvalNotFound(id);
    case "approvalExpired":
      return peopleErrors.approvalExpired({ id, expires_at: text(reply.expires_at) });
    case "approvalDecided":
      return peopleErrors.approvalDecided({
        id,
        status: reply.status as "approved" | "rejected",
        decidedBy: text(reply.decidedBy),
        decided_at: text(reply.decided_at),
      });
    case "handoffNotFound":
      return peopleErrors.handoffNotFound(id);
    case "handoffClosed":
      return peopleErrors.handoffClosed({
        id,
        status: reply.status as "accepted" | "declined" | "cancelled",
        closedBy: text(reply.closedBy),
      });
    case "handoffNotForYou":
      return peopleErrors.handoffNotForYou({ id, to: text(reply.to) }, text(reply.agent));
    case "handoffOwnOffer":
      return peopleErrors.handoffOwnOffer(id);
    case "handoffToAny":
      return peopleErrors.handoffToAny(id);
    case "handoffNotOfferer":
      return peopleErrors.handoffNotOfferer({ id, from: text(reply.from), offeredBy: text(reply.offeredBy) });
    case "taskNotYours":
      return peopleErrors.taskNotYours(id, text(reply.owner));
    case "forkPastHead":
      return peopleErrors.forkPastHead(Number(reply.atSeq), Number(reply.head));
    default:
      return undefined;
  }
}
