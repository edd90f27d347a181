/** Task lease operations of the Redis store (protocol/leases.ts). */
import type { RoomStore } from "../types.ts";
import type { Call } from "./call.ts";
import { sortTasks } from "./records.ts";

type LeaseOps = Pick<RoomStore, "claimTask" | "renewLeases">;

export function leaseOps(call: Call): LeaseOps {
  return {
    async claimTask(scope, input) {
      const { value } = await call(scope, "CLAIM_TASK", {
        agent: input.agentId,
        id: input.taskId,
        lease: input.leaseMs,
        expected: input.expectedVersion,
      });
      return value;
    },

    async renewLeases(scope, agentId, taskId) {
      return sortTasks((await call(scope, "RENEW_LEASE", { agent: agentId, only: taskId })).value);
    },
  };
}
