/**
 * The tool catalog: every tool definition, looked up by name, and each profile's tools/list answer, computed once
 * at module load (per request only a server and a transport are made). Tests build catalogs of their own (e.g.
 * with a deliberately broken tool) through createCatalog.
 */
import { z } from "zod";
import { portable } from "./portable-schema.ts";
import {
  isMutating,
  PROFILES,
  type Profile,
  publishedInput,
  type ToolDefinition,
  type ToolUi,
} from "./tool.ts";
import { agentroomTools } from "./tools/agentroom.ts";
import { boardTools } from "./tools/board.ts";
import { boardActTools } from "./tools/board-acts.ts";
import { claimTools } from "./tools/claims.ts";
import { compactTools } from "./tools/compact.ts";
import { compactPeopleTools } from "./tools/compact-people.ts";
import { contextTools } from "./tools/context.ts";
import { eventTools } from "./tools/events.ts";
import { leaseTools } from "./tools/leases.ts";
import { leaveTools } from "./tools/leave.ts";
import { lockTools } from "./tools/locks.ts";
import { peopleTools } from "./tools/people.ts";
import { planTools } from "./tools/plan.ts";
import { presenceTools } from "./tools/presence.ts";
import { reviewTools } from "./tools/reviews.ts";
import { roomTools as roomInfoTools } from "./tools/room.ts";
import { roomTools } from "./tools/rooms.ts";
import { searchTools } from "./tools/search.ts";
import { varTools } from "./tools/vars.ts";

/** A tools/list entry. */
export interface ListedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations: {
    title: string;
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
  /** MCP Apps: `ui` (the view's resource, who may call the tool) and the older flat `ui/resourceUri`. */
  _meta?: Record<string, unknown>;
}

export interface Catalog {
  readonly tools: readonly ToolDefinition[];
  get(name: string): ToolDefinition | undefined;
  /**
   * The tools/list result of a profile, built once; with `readOnly` (a read-only key, protocol/key-life.ts), only
   * its read tools — the tools whose effect is "read", the same source as their readOnlyHint.
   */
  listing(profile: Profile, readOnly?: boolean): readonly ListedTool[];
}

/**
 * The published JSON Schema of a zod schema: zod's, rewritten the portable way (portable-schema.ts), which every
 * profile's listing is checked against (schema-lint.ts).
 */
export function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  return portable(z.toJSONSchema(schema, { io, unrepresentable: "any" })) as Record<string, unknown>;
}

/**
 * A tool's `_meta` for MCP Apps hosts (ext-apps specification 2026-01-26): `ui.resourceUri` and `ui.visibility`,
 * and the same URI under the flat `ui/resourceUri` key that hosts written to the earlier drafts read.
 */
function uiMeta(ui: ToolUi): Record<string, unknown> {
  return {
    ui: { resourceUri: ui.resourceUri, ...(ui.visibility ? { visibility: [...ui.visibility] } : {}) },
    "ui/resourceUri": ui.resourceUri,
  };
}

/** The tools/list entry of a tool. */
export function listing(tool: ToolDefinition): ListedTool {
  const readOnly = tool.effect === "read";
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchema(publishedInput(tool), "input"),
    ...(tool.output ? { outputSchema: jsonSchema(tool.output, "output") } : {}),
    annotations: {
      title: tool.title,
      readOnlyHint: readOnly,
      destructiveHint: tool.effect === "destructive",
      idempotentHint: tool.idempotent,
      openWorldHint: false,
    },
    ...(tool.ui ? { _meta: uiMeta(tool.ui) } : {}),
  };
}

/** Indexes the tools and builds every profile's listing; a duplicate name is a programming error. */
export function createCatalog(tools: readonly ToolDefinition[]): Catalog {
  const byName = new Map<string, ToolDefinition>();
  for (const tool of tools) {
    if (byName.has(tool.name)) throw new Error(`catalog: tool ${tool.name} is defined twice`);
    byName.set(tool.name, tool);
  }
  const listings = new Map<Profile, readonly ListedTool[]>();
  const readListings = new Map<Profile, readonly ListedTool[]>();
  for (const profile of PROFILES) {
    const shown = tools.filter((t) => t.profiles.includes(profile));
    listings.set(profile, shown.map(listing));
    readListings.set(profile, shown.filter((t) => !isMutating(t)).map(listing));
  }
  return {
    tools,
    get: (name) => byName.get(name),
    listing: (profile, readOnly) => (readOnly ? readListings : listings).get(profile) ?? [],
  };
}

/** Every tool roomd serves. */
export const CATALOG: Catalog = createCatalog([
  ...planTools,
  ...contextTools,
  ...eventTools,
  ...presenceTools,
  ...lockTools,
  ...varTools,
  ...roomTools,
  ...reviewTools,
  ...searchTools,
  ...leaseTools,
  ...claimTools,
  ...leaveTools,
  ...compactTools,
  ...compactPeopleTools,
  ...agentroomTools,
  ...peopleTools,
  ...roomInfoTools,
  ...boardTools,
  ...boardActTools,
]);
