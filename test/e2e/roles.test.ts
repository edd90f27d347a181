/**
 * People's roles per room through real HTTP and MCP (docs/people.md#roles): a room without roles behaves as before;
 * roles set through the admin routes; every act a role may not do refused with 403 naming the role needed, by route
 * and by tool, changing nothing; operators approve everywhere; approvals that name their approvers.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RoomStore } from "../../src/store/types.ts";
import { httpClient } from "../support/http.ts";
import { OPERATOR, type RunningServer, startInProcess } from "../support/server.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";

type Http = ReturnType<typeof httpClient>;

/** Everything a refused act could have changed, read by the operator. */
async function roomState(http: Http, roomId: string): Promise<string> {
  const reads = await Promise.all([
    http.get(`/rooms/${roomId}/driver`, OPERATOR.secret),
    http.get(`/rooms/${roomId}/approvals`, OPERATOR.secret),
    http.get(`/rooms/${roomId}/handoffs`, OPERATOR.secret),
    http.get(`/rooms/${roomId}/events?limit=100`, OPERATOR.secret),
    http.get("/admin/rooms", OPERATOR.secret),
  ]);
  return JSON.stringify(reads.map((r) => r.body));
}

for (const make of E2E_STORES) {
  describe(`roles for people on ${make().name}`, () => {
    let store: RoomStore;
    let server: RunningServer;
    let http: Http;
    /** Team "ops": the operator is person "carol"; alice and bob are people; bot is an agent. */
    const keys = { alice: "", bob: "", bot: "" };

    beforeAll(async () => {
      store = await make().open();
      server = startInProcess(store, undefined, {
        OPERATOR_KEYS: `${OPERATOR.teamId}:${OPERATOR.secret}:carol`,
        KEYS_PER_TEAM: "10000",
      });
      http = httpClient(server.url);
      const mint = async (body: Record<string, unknown>) =>
        (await http.post("/admin/keys", OPERATOR.secret, body)).body.secret as string;
      keys.alice = await mint({ kind: "human", humanId: "alice" });
      keys.bob = await mint({ kind: "human", humanId: "bob" });
      keys.bot = await mint({ boundAgentId: "bot" });
    });
    afterAll(async () => {
      await server.stop();
      await store.close();
    });

    /** A room with a task, an approval bot asked for (apr-1) and an offer bot made (hof-1). */
    async function room(approvers?: string[]): Promise<string> {
      const roomId = newRoomId();
      expect((await http.post("/admin/rooms", OPERATOR.secret, { roomId })).status).toBe(201);
      expect((await http.tool(keys.bot, "add_task", { roomId, title: "ship it" })).isError).toBe(false);
      const asked = await http.tool(keys.bot, "request_approval", {
        roomId,
        action: "deploy",
        ...(approvers ? { approvers } : {}),
      });
      expect(asked.isError).toBe(false);
      const offered = await http.tool(keys.bot, "offer_handoff", { roomId, to: "any", note: "take it" });
      expect(offered.isError).toBe(false);
      return roomId;
    }
    /** The compact profile's `ask`, as raw JSON-RPC: its result. */
    async function compact(key: string, args: Record<string, unknown>) {
      const res = await fetch(`${server.url}/mcp?profile=compact`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${key}`,
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "ask", arguments: args },
        }),
      });
      type Result = {
        isError?: boolean;
        content: { text: string }[];
        structuredContent?: { approvers?: string[] };
      };
      return ((await res.json()) as { result: Result }).result;
    }
    const setRole = (roomId: string, key: string, person: string, role: string) =>
      http.put(`/admin/rooms/${roomId}/roles/${encodeURIComponent(person)}`, key, { role });

    test("a room without roles: every person is an approver, as before roles existed", async () => {
      const roomId = await room();
      expect((await http.get(`/admin/rooms/${roomId}/roles`, keys.bob)).body).toEqual({
        roomId,
        roles: {},
        others: "approver",
        you: "approver",
      });
      expect((await http.post(`/rooms/${roomId}/messages`, keys.bob, { to: "bot", text: "hi" })).status).toBe(
        201,
      );
      expect((await http.post(`/rooms/${roomId}/driver`, keys.bob, { action: "take" })).status).toBe(200);
      const decided = await http.post(`/rooms/${roomId}/approvals/apr-1`, keys.alice, {
        decision: "approve",
      });
      expect([decided.status, decided.body.decidedBy]).toEqual([200, "human:alice"]);
      const fork = await http.post(`/rooms/${roomId}/fork`, keys.alice, { newRoomId: `${roomId}-f` });
      expect(fork.status).toBe(201);
      expect((await http.get(`/rooms/${roomId}-f/driver`, keys.alice)).body.holder).toBe("human:alice");
    });

    test("setting roles: people only, approvers only, never taking the approver role from oneself", async () => {
      const roomId = await room();
      const lockout = await setRole(roomId, keys.alice, "bob", "viewer");
      expect([lockout.status, lockout.body.error]).toEqual([
        403,
        `This change would leave you without the approver role in room ${roomId}: name yourself an approver (or "*") first, or ask an operator`,
      ]);
      expect((await setRole(roomId, keys.alice, "alice", "approver")).status).toBe(200);
      const set = await setRole(roomId, keys.alice, "bob", "viewer");
      expect(set.body).toEqual({
        roomId,
        roles: { alice: "approver", bob: "viewer" },
        others: "viewer",
        you: "approver",
      });
      // bob, a viewer now, may not change roles; an agent's key never may.
      const byViewer = await setRole(roomId, keys.bob, "bob", "approver");
      expect([byViewer.status, byViewer.body.error]).toEqual([
        403,
        `Setting roles in room ${roomId} needs the approver role; you are a viewer`,
      ]);
      const byAgent = await setRole(roomId, keys.bot, "bob", "approver");
      expect([byAgent.status, byAgent.body.error]).toEqual([
        403,
        "Keys bound to an agent can only use GET /admin/me",
      ]);
      // Bad input changes nothing.
      expect((await setRole(roomId, keys.alice, "bob", "owner")).status).toBe(400);
      const badPerson = await setRole(roomId, keys.alice, "human:bob", "member");
      expect([badPerson.status, badPerson.body.error]).toMatchObject([
        400,
        expect.stringContaining("person:"),
      ]);
      expect((await setRole(`${roomId}-none`, keys.alice, "bob", "member")).status).toBe(404);
      // The operator makes any change, and is an approver whatever it names.
      expect((await setRole(roomId, OPERATOR.secret, "alice", "viewer")).body.roles.alice).toBe("viewer");
      expect((await setRole(roomId, OPERATOR.secret, "carol", "viewer")).body.you).toBe("approver");
      const removed = await http.del(`/admin/rooms/${roomId}/roles/alice`, OPERATOR.secret);
      expect(removed.body.roles).toEqual({ bob: "viewer", carol: "viewer" });
      expect((await http.get(`/admin/rooms/${roomId}/roles`, keys.alice)).body.you).toBe("viewer");
    });

    test("a viewer reads and watches; every other act is refused naming the role, and changes nothing", async () => {
      const roomId = await room();
      await setRole(roomId, OPERATOR.secret, "*", "approver");
      await setRole(roomId, OPERATOR.secret, "bob", "viewer");
      const before = await roomState(http, roomId);
      const needs = (what: string, role: string) =>
        `${what} in room ${roomId} needs the ${role} role; you are a viewer`;
      const refusals: [string, unknown, string][] = [
        [`/rooms/${roomId}/messages`, { to: "bot", text: "hi" }, needs("Posting messages", "member")],
        [`/rooms/${roomId}/handoffs`, { to: "any", note: "n" }, needs("Handing work over", "member")],
        [`/rooms/${roomId}/handoffs/hof-1`, { action: "cancel" }, needs("Handing work over", "member")],
        [`/rooms/${roomId}/fork`, {}, needs("Forking", "member")],
        [`/rooms/${roomId}/driver`, { action: "take" }, needs("Taking the wheel", "approver")],
        [`/rooms/${roomId}/steer`, { epoch: 0, to: "bot", text: "x" }, needs("Taking the wheel", "approver")],
        [
          `/rooms/${roomId}/interrupt`,
          { epoch: 0, to: "bot", reason: "x" },
          needs("Taking the wheel", "approver"),
        ],
        [
          `/rooms/${roomId}/approvals/apr-1`,
          { decision: "approve" },
          needs("Deciding approvals", "approver"),
        ],
      ];
      for (const [path, body, error] of refusals) {
        const res = await http.post(path, keys.bob, body);
        expect([path, res.status, res.body.error]).toEqual([path, 403, error]);
      }
      const write = await http.tool(keys.bob, "post_event", {
        roomId,
        from: "bobs-bot",
        type: "note",
        payload: {},
      });
      expect([write.isError, write.text]).toEqual([
        true,
        `Error: ${needs("Writing through tools", "member")}`,
      ]);
      const claim = await http.tool(keys.bob, "claim_driver", { roomId, agentId: "bobs-bot" });
      expect(claim.text).toBe(`Error: ${needs("Taking the wheel", "approver")}`);
      const ask = await compact(keys.bob, { roomId, agentId: "bobs-bot", action: "deploy" });
      expect(ask.content[0]?.text).toBe(`Error: ${needs("Writing through tools", "member")}`);
      expect(await roomState(http, roomId)).toBe(before);
      // Reads stay open to a viewer, reading a decision with ask included.
      expect((await compact(keys.bob, { roomId, agentId: "bobs-bot", id: "apr-1" })).isError).toBeUndefined();
      expect((await http.get(`/rooms/${roomId}/approvals`, keys.bob)).status).toBe(200);
      expect((await http.tool(keys.bob, "read_plan", { roomId })).isError).toBe(false);
      expect((await http.get(`/rooms/${roomId}/export`, keys.bob)).status).toBe(200);
    });

    test("a member messages, hands over, forks and writes through tools, but neither drives nor decides", async () => {
      const roomId = await room();
      await setRole(roomId, OPERATOR.secret, "bob", "member");
      expect((await http.post(`/rooms/${roomId}/messages`, keys.bob, { to: "bot", text: "hi" })).status).toBe(
        201,
      );
      expect((await http.post(`/rooms/${roomId}/handoffs`, keys.bob, { to: "any", note: "n" })).status).toBe(
        201,
      );
      expect(
        (await http.tool(keys.bob, "post_event", { roomId, from: "b2", type: "note", payload: {} })).isError,
      ).toBe(false);
      // The fork copies the roles; its wheel stays free, since the member may not drive there either.
      const fork = await http.post(`/rooms/${roomId}/fork`, keys.bob, { newRoomId: `${roomId}-f` });
      expect(fork.status).toBe(201);
      expect((await http.get(`/rooms/${roomId}-f/driver`, keys.bob)).body.holder).toBeNull();
      expect((await http.get(`/admin/rooms/${roomId}-f/roles`, keys.bob)).body.roles).toEqual({
        bob: "member",
      });
      const take = await http.post(`/rooms/${roomId}/driver`, keys.bob, { action: "take" });
      expect([take.status, take.body.error]).toEqual([
        403,
        `Taking the wheel in room ${roomId} needs the approver role; you are a member`,
      ]);
      const decide = await http.post(`/rooms/${roomId}/approvals/apr-1`, keys.bob, { decision: "reject" });
      expect(decide.body.error).toBe(
        `Deciding approvals in room ${roomId} needs the approver role; you are a member`,
      );
      // Operators are approvers everywhere, named or not; agents keep what their keys give them.
      expect((await http.post(`/rooms/${roomId}/driver`, OPERATOR.secret, { action: "take" })).status).toBe(
        200,
      );
      expect((await http.tool(keys.bot, "heartbeat", { roomId, statusText: "working" })).isError).toBe(false);
      expect(
        (await http.post(`/rooms/${roomId}/approvals/apr-1`, OPERATOR.secret, { decision: "approve" }))
          .status,
      ).toBe(200);
    });

    test("an approval naming its approvers is decided by them only: not another approver, not an operator", async () => {
      const roomId = await room(["alice", "human:alice", "human:dora"]);
      const [listed] = (await http.get(`/rooms/${roomId}/approvals`, keys.bob)).body.approvals;
      expect(listed.approvers).toEqual(["human:alice", "human:dora"]);
      const message = (who: string) =>
        `Approval apr-1 is for human:alice, human:dora to decide; you (${who}) are not one of them`;
      const byBob = await http.post(`/rooms/${roomId}/approvals/apr-1`, keys.bob, { decision: "approve" });
      expect([byBob.status, byBob.body.error]).toEqual([403, message("human:bob")]);
      const byOperator = await http.post(`/rooms/${roomId}/approvals/apr-1`, OPERATOR.secret, {
        decision: "approve",
      });
      expect([byOperator.status, byOperator.body.error]).toEqual([403, message("human:carol")]);
      // Named, but no longer an approver of the room: the role is needed too.
      await setRole(roomId, OPERATOR.secret, "alice", "member");
      const asMember = await http.post(`/rooms/${roomId}/approvals/apr-1`, keys.alice, {
        decision: "approve",
      });
      expect(asMember.status).toBe(403);
      await setRole(roomId, OPERATOR.secret, "alice", "approver");
      const decided = await http.post(`/rooms/${roomId}/approvals/apr-1`, keys.alice, {
        decision: "approve",
      });
      expect([decided.status, decided.body.status, decided.body.decidedBy]).toEqual([
        200,
        "approved",
        "human:alice",
      ]);
      // The compact profile's ask names them too; a bad name is refused.
      const bad = await http.tool(keys.bot, "request_approval", {
        roomId,
        action: "x",
        approvers: ["not a name"],
      });
      expect(bad.isError).toBe(true);
      const asked = await compact(keys.bot, { roomId, action: "y", approvers: ["dora"] });
      expect(asked.structuredContent?.approvers).toEqual(["human:dora"]);
    });
  });
}
