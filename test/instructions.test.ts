/**
 * What roomd prints to connect an agent matches what that agent gets: the printed profile's tool list stays within
 * its token budget, the instructions name only tools the configured profile lists (and every one of them, so each
 * step reaches a tool), the server's own instructions of every profile likewise, and the snippets configure the
 * printed profile.
 */
import { describe, expect, test } from "bun:test";
import { measureProfiles, PRINTED_BUDGET_TOKENS } from "../bench/profile-tokens.ts";
import {
  agentInstructions,
  claudeCodeCommand,
  codexToml,
  cursorJson,
  geminiJson,
  PRINTED_PROFILE,
} from "../src/clients.ts";
import { CATALOG } from "../src/mcp/catalog.ts";
import { INSTRUCTIONS } from "../src/mcp/request-deps.ts";
import { PROFILES, type Profile } from "../src/mcp/tool.ts";

const ALL_TOOLS = new Set(CATALOG.tools.map((t) => t.name));
const listed = (profile: Profile) => new Set(CATALOG.listing(profile).map((t) => t.name));

/** Every tool name the text puts in backticks (the printed instructions mark every tool so). */
function toolsNamed(text: string): Set<string> {
  return new Set(
    [...text.matchAll(/`([a-z_]+)`/g)].map((m) => m[1] as string).filter((w) => ALL_TOOLS.has(w)),
  );
}

/**
 * The tools a server's instructions (plain prose) name: every snake_case tool name, since those are no English
 * words; a one-word name ("plan", "claim") may be the word, so those count only for coverage.
 */
const words = (text: string) => new Set(text.match(/[a-z][a-z_]*/g) ?? []);

const info = { url: "http://localhost:3000", roomId: "my-project", operatorKey: "$(cat data/operator.key)" };

describe("what roomd prints to connect an agent", () => {
  test(`the printed profile (${PRINTED_PROFILE}) lists at most ${PRINTED_BUDGET_TOKENS} tokens of tools`, () => {
    const cost = measureProfiles().find((c) => c.profile === PRINTED_PROFILE);
    expect(cost?.tokens).toBeGreaterThan(1000);
    expect(cost?.tokens).toBeLessThanOrEqual(PRINTED_BUDGET_TOKENS);
  });

  for (const profile of ["compact", "full"] as const) {
    test(`the ${profile} instructions name only tools of ${profile}`, () => {
      const named = [...toolsNamed(agentInstructions(info, profile))];
      expect(named.filter((name) => !listed(profile).has(name))).toEqual([]);
    });
  }

  test("the printed instructions name every tool of the printed profile: each step reaches a tool", () => {
    const named = toolsNamed(agentInstructions(info));
    expect([...listed(PRINTED_PROFILE)].filter((name) => !named.has(name))).toEqual([]);
  });

  test("the printed instructions reach every step an agent takes", () => {
    const text = agentInstructions(info);
    for (const tool of ["summary", "claim", "files", "context_write", "wait", "ask", "handoff", "leave"])
      expect(text).toContain(`\`${tool}\``);
    expect(text).toContain("change_request");
    expect(text).toContain("messages");
  });

  for (const profile of PROFILES) {
    test(`the server's instructions of ${profile} name only its tools${profile === "full" ? "" : ", and all of them"}`, () => {
      const said = words(INSTRUCTIONS[profile]);
      const named = [...said].filter((w) => w.includes("_") && ALL_TOOLS.has(w));
      expect(named.filter((name) => !listed(profile).has(name))).toEqual([]);
      if (profile !== "full") expect([...listed(profile)].filter((name) => !said.has(name))).toEqual([]);
      else expect(named.length).toBeGreaterThan(5);
    });
  }

  test("every snippet configures the printed profile", () => {
    for (const snippet of [claudeCodeCommand(info), cursorJson(info), codexToml(info), geminiJson(info)])
      expect(snippet).toContain(`http://localhost:3000/mcp?profile=${PRINTED_PROFILE}`);
  });
});
