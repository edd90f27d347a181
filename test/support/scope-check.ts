/**
 * Key scopes over the whole catalog (docs/security.md#key-lifetime-and-scopes), as catalog-check.ts does for teams
 * and invites: each check runs a tool's own example and returns the problems it found, so a broken tool can be
 * shown to be caught. Read vs write comes from the tool's declared effect, the one source the server uses.
 */
import { isMutating, type ToolDefinition } from "../../src/mcp/tool.ts";
import { type CheckEnv, prepared, send, snapshot } from "./catalog-check.ts";

/** The refusal a read-only key gets for a write tool, whatever its arguments. */
export const readOnlyText = (tool: string) =>
  `Error: This key is read-only: ${tool} writes, so it is refused; use a key without readOnly for writes`;

/**
 * A read-only key: a write tool is refused with the read-only error — with its valid example and with arguments that
 * are not even valid — and changes nothing; a read tool is not refused for being read-only (it answers, or a tool for
 * people's acts gives its own refusal to an agent's key).
 */
export async function readOnlyProblems(
  tool: ToolDefinition,
  env: CheckEnv,
  roomId: string,
  readOnlyKey: string,
): Promise<string[]> {
  const problems: string[] = [];
  const args = await prepared(tool, env, roomId);
  const before = await snapshot(env, roomId);
  const result = await send(env, readOnlyKey, tool, args);
  if (isMutating(tool)) {
    if (result.text !== readOnlyText(tool.name))
      problems.push(`${tool.name}: a read-only key got ${result.text.slice(0, 160)}`);
    const garbled = await send(env, readOnlyKey, tool, { ...args, notAnArgument: 1, roomId: 42 });
    if (garbled.text !== readOnlyText(tool.name))
      problems.push(`${tool.name}: with bad arguments a read-only key got ${garbled.text.slice(0, 160)}`);
    if ((await snapshot(env, roomId)) !== before)
      problems.push(`${tool.name}: a read-only key changed the room`);
  } else if (result.text.includes("read-only")) {
    problems.push(`${tool.name}: a read tool refused a read-only key: ${result.text.slice(0, 160)}`);
  } else if (
    result.isError &&
    !(tool.peopleOnly && result.text === `Error: Only people can ${tool.peopleOnly}`)
  ) {
    problems.push(`${tool.name}: a read-only key's read failed: ${result.text.slice(0, 160)}`);
  }
  return problems;
}

const DENIED = "Error: Room not found or access denied";

/**
 * A key scoped to other rooms of the same team: the room reads exactly like a missing one, the typo hint names at
 * most the key's own rooms, and nothing changes.
 */
export async function roomScopeProblems(
  tool: ToolDefinition,
  env: CheckEnv,
  roomId: string,
  scoped: { key: string; rooms: readonly string[] },
): Promise<string[]> {
  const problems: string[] = [];
  if (!tool.room) return problems;
  const args = await prepared(tool, env, roomId);
  const before = await snapshot(env, roomId);
  const result = await send(env, scoped.key, tool, args);
  if (!result.text.startsWith(`${DENIED} (roomId "${roomId}" may be a typo; `))
    problems.push(`${tool.name}: a key scoped to other rooms got ${result.text.slice(0, 160)}`);
  const named = [...result.text.matchAll(/"([a-z0-9][a-z0-9_-]+)"/g)]
    .map((m) => m[1])
    .filter((r) => r !== roomId);
  for (const room of named)
    if (!scoped.rooms.includes(room as string))
      problems.push(`${tool.name}: the typo hint named ${room}, outside the key's rooms`);
  if ((await snapshot(env, roomId)) !== before)
    problems.push(`${tool.name}: a key scoped to other rooms changed the room`);
  return problems;
}
