/** The rate limiter's bucket names and retention, shared by the SQL drivers (SQLite, PostgreSQL). */
import type { RateRequest } from "./access-types.ts";

/** Buckets idle for longer than this are dropped by the sweep; every window in use is shorter. */
export const RATE_HITS_KEEP_MS = 60 * 60 * 1000;

export const teamBucket = (teamId: string, bucket: RateRequest["bucket"]) => `team:${teamId}:${bucket}`;
/** An agent's own window inside its team's (RateRequest.agent). */
export const agentBucket = (teamId: string, agentId: string, bucket: RateRequest["bucket"]) =>
  `agent:${teamId}:${agentId}:${bucket}`;
/**
 * The agent whose window a request charges besides its team's: a bound key's agent, else the one the request
 * names; none without `rate.agent`, for the meta bucket, or when neither names one.
 */
export function chargedAgent(rate: RateRequest, boundAgentId?: string): string | undefined {
  if (!rate.agent || rate.bucket !== "tools") return undefined;
  return boundAgentId ?? rate.agent.id;
}
export const inviteBucket = (roomId: string, tokenId: string, bucket: RateRequest["bucket"]) =>
  `invite:${roomId}:${tokenId}:${bucket}`;
/** Prefix of every bucket of a room's invites, or of one invite when tokenId is given. */
export const invitePrefix = (roomId: string, tokenId?: string) =>
  tokenId === undefined ? `invite:${roomId}:` : `invite:${roomId}:${tokenId}:`;

/** [prefix, upper) bounds every string starting with `prefix` (which ends with ":"); an index range, unlike LIKE. */
export const prefixRange = (prefix: string): [string, string] => [prefix, `${prefix.slice(0, -1)};`];
