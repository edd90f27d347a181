/**
 * Context entries as every store builds and revises them, as pure functions: a new entry, the next version of
 * one (or the refusal), and who its events go to. The SQL stores call these inside their transaction (store/sql/);
 * the Redis scripts repeat the version check, the next version and the addressee in Lua (store/redis/lua-context.ts
 * CTX_RULES), and store/redis/lua-rooms.test.ts runs both on the same generated cases and requires the same answers.
 */
import { errors } from "./errors.ts";
import { validatePayload } from "./payloads.ts";
import { BROADCAST, type ContextEntry, type ContextType, type JsonObject } from "./records.ts";
import { iso } from "./time.ts";

/** What a new entry is made of (store/types.ts NewContext). */
export interface ContextInput {
  type: ContextType;
  summary: string;
  consuming_agents: string[];
  payload: JsonObject;
  author: string;
}

/** What an update may change (store/types.ts ContextUpdate): fields left undefined stay as they are. */
export interface ContextChange {
  author: string;
  summary?: string;
  consuming_agents?: string[];
  payload?: JsonObject;
  /** "1.N": when given and not the current version, the update is refused. */
  expectedVersion?: string;
}

/** "1.N" → N (the minor number counts updates: 1.9 → 1.10, not a decimal). */
const minor = (version: string): number => Number(version.slice(version.indexOf(".") + 1));

/** Context events go to the single consumer, or to everyone when there are several; none when there is none. */
export const addressee = (consumers: string[]): string | null =>
  consumers.length === 0 ? null : consumers.length === 1 ? (consumers[0] ?? BROADCAST) : BROADCAST;

/** Who context_deleted goes to: the single consumer, else everyone (also when nobody consumed it). */
export const deletionAddressee = (consumers: string[]): string =>
  consumers.length === 1 ? (consumers[0] as string) : BROADCAST;

/** Refuses a change made against a version of the entry that is no longer current (expectedVersion). */
export function checkContextVersion(entry: ContextEntry, expectedVersion: string | undefined): void {
  if (expectedVersion !== undefined && expectedVersion !== entry.version)
    throw errors.contextVersionConflict(entry);
}

/** Context entry ctx-<n> at version 1.0. */
export const newContextEntry = (n: number, input: ContextInput, t: number): ContextEntry => ({
  id: `ctx-${n}`,
  type: input.type,
  author: input.author,
  timestamp: iso(t),
  summary: input.summary,
  consuming_agents: [...input.consuming_agents],
  payload: input.payload,
  version: "1.0",
});

/** The next version of `previous`, or the refusal: a stale expectedVersion, or a payload its type does not take. */
export function revisedContextEntry(previous: ContextEntry, input: ContextChange, t: number): ContextEntry {
  checkContextVersion(previous, input.expectedVersion);
  if (input.payload !== undefined) validatePayload(previous.type, input.payload);
  return {
    ...previous,
    author: input.author,
    timestamp: iso(t),
    summary: input.summary ?? previous.summary,
    consuming_agents: input.consuming_agents ? [...input.consuming_agents] : previous.consuming_agents,
    payload: input.payload === undefined ? previous.payload : input.payload,
    version: `1.${minor(previous.version) + 1}`,
  };
}
