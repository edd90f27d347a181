/** What the OAuth routes need (docs/security.md#oauth): the store, the clock, the failure limiter, the settings. */
import type { Clock } from "../../protocol/time.ts";
import type { RoomStore } from "../../store/types.ts";
import type { FailureLimiter } from "../auth-failures.ts";
import type { PublicGate } from "../public-gate.ts";
import type { OAuthSettings } from "./urls.ts";

export interface OAuthDeps {
  store: RoomStore;
  now: Clock;
  failures: FailureLimiter;
  settings: OAuthSettings;
  /**
   * The per-address budget of everything public (SUMMARY_RATE_LIMIT_PER_MINUTE): charged by registration and by the
   * authorization endpoint, which may fetch a client's metadata document for anyone who asks.
   */
  publicGate: PublicGate;
}
