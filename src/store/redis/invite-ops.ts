/** Invites of the Redis store: room-slot scripts, one round trip each; invites never claim a room. */
import { errors } from "../../protocol/errors.ts";
import type { AccessStore } from "../access-types.ts";
import { byCreation, storedInvite, toInviteRecord } from "./access-records.ts";
import type { Bridge } from "./call.ts";
import { inviteRateKey } from "./keys.ts";

type InviteOps = Pick<AccessStore, "createInvite" | "resolveInvite" | "listInvites" | "deleteInvite">;

export function inviteOps({ call, open }: Bridge): InviteOps {
  return {
    async createInvite(invite, maxInvites) {
      const scope = { roomId: invite.roomId, teamId: invite.teamId, mayClaim: false };
      const { value } = await call(scope, "CREATE_INVITE", {
        id: invite.tokenId,
        digest: invite.digest,
        invite: storedInvite(invite),
        max: maxInvites,
      });
      if (value === "limit") throw errors.inviteLimit(maxInvites);
      return toInviteRecord(value);
    },

    async resolveInvite(roomId, digest, rate) {
      if (rate && rate.bucket !== "tools" && rate.bucket !== "meta") {
        throw new Error(`unknown rate bucket: ${rate.bucket}`);
      }
      // The invite's window key is declared up front (every key a script touches is in KEYS), even when unused.
      const rateKey = inviteRateKey(roomId, digest, rate?.bucket ?? "tools");
      const args = { digest, limit: rate?.limit, window: rate?.windowMs };
      const { value } = await open(roomId, "", "RESOLVE_INVITE", args, [rateKey]);
      if (!value.invite) return { invite: null };
      const invite = toInviteRecord(value.invite);
      return value.rate ? { invite, rate: value.rate } : { invite };
    },

    async listInvites(scope) {
      const { value } = await call({ ...scope, mayClaim: false }, "LIST_INVITES", {});
      return value.sort(byCreation).map(toInviteRecord);
    },

    async deleteInvite(scope, tokenId) {
      return (await call({ ...scope, mayClaim: false }, "DELETE_INVITE", { id: tokenId })).value;
    },
  };
}
