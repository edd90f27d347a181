/**
 * What the profiles cost, counted with the same tokenizer package the docs name (js-tiktoken, o200k_base): compact
 * stays within the printed profile's budget and 35% of full's tokens (test/instructions.test.ts holds the budget), agentroom is exactly the AgentRoom five, and the table in
 * docs/profiles.md is what the catalog measures now (run `bun run docs`).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { getEncoding } from "js-tiktoken";
import {
  measureProfiles,
  PRINTED_BUDGET_TOKENS,
  renderTokenTable,
  TOKENS_BEGIN,
  TOKENS_END,
} from "../bench/profile-tokens.ts";
import { CATALOG } from "../src/mcp/catalog.ts";

const costs = measureProfiles();
const cost = (profile: string) => costs.find((c) => c.profile === profile) as (typeof costs)[number];

describe("tool profiles", () => {
  test("the tokenizer is real: known counts for known text", () => {
    const encoding = getEncoding("o200k_base");
    expect(encoding.encode("hello world")).toHaveLength(2);
    expect(encoding.decode(encoding.encode('{"name":"claim_files"}'))).toBe('{"name":"claim_files"}');
  });

  test(`compact: at most ${PRINTED_BUDGET_TOKENS} tokens and at most 35% of full's tokens`, () => {
    expect(cost("compact").tokens).toBeLessThanOrEqual(PRINTED_BUDGET_TOKENS);
    expect(cost("compact").tokens).toBeLessThanOrEqual(0.35 * cost("full").tokens);
    // Counted on the real listing, not an empty one.
    expect(cost("compact").tokens).toBeGreaterThan(1000);
  });

  test("agentroom: exactly the five AgentRoom tools", () => {
    expect(CATALOG.listing("agentroom").map((t) => t.name)).toEqual([
      "room_claim",
      "room_release",
      "room_state",
      "room_broadcast",
      "room_read",
    ]);
    expect(cost("agentroom").tokens).toBeLessThan(cost("compact").tokens);
  });

  test("docs/profiles.md holds the table the catalog measures (run `bun run docs`)", () => {
    const file = readFileSync(join(import.meta.dir, "..", "docs", "profiles.md"), "utf8");
    const table = file.slice(file.indexOf(TOKENS_BEGIN), file.indexOf(TOKENS_END) + TOKENS_END.length);
    expect(table).toBe(renderTokenTable(costs));
  });
});
