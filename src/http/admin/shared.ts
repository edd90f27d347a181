import type { Config, WebhookConfig } from "../../config.ts";
import type { Clock } from "../../protocol/time.ts";
import type { RoomStore } from "../../store/types.ts";

export interface AdminDeps {
  store: RoomStore;
  now: Clock;
  limits: Pick<Config, "keysPerTeam" | "invitesPerRoom" | "roomsPerTeam"> &
    WebhookConfig &
    Partial<Pick<Config, "importMaxBytes" | "roomTtlDays">>;
  /** Teams configured through API_KEYS / OPERATOR_KEYS: provisioning them again is a conflict. */
  staticTeams: ReadonlySet<string>;
}
