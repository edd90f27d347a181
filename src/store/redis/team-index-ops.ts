/**
 * The operators' list of teams on Redis: a key's team is added to one index key in a slot of its own
 * (keys.ts TEAM_INDEX_KEY) right after the key is stored — a second round trip, on key creation only, since the
 * team's slot and the index's cannot share a script. A crash between the two leaves a team with a key but unlisted
 * until its next key; nothing else reads the index.
 */
import type { Clock } from "../../protocol/time.ts";
import type { AccessStore } from "../access-types.ts";
import { TEAM_INDEX_KEY } from "./keys.ts";
import { type RunOptions, runClocked } from "./run.ts";
import { TEAM_INDEX_SCRIPTS } from "./scripts.ts";

type Keys = Pick<AccessStore, "createKey" | "provisionTeam">;

export function teamIndexOps(
  run: RunOptions,
  clock: Clock,
  keys: Keys,
): Keys & Pick<AccessStore, "listTeams"> {
  const note = async (teamId: string) => {
    await runClocked(run, TEAM_INDEX_SCRIPTS.TEAM_INDEX_ADD, [TEAM_INDEX_KEY], clock(), { teamId });
  };
  return {
    async createKey(key, maxKeys) {
      const made = await keys.createKey(key, maxKeys);
      await note(key.teamId);
      return made;
    },
    async provisionTeam(key) {
      const made = await keys.provisionTeam(key);
      await note(key.teamId);
      return made;
    },
    async listTeams() {
      const teams = await runClocked(run, TEAM_INDEX_SCRIPTS.TEAM_INDEX_LIST, [TEAM_INDEX_KEY], clock(), {});
      return teams.sort();
    },
  };
}
