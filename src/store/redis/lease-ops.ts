/** Task lease operations of the Redis store (protocol/leases.ts). */
import type { Task } from "../../protocol/records.ts";
import type { RoomStore } from "../types.ts";
import type { Call } from "./call.ts";
import { sortTasks } from "./records.ts";

type LeaseOps = Pick<RoomStore, "claimTask" | "renewLeases">;

export function leaseOps(call: Call): LeaseOps {
  return {
    async claimTask(scope, input) {
      const { value } = await call<Task>(scope, "CLAIM_TASK", [
        input.agentId,
        input.taskId,
        String(input.leaseMs),
        input.expectedVersion === undefined ? "" : String(input.expectedVersion),
      ]);
      return value;
    },

    async renewLeases(scope, agentId, taskId) {
      return sortTasks((await call<Task[]>(scope, "RENEW_LEASE", [agentId, taskId ?? ""])).value);
    },
  };
}
