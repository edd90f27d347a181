/**
 * The narrow client with each round trip handed to the round-trip observer (store/round-trips.ts): EVALSHA and
 * EVAL named by the script they run, PING. Subscriptions, SCAN and close pass through untouched. Made only when an
 * observer is set (store/index.ts), so an unobserved store talks to its client directly.
 */
import type { RoundTripObserver } from "../round-trips.ts";
import type { ScriptClient } from "./client.ts";
import { FEED_SCRIPTS, SCRIPTS } from "./scripts.ts";

const ALL = Object.values({ ...SCRIPTS, ...FEED_SCRIPTS });
const bySha = new Map(ALL.map((script) => [script.sha, script.name]));
const byText = new Map(ALL.map((script) => [script.text, script.name]));

export function observeScriptClient(client: ScriptClient, observe: RoundTripObserver): ScriptClient {
  return {
    ...client,
    evalsha: (sha, keys, args, deadline) =>
      observe({ system: "redis", operation: "EVALSHA", target: bySha.get(sha) ?? "unknown" }, () =>
        client.evalsha(sha, keys, args, deadline),
      ),
    eval: (script, keys, args, deadline) =>
      observe({ system: "redis", operation: "EVAL", target: byText.get(script) ?? "unknown" }, () =>
        client.eval(script, keys, args, deadline),
      ),
    ping: (deadline) => observe({ system: "redis", operation: "PING" }, () => client.ping(deadline)),
  };
}
