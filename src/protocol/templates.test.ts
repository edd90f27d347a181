/** Built-in templates: valid seeds whatever the (valid) parameters, and clear refusals of bad ones. */
import { describe, expect, test } from "bun:test";
import { RoomError } from "./errors.ts";
import { LIMITS } from "./limits.ts";
import { validatePayload } from "./payloads.ts";
import { buildSeed, findTemplate, TEMPLATE_TEXT_MAX, TEMPLATES } from "./templates.ts";

const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    if (err instanceof RoomError) return err.message;
  }
  throw new Error("not refused");
};

describe("templates", () => {
  test("at least api-handoff and review-loop, each with parameters and a plan", () => {
    expect(TEMPLATES.map((t) => t.name)).toEqual(["api-handoff", "review-loop"]);
    const handoff = buildSeed(findTemplate("api-handoff"));
    expect(handoff.contexts.map((c) => c.type)).toEqual(["api_contract"]);
    expect(handoff.tasks.length).toBeGreaterThanOrEqual(3);
  });

  for (const template of TEMPLATES) {
    test(`${template.name}: longest parameters still give valid tasks and payloads; dependencies point back`, () => {
      const params = Object.fromEntries(
        template.params.map((p) => [
          p.name,
          p.kind === "agent" ? "a".repeat(64) : "x".repeat(TEMPLATE_TEXT_MAX),
        ]),
      );
      const seed = buildSeed(template, params);
      seed.tasks.forEach((task, i) => {
        expect(task.title.length).toBeLessThanOrEqual(LIMITS.titleMax);
        expect(task.description.length).toBeLessThanOrEqual(LIMITS.descriptionMax);
        for (const dep of task.depends_on) expect(dep).toBeLessThan(i);
      });
      for (const entry of seed.contexts) {
        expect(() => validatePayload(entry.type, entry.payload)).not.toThrow();
        expect(entry.summary.length).toBeLessThanOrEqual(LIMITS.summaryMax);
        expect(new Set(entry.consuming_agents).size).toBe(entry.consuming_agents.length);
      }
    });
  }

  test("unknown, malformed and over-long parameters are refused, naming the parameter", () => {
    const review = findTemplate("review-loop");
    expect(refusal(() => buildSeed(review, { owner: "x" }))).toBe(
      "Invalid arguments: params.owner: template review-loop has no such parameter (it takes subject, author, reviewer)",
    );
    expect(refusal(() => buildSeed(review, { reviewer: "not an id" }))).toBe(
      "Invalid arguments: params.reviewer: must be an agent id (1-64 chars of A-Z, a-z, 0-9, _ . : -)",
    );
    expect(refusal(() => buildSeed(review, { subject: "x".repeat(TEMPLATE_TEXT_MAX + 1) }))).toBe(
      `Invalid arguments: params.subject: must be 1-${TEMPLATE_TEXT_MAX} characters without control characters`,
    );
    expect(refusal(() => buildSeed(review, { subject: "bell\u0007" }))).toMatch(
      /^Invalid arguments: params\.subject/,
    );
    expect(refusal(() => findTemplate("nope"))).toBe("Invalid arguments: template: unknown template nope");
  });
});
