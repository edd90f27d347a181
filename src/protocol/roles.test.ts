/** The roles rule (protocol/roles.ts): who has which role, and what each role may do. */
import { describe, expect, test } from "bun:test";
import type { Principal } from "./principal.ts";
import { ACT_ROLE, type Act, approverNames, checkApprover, mayAct, ROLES, roleOf } from "./roles.ts";

const person = (humanId: string, kind: Principal["kind"] = "dynamic"): Principal => ({
  teamId: "t",
  kind,
  humanId,
});

describe("roles", () => {
  test("each role may do exactly the acts of its rank and below", () => {
    const table = Object.fromEntries(
      ROLES.map((role) => [role, (Object.keys(ACT_ROLE) as Act[]).filter((act) => mayAct(role, act))]),
    );
    expect(table).toEqual({
      viewer: [],
      member: ["message", "handoff", "fork", "tools"],
      approver: ["message", "handoff", "fork", "tools", "decide", "drive", "roles", "suspend"],
    });
  });

  test("whose role: operators approve everywhere; nobody named, everyone approves; else named, *, viewer", () => {
    expect(roleOf({}, person("alice"))).toBe("approver");
    expect(roleOf({ bob: "member" }, person("alice"))).toBe("viewer");
    expect(roleOf({ bob: "member", "*": "approver" }, person("alice"))).toBe("approver");
    expect(roleOf({ alice: "viewer", "*": "approver" }, person("alice"))).toBe("viewer");
    expect(roleOf({ carol: "viewer" }, person("carol", "operator"))).toBe("approver");
    expect(roleOf({ alice: "viewer" }, { teamId: "t", kind: "dynamic" })).toBeUndefined();
    expect(roleOf({ bob: "member" }, person("__proto__"))).toBe("viewer");
  });

  test("approvers: named once as human:<id>; only they decide when named", () => {
    expect(approverNames(["alice", "human:alice", "bob"])).toEqual(["human:alice", "human:bob"]);
    expect(() => checkApprover({ id: "apr-1" }, "human:zed")).not.toThrow();
    expect(() => checkApprover({ id: "apr-1", approvers: ["human:alice"] }, "human:alice")).not.toThrow();
    expect(() => checkApprover({ id: "apr-1", approvers: ["human:alice"] }, "human:carol")).toThrow(
      "Approval apr-1 is for human:alice to decide; you (human:carol) are not one of them",
    );
  });
});
