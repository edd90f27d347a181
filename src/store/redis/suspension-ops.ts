/** Suspended agents on Redis (protocol/suspensions.ts): the scripts of lua-suspensions.ts, one round trip each. */
import type { RoomStore } from "../types.ts";
import type { Call } from "./call.ts";

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function suspensionOps(
  call: Call,
): Pick<RoomStore, "suspendAgent" | "resumeAgent" | "listSuspensions"> {
  return {
    async suspendAgent(scope, input) {
      const { value } = await call(scope, "SUSPEND_AGENT", {
        agent: input.agentId,
        by: input.by,
        reason: input.reason,
      });
      return {
        suspension: value.s,
        already: value.already,
        released: { tasks: value.tasks, paths: value.paths, locks: value.locks },
      };
    },
    async resumeAgent(scope, input) {
      const { value } = await call(scope, "RESUME_AGENT", { agent: input.agentId, by: input.by });
      return { agentId: input.agentId, resumed: value };
    },
    async listSuspensions(scope) {
      const { value } = await call(scope, "LIST_SUSPENSIONS", {});
      return value.sort((a, b) => byText(a.agentId, b.agentId));
    },
  };
}
