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

/**
 * The charge a key's lookup makes (AccessStore.resolveKey): a tool call's agent window takes the key's own
 * agentRateLimitPerMinute when it has one, in place of the request's (AGENT_RATE_LIMIT_PER_MINUTE, 0 when that is
 * off), and is not charged at all when the limit so found is 0. Every store applies it in the lookup's own step:
 * the SQL drivers through this function, Lua in lua-team.ts RESOLVE_KEY, PostgreSQL in charged.ts's statement.
 */
export function keyRate<R extends { bucket: string; agent?: { id?: string; limit: number } }>(
  rate: R,
  key: { agentRateLimitPerMinute?: number },
): R | Omit<R, "agent"> {
  if (rate.agent === undefined || rate.bucket !== "tools") return rate;
  const limit = key.agentRateLimitPerMinute ?? rate.agent.limit;
  if (limit > 0) return limit === rate.agent.limit ? rate : { ...rate, agent: { ...rate.agent, limit } };
  const { agent: _none, ...teamOnly } = rate;
  return teamOnly;
}
