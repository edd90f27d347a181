/**
 * The rule of a request charged to two sliding windows at once, the team's and its agent's
 * (AGENT_RATE_LIMIT_PER_MINUTE, docs/operations.md): admitted only when both have room, recorded in both then and
 * in neither when refused. Every store applies it inside its one atomic step (SQL drivers here, Lua in
 * src/store/redis/lua-rate.ts, PostgreSQL's roomd_rate_charge_pair), agreeing with this function by test.
 */

/** One window as measured before the charge: requests it holds now, and its limit. */
export interface WindowCount {
  count: number;
  limit: number;
}

/** Which window refuses the request: the team's first (a full team refuses whatever the agent), then the agent's. */
export function refusingWindow(team: WindowCount, agent: WindowCount): "team" | "agent" | null {
  if (team.count >= team.limit) return "team";
  if (agent.count >= agent.limit) return "agent";
  return null;
}

/**
 * Which window an admitted request's decision shows (its RateLimit headers): the one with fewer requests left after
 * it, the agent's on a tie, so a client slows down for whichever budget runs out first.
 */
export function shownWindow(team: WindowCount, agent: WindowCount): "team" | "agent" {
  return team.limit - team.count < agent.limit - agent.count ? "team" : "agent";
}
