/**
 * Checks that iterate the tool catalog, never a hand-kept list: each takes a tool definition and a running roomd,
 * runs the tool's own example, and returns the problems it found (an empty list when the tool behaves). Returning
 * problems instead of asserting lets a test prove a check can fail (a deliberately broken tool must be caught).
 */
import { jsonSchema } from "../../src/mcp/catalog.ts";
import { contextFields, type ExampleRoom, publishedInput, type ToolDefinition } from "../../src/mcp/tool.ts";
import { AGENT_ID } from "../../src/protocol/ids.ts";
import type { RoomStore } from "../../src/store/types.ts";
import type { httpClient } from "./http.ts";

type Json = Record<string, any>;
type Http = ReturnType<typeof httpClient>;

export interface CheckEnv {
  http: Http;
  /** An unbound key of the team owning the rooms (acts as "alice" in examples). */
  teamKey: string;
  /** A key of another team. */
  otherTeamKey: string;
  /**
   * The store behind the server and the team owning the rooms, when the server runs in this process: snapshots then
   * read the room's whole export from it (four store reads at most, not seven tool calls over HTTP).
   */
  direct?: { store: RoomStore; teamId: string };
}

/**
 * Calls a tool with the arguments the checks build (roomId and the acting agent included): for a tool that takes
 * them from the request's context only (agentroom), they travel as the X-Roomd-Room / X-Roomd-Agent headers.
 */
export function send(env: CheckEnv, key: string, tool: ToolDefinition, args: Json) {
  if (tool.context !== "context") return env.http.tool(key, tool.name, args);
  const [roomField, agentField] = contextFields(tool);
  const { [roomField as string]: roomId, [agentField as string]: agentId, ...rest } = args;
  const headers: Record<string, string> = {};
  if (typeof roomId === "string") headers["X-Roomd-Room"] = roomId;
  if (typeof agentId === "string") headers["X-Roomd-Agent"] = agentId;
  return env.http.tool(key, tool.name, rest, headers);
}

/** A room for examples: calls go through real HTTP with the team key, roomId filled in. */
export function exampleRoom(env: CheckEnv, roomId: string, key = env.teamKey): ExampleRoom {
  return {
    async call(name, args) {
      const result = await env.http.tool(key, name, { roomId, ...args });
      if (result.isError || result.status !== 200) {
        throw new Error(`example set-up ${name} failed: ${result.status} ${result.text}`);
      }
      return JSON.parse(result.text);
    },
  };
}

/**
 * Everything a room holds, as text to compare before and after a call: with the store at hand, its export (every
 * record: plan, context and history, variables, approvals, handoffs, verdicts, cursors, fences, claims, values,
 * the log) with presence and lock holders, which an export leaves out; else seven reads through the tools.
 */
export async function snapshot(env: CheckEnv, roomId: string): Promise<string> {
  if (env.direct) {
    const { store, teamId } = env.direct;
    const scope = { roomId, teamId, observe: true };
    const [room, presence, locks] = await Promise.all([
      store.exportRoom(scope),
      store.getPresence(scope),
      store.listLocks(scope),
    ]);
    const log = room && room.head > 0 ? await store.exportLog(scope, 0, room.head) : [];
    return JSON.stringify({ room, log, presence, locks });
  }
  const reads = await Promise.all(
    [
      ["read_plan", {}],
      ["list_context", {}],
      ["read_events", { limit: 100 }],
      ["list_locks", {}],
      ["list_shared_vars", {}],
      ["get_presence", {}],
      ["list_claims", {}],
    ].map(([name, args]) => env.http.tool(env.teamKey, name as string, { roomId, ...(args as Json) })),
  );
  return JSON.stringify(reads.map((r) => r.text));
}

/** The tool's example arguments in a fresh room of the team (with roomId for room tools). */
export async function prepared(tool: ToolDefinition, env: CheckEnv, roomId: string): Promise<Json> {
  const created = await env.http.post("/admin/rooms", env.teamKey, { roomId });
  if (created.status !== 201)
    throw new Error(`creating ${roomId}: ${created.status} ${JSON.stringify(created.body)}`);
  const args = await tool.example(exampleRoom(env, roomId));
  // A tool whose room and agent come from the request's context acts as alice, like every example.
  if (tool.context === "context") return { roomId, [contextFields(tool)[1] as string]: "alice", ...args };
  return tool.room ? { roomId, ...args } : args;
}

const DENIED = "Error: Room not found or access denied";

/**
 * The refusal of a room the caller cannot use: denied like a missing room, then the typo hint, which names only
 * the caller's own rooms (test/e2e/room-typo.test.ts shows which).
 */
const deniedText = (roomId: string) =>
  new RegExp(
    `^${DENIED} \\(roomId "${roomId}" may be a typo; (list_rooms lists the rooms you can use|your rooms with the closest ids: "[^"]+"(, "[^"]+"){0,2})\\)$`,
  );

/** Another team calling the tool on the room: denied exactly like a missing room, nothing changed. */
export async function crossTeamProblems(tool: ToolDefinition, env: CheckEnv, roomId: string) {
  const problems: string[] = [];
  if (!tool.room) return problems;
  const args = await prepared(tool, env, roomId);
  const before = await snapshot(env, roomId);
  const result = await send(env, env.otherTeamKey, tool, args);
  if (!deniedText(roomId).test(result.text))
    problems.push(`${tool.name}: another team got ${result.text.slice(0, 120)}`);
  if ((await snapshot(env, roomId)) !== before)
    problems.push(`${tool.name}: another team's call changed the room`);
  return problems;
}

/** An invite for another room of the same team: denied exactly like a missing room, nothing changed. */
export async function foreignInviteProblems(
  tool: ToolDefinition,
  env: CheckEnv,
  roomId: string,
  inviteForOtherRoom: string,
) {
  const problems: string[] = [];
  if (!tool.room) return problems;
  const args = await prepared(tool, env, roomId);
  const before = await snapshot(env, roomId);
  const result = await send(env, inviteForOtherRoom, tool, args);
  if (!deniedText(roomId).test(result.text))
    problems.push(`${tool.name}: a foreign invite got ${result.text.slice(0, 120)}`);
  if ((await snapshot(env, roomId)) !== before)
    problems.push(`${tool.name}: a foreign invite changed the room`);
  return problems;
}

const IMPOSTOR = "mallory-impostor";

/**
 * A key bound to "alice": naming another agent in an acting argument is refused and changes nothing; naming one
 * in a filter is allowed but the impostor never appears in the room's state; and every argument typed as an agent
 * id is declared acting, filter or addressee (an undeclared one would escape enforcement).
 */
export async function impersonationProblems(
  tool: ToolDefinition,
  env: CheckEnv,
  roomId: string,
  boundToAlice: string,
) {
  const problems: string[] = [];
  const declared = new Set([...tool.acting, ...tool.filters, ...tool.addressees]);
  for (const field of agentTypedFields(tool)) {
    if (!declared.has(field)) problems.push(`${tool.name}: agent argument ${field} is not declared`);
  }
  const args = await prepared(tool, env, roomId);
  for (const field of [...tool.acting, ...tool.filters]) {
    const before = await snapshot(env, roomId);
    const result = await send(env, boundToAlice, tool, { ...args, [field]: IMPOSTOR });
    const after = await snapshot(env, roomId);
    if (tool.acting.includes(field)) {
      // A context-only tool gets the impostor through the X-Roomd-Agent header, and the refusal says so.
      const expected =
        tool.context === "context"
          ? `Error: This key is bound to agent alice (the X-Roomd-Agent header names ${IMPOSTOR})`
          : "Error: This key is bound to agent alice";
      if (result.text !== expected) {
        problems.push(`${tool.name}: bound key named ${IMPOSTOR} in ${field}: ${result.text.slice(0, 120)}`);
      }
      if (after !== before) problems.push(`${tool.name}: a refused impersonation changed the room`);
    } else if (after.includes(IMPOSTOR)) {
      problems.push(`${tool.name}: filter ${field} let a bound key act as ${IMPOSTOR}`);
    }
  }
  return problems;
}

/** Top-level arguments whose schema is an agent id (the agent-id pattern, or an array of them). */
export function agentTypedFields(tool: ToolDefinition): string[] {
  const schema = jsonSchema(tool.input, "input") as { properties: Record<string, Json> };
  const isAgent = (s: Json | undefined): boolean =>
    s !== undefined &&
    (s.pattern === AGENT_PATTERN ||
      isAgent(s.items) ||
      (Array.isArray(s.anyOf) && s.anyOf.some((x: Json) => isAgent(x))));
  return Object.entries(schema.properties)
    .filter(([, s]) => isAgent(s))
    .map(([name]) => name);
}

const AGENT_PATTERN = AGENT_ID.source;

export interface BadCase {
  label: string;
  args: Json;
  /** What the error must start with. */
  expect: RegExp;
}

/** A value of none of the JSON Schema types a property allows (its own type, or its anyOf branches'). */
function wrongFor(s: Json): unknown {
  const allowed = new Set<string>(
    [s.type, ...((s.anyOf ?? []) as Json[]).map((b) => b.type)].filter(Boolean),
  );
  if (allowed.has("integer")) allowed.add("number");
  const candidates: [string, unknown][] = [
    ["boolean", true],
    ["string", "not-this-type"],
    ["number", 12345],
    ["array", ["x"]],
    ["object", { x: 1 }],
  ];
  return (candidates.find(([type]) => !allowed.has(type)) as [string, unknown])[1];
}

/**
 * Bad variants of valid arguments, derived from the tool's published input schema: nothing at all, each
 * property wrong-typed, each bounded string or list one past its bound, a lone surrogate in each string, an
 * unknown property.
 */
export function badCases(tool: ToolDefinition, valid: Json): BadCase[] {
  // What clients see: a context-only tool publishes neither roomId nor its agent (they travel as headers).
  const schema = jsonSchema(publishedInput(tool), "input") as {
    properties: Record<string, Json>;
    required?: string[];
  };
  const field = (name: string) =>
    name === "roomId" ? /^Error: Invalid roomId/ : new RegExp(`^Error: Invalid arguments: ${name}`);
  const cases: BadCase[] = [
    {
      label: "unknown property",
      args: { ...valid, bogus: 1 },
      expect:
        /^Error: Invalid arguments: arguments: Unrecognized key "bogus" — (valid arguments: |no arguments)/,
    },
  ];
  if ((schema.required ?? []).length > 0) {
    cases.push({
      label: "no arguments",
      args: {},
      expect: /^Error: (Invalid arguments: \w+: |Invalid roomId)/,
    });
  }
  for (const [name, prop] of Object.entries(schema.properties)) {
    const typed = prop.type !== undefined ? prop : (prop.anyOf?.find((x: Json) => x.type !== "null") ?? prop);
    cases.push({
      label: `${name} wrong-typed`,
      args: { ...valid, [name]: wrongFor(typed) },
      expect: field(name),
    });
    if (typed.type === "string" && typeof typed.maxLength === "number") {
      cases.push({
        label: `${name} too long`,
        args: { ...valid, [name]: "x".repeat(typed.maxLength + 1) },
        expect: field(name),
      });
    }
    if (typed.type === "array" && typeof typed.maxItems === "number") {
      const item = Array.isArray(valid[name]) && valid[name].length > 0 ? valid[name][0] : "a";
      cases.push({
        label: `${name} too many`,
        args: { ...valid, [name]: Array(typed.maxItems + 1).fill(item) },
        expect: field(name),
      });
    }
    if (typed.type === "string") {
      cases.push({
        label: `${name} lone surrogate`,
        args: { ...valid, [name]: "ok\ud800" },
        expect: field(name),
      });
    }
  }
  return cases;
}

/**
 * A room tool called by a key bound to alice while alice is suspended in the room (protocol/suspensions.ts): refused
 * with AGENT_SUSPENDED, changing nothing, whatever the tool — one naming its agent or not, a read or a write.
 */
export async function suspendedProblems(
  tool: ToolDefinition,
  env: CheckEnv,
  roomId: string,
  boundToAlice: string,
) {
  if (!tool.room || tool.peopleOnly !== undefined) return [];
  const args = await prepared(tool, env, roomId);
  const suspended = await env.http.post(`/admin/rooms/${roomId}/agents/alice/suspend`, env.teamKey, {
    reason: "catalog check",
  });
  if (suspended.status !== 201) return [`${tool.name}: suspending alice answered ${suspended.status}`];
  const before = await snapshot(env, roomId);
  const result = await send(env, boundToAlice, tool, args);
  const after = await snapshot(env, roomId);
  const problems: string[] = [];
  if (!result.text.startsWith(`Error: AGENT_SUSPENDED: agent alice is suspended in room ${roomId} by `))
    problems.push(`${tool.name}: a suspended agent's call answered ${result.text.slice(0, 120)}`);
  if (after !== before) problems.push(`${tool.name}: a suspended agent's call changed the room`);
  return problems;
}
