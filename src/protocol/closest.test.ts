import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { closestNames, editDistance, foldName, meantArgument, orList } from "./closest.ts";
import { describeIssues } from "./validation.ts";

describe("editDistance", () => {
  test("counts insertions, deletions, substitutions and swaps of neighbours", () => {
    expect(editDistance("", "")).toBe(0);
    expect(editDistance("abc", "abc")).toBe(0);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("abc", "")).toBe(3);
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("quer", "query")).toBe(1);
    expect(editDistance("taks", "task")).toBe(1);
    expect(editDistance("ca", "abc")).toBe(3);
  });

  test("past the limit it answers limit + 1, never less than the true distance", () => {
    expect(editDistance("aaaaaaaa", "bbbbbbbb", 2)).toBe(3);
    expect(editDistance("a", "abcdef", 2)).toBe(3);
    expect(editDistance("abcd", "abdc", 1)).toBe(1);
    for (const [a, b] of [
      ["backend-api", "frontend-ui"],
      ["team-a-room", "team-b-room"],
      ["x", "y"],
    ] as const) {
      const full = editDistance(a, b);
      for (let limit = 0; limit <= full + 1; limit++)
        expect(editDistance(a, b, limit)).toBe(full <= limit ? full : limit + 1);
    }
  });
});

describe("closestNames", () => {
  test("case, underscores and hyphens are one name", () => {
    expect(foldName("Status_Text")).toBe("statustext");
    expect(closestNames("status_text", ["roomId", "statusText"])).toEqual(["statusText"]);
    expect(closestNames("agent_id", ["agentId", "roomId"])).toEqual(["agentId"]);
    expect(closestNames("depends_on", ["dependsOn"])).toEqual(["dependsOn"]);
  });

  test("a name that starts or ends the other is close: status for statusText, id for taskId", () => {
    expect(closestNames("status", ["roomId", "agentId", "statusText", "idempotencyKey"])).toEqual([
      "statusText",
    ]);
    expect(closestNames("id", ["taskId"])).toEqual(["taskId"]);
    expect(closestNames("x", ["xy"])).toEqual(["xy"]);
  });

  test("typos within the allowed edits, closest first, ties in the order given, at most max", () => {
    expect(closestNames("querry", ["query", "types", "limit"])).toEqual(["query"]);
    expect(closestNames("room-a", ["room-bc", "room-b", "room-ab", "other", "room-c"], 3)).toEqual([
      "room-b",
      "room-ab",
      "room-c",
    ]);
    expect(closestNames("abc", ["abd", "abe"], 1)).toEqual(["abd"]);
  });

  test("nothing close gives nothing, and the given name is never suggested", () => {
    expect(closestNames("bogus", ["roomId", "title", "description"])).toEqual([]);
    expect(closestNames("ab", ["xy"])).toEqual([]);
    expect(closestNames("title", ["title"])).toEqual([]);
  });
});

describe("meantArgument", () => {
  test("a synonym the tool takes comes before spelling", () => {
    expect(meantArgument("agentId", ["roomId", "from", "type"])).toEqual(["from"]);
    expect(meantArgument("agentId", ["roomId", "author", "type"])).toEqual(["author"]);
    expect(meantArgument("contextId", ["roomId", "id"])).toEqual(["id"]);
    expect(meantArgument("consumers", ["consuming_agents"])).toEqual(["consuming_agents"]);
    expect(meantArgument("ttlSeconds", ["taskId", "leaseSeconds"])).toEqual(["leaseSeconds"]);
  });

  test("a required argument left out is preferred over other close names", () => {
    expect(meantArgument("id", ["roomId", "reviewId", "agentId"])).toEqual(["roomId", "agentId"]);
    expect(meantArgument("id", ["roomId", "reviewId", "agentId"], ["reviewId"])).toEqual(["reviewId"]);
  });
});

test("orList quotes names as they are sent", () => {
  expect(orList(["a"])).toBe('"a"');
  expect(orList(["a", "b"])).toBe('"a" or "b"');
  expect(orList(["a", "b", "c"])).toBe('"a", "b" or "c"');
});

describe("describeIssues with the schema", () => {
  const schema = z.strictObject({
    roomId: z.string(),
    statusText: z.string().optional(),
    tasks: z.array(z.strictObject({ title: z.string(), priority: z.number().optional() })).optional(),
  });
  const message = (value: unknown) => {
    const parsed = schema.safeParse(value);
    if (parsed.success) throw new Error("expected a refusal");
    return describeIssues(parsed.error.issues, schema);
  };

  test("an unknown argument names the closest valid one", () => {
    expect(message({ roomId: "r", status: "x" })).toBe(
      'Invalid arguments: arguments: Unrecognized key "status" — did you mean "statusText"?',
    );
  });

  test("when nothing is close it lists the valid names", () => {
    expect(message({ roomId: "r", bogus: 1 })).toBe(
      'Invalid arguments: arguments: Unrecognized key "bogus" — valid arguments: roomId, statusText, tasks',
    );
  });

  test("inside an array of objects it names the keys of the item", () => {
    expect(message({ roomId: "r", tasks: [{ title: "t", priorty: 1 }] })).toBe(
      'Invalid arguments: tasks.0: Unrecognized key "priorty" — did you mean "priority"?',
    );
  });

  test("without the schema it keeps zod's message", () => {
    const parsed = schema.safeParse({ roomId: "r", status: "x" });
    expect(parsed.success).toBe(false);
    if (!parsed.success)
      expect(describeIssues(parsed.error.issues)).toBe(
        'Invalid arguments: arguments: Unrecognized key: "status"',
      );
  });
});
