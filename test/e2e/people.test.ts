/**
 * People in the room through real HTTP (docs/people.md): which keys are people, who may do what on the
 * /rooms/:roomId routes, approvals only people decide (never an agent key, by any route or tool; a person by the
 * route or the room board's decide_approval), messages
 * reaching the addressed agent first, handoffs, forks and verdicts, and bad input answered clearly with nothing
 * changed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { digestHex, hintOf, newKeyId, newKeySecret } from "../../src/access/secrets.ts";
import { CATALOG } from "../../src/mcp/catalog.ts";
import { iso } from "../../src/protocol/time.ts";
import type { RoomStore } from "../../src/store/types.ts";
import { exampleRoom } from "../support/catalog-check.ts";
import { httpClient } from "../support/http.ts";
import { OPERATOR, type RunningServer, startInProcess, TEAM_A } from "../support/server.ts";
import { E2E_STORES, newRoomId } from "../support/stores.ts";

type Http = ReturnType<typeof httpClient>;

/** Everything a refused people's call could have changed, read through routes and tools. */
async function roomState(http: Http, key: string, roomId: string): Promise<string> {
  const reads = await Promise.all([
    http.get(`/rooms/${roomId}/driver`, key),
    http.get(`/rooms/${roomId}/approvals`, key),
    http.get(`/rooms/${roomId}/handoffs`, key),
    http.get(`/rooms/${roomId}/verdicts`, key),
    http.tool(key, "read_events", { roomId, limit: 100 }),
    http.tool(key, "read_plan", { roomId }),
  ]);
  return JSON.stringify(
    reads.map((r) => ("body" in r && !("isError" in r) ? r.body : (r as { text: string }).text)),
  );
}

for (const make of E2E_STORES) {
  describe(`people in the room on ${make().name}`, () => {
    let clock = Date.now();
    let store: RoomStore;
    let server: RunningServer;
    let http: Http;
    /** Team "ops": the operator (person "carol"), a person's key (alice), a second person (bob), agents' keys. */
    const keys = { alice: "", bob: "", bot: "", plain: "" };

    beforeAll(async () => {
      store = await make().open({ now: () => clock });
      server = startInProcess(
        store,
        undefined,
        {
          OPERATOR_KEYS: `${OPERATOR.teamId}:${OPERATOR.secret}:carol`,
          // The shared Redis keeps every test file's keys of a team: the default 50 would run out.
          KEYS_PER_TEAM: "10000",
        },
        () => clock,
      );
      http = httpClient(server.url);
      const mint = async (body: Record<string, unknown>) =>
        (await http.post("/admin/keys", OPERATOR.secret, body)).body.secret as string;
      keys.alice = await mint({ kind: "human", humanId: "alice" });
      keys.bob = await mint({ kind: "human", humanId: "bob@example.com" });
      keys.bot = await mint({ boundAgentId: "bot" });
      keys.plain = await mint({ note: "an agent's unbound key" });
    });
    afterAll(async () => {
      await server.stop();
      await store.close();
    });

    async function room(): Promise<string> {
      const roomId = newRoomId();
      expect((await http.post("/admin/rooms", OPERATOR.secret, { roomId })).status).toBe(201);
      return roomId;
    }
    async function invite(roomId: string, body: Record<string, unknown>): Promise<string> {
      const made = await http.post(`/admin/rooms/${roomId}/invite`, OPERATOR.secret, body);
      expect(made.status).toBe(201);
      return made.body.token;
    }

    test("who is a person: /admin/me and whoami show type and humanId for every kind of key", async () => {
      const roomId = await room();
      const firstRunSecret = newKeySecret(OPERATOR.teamId);
      await store.createKey(
        {
          keyId: newKeyId(OPERATOR.teamId),
          teamId: OPERATOR.teamId,
          kind: "operator",
          createdAt: iso(clock),
          hint: hintOf(firstRunSecret),
          digest: digestHex(firstRunSecret),
        },
        50,
      );
      const cases: [string, Record<string, unknown>][] = [
        [OPERATOR.secret, { kind: "operator", type: "human", humanId: "carol" }],
        [firstRunSecret, { kind: "operator", type: "human", humanId: "local" }],
        [keys.alice, { kind: "dynamic", type: "human", humanId: "alice" }],
        [TEAM_A.secret, { kind: "static", type: "agent" }],
        [keys.bot, { kind: "dynamic", type: "agent", boundAgentId: "bot" }],
        [
          await invite(roomId, { kind: "human", humanId: "dana" }),
          { kind: "invite", type: "human", humanId: "dana" },
        ],
        [
          await invite(roomId, { agentId: "helper" }),
          { kind: "invite", type: "agent", boundAgentId: "helper" },
        ],
      ];
      // No agent passes for a person: agent ids may not take the prefix that names people, in any tool.
      const posing = await http.tool(keys.plain, "post_event", { roomId, type: "x", from: "human:carol" });
      expect(posing.text).toBe(
        'Error: Invalid arguments: from: must not start with "human:" (that prefix names people)',
      );
      for (const [key, expected] of cases) {
        const who = JSON.parse((await http.tool(key, "whoami", {})).text);
        expect(who).toMatchObject(expected);
        if (expected.type === "agent") expect(who.humanId).toBeUndefined();
        if (expected.kind !== "invite")
          expect((await http.get("/admin/me", key)).body).toMatchObject(expected);
      }
      // OPERATOR_NAME names the person of a key kept without one (the first-run key): the same key, renamed.
      const named = startInProcess(store, undefined, { OPERATOR_NAME: "ada" }, () => clock);
      try {
        const who = await httpClient(named.url).get("/admin/me", firstRunSecret);
        expect(who.body).toMatchObject({ kind: "operator", type: "human", humanId: "ada" });
      } finally {
        await named.stop();
      }
    });

    test("only people mint keys and invites for people; bad kinds are refused and nothing is created", async () => {
      const roomId = await room();
      const before = (await http.get("/admin/keys", OPERATOR.secret)).body.keys.length;
      const refusals: [string, string, Record<string, unknown>, number, RegExp][] = [
        [
          TEAM_A.secret,
          "/admin/keys",
          { kind: "human", humanId: "mallory" },
          403,
          /^Only people can create keys or invites for people$/,
        ],
        [OPERATOR.secret, "/admin/keys", { kind: "human" }, 400, /humanId: required with kind "human"/],
        [
          OPERATOR.secret,
          "/admin/keys",
          { kind: "human", humanId: "x", boundAgentId: "bot" },
          400,
          /boundAgentId: a person's key or invite is not bound to an agent/,
        ],
        [OPERATOR.secret, "/admin/keys", { humanId: "x" }, 400, /humanId: only with kind "human"/],
        [
          OPERATOR.secret,
          "/admin/keys",
          { kind: "human", humanId: "has space" },
          400,
          /humanId: must be 1-64 chars/,
        ],
        [OPERATOR.secret, "/admin/keys", { kind: "robot" }, 400, /kind/],
        [
          OPERATOR.secret,
          "/admin/keys",
          { boundAgentId: "human:sneaky" },
          400,
          /boundAgentId: must not start with "human:"/,
        ],
      ];
      for (const [key, path, body, status, error] of refusals) {
        const res = await http.post(path, key, body);
        expect({ body, status: res.status }).toEqual({ body, status });
        expect(res.body.error).toMatch(error);
      }
      expect((await http.get("/admin/keys", OPERATOR.secret)).body.keys.length).toBe(before);
      const agentInvite = await http.post(`/admin/rooms/${roomId}/invite`, keys.plain, {
        kind: "human",
        humanId: "m",
      });
      expect(agentInvite.status).toBe(403);
      expect((await http.get(`/admin/rooms/${roomId}/invites`, OPERATOR.secret)).body.invites).toEqual([]);
      const made = await http.post(`/admin/rooms/${roomId}/invite`, keys.alice, {
        kind: "human",
        humanId: "erin",
      });
      expect(made.body).toMatchObject({ kind: "human", humanId: "erin" });
    });

    test("only people revoke people's keys and invites; an agent's key still revokes agents' ones", async () => {
      const mint = async (body: Record<string, unknown>) =>
        (await http.post("/admin/keys", OPERATOR.secret, body)).body as { keyId: string; secret: string };
      const person = await mint({ kind: "human", humanId: "frank" });
      const refused = await http.del(`/admin/keys/${person.keyId}`, keys.plain);
      expect({ status: refused.status, body: refused.body }).toEqual({
        status: 403,
        body: { error: "Only people can revoke keys or invites of people" },
      });
      expect((await http.get("/admin/me", person.secret)).status).toBe(200);
      expect((await http.del(`/admin/keys/${person.keyId}`, keys.alice)).status).toBe(200);
      expect((await http.get("/admin/me", person.secret)).status).toBe(401);
      const agent = await mint({ note: "an agent's" });
      expect((await http.del(`/admin/keys/${agent.keyId}`, keys.plain)).status).toBe(200);

      const roomId = await room();
      const invited = async (body: Record<string, unknown>) =>
        (await http.post(`/admin/rooms/${roomId}/invite`, OPERATOR.secret, body)).body.tokenId as string;
      const live = async () =>
        (await http.get(`/admin/rooms/${roomId}/invites`, OPERATOR.secret)).body.invites.map(
          (i: { tokenId: string }) => i.tokenId,
        );
      const gina = await invited({ kind: "human", humanId: "gina" });
      const helper = await invited({ agentId: "helper" });
      const byAgent = await http.del(`/admin/rooms/${roomId}/invites/${gina}`, keys.plain);
      expect({ status: byAgent.status, body: byAgent.body }).toEqual({
        status: 403,
        body: { error: "Only people can revoke keys or invites of people" },
      });
      expect((await live()).sort()).toEqual([gina, helper].sort());
      expect((await http.del(`/admin/rooms/${roomId}/invites/${helper}`, keys.plain)).status).toBe(200);
      expect((await http.del(`/admin/rooms/${roomId}/invites/${gina}`, keys.alice)).status).toBe(200);
      expect(await live()).toEqual([]);
    });

    test("an agent key (static, dynamic, bound, invite) never decides an approval; two people at once: one decision, the other 409", async () => {
      const roomId = await room();
      const agentInvite = await invite(roomId, { agentId: "helper" });
      const asked = JSON.parse(
        (await http.tool(keys.bot, "request_approval", { roomId, action: "deploy to production" })).text,
      );
      expect(asked).toMatchObject({ id: "apr-1", status: "pending", requestedBy: "bot" });
      const before = await roomState(http, OPERATOR.secret, roomId);
      for (const agentKey of [TEAM_A.secret, keys.plain, keys.bot, agentInvite]) {
        const res = await http.post(`/rooms/${roomId}/approvals/apr-1`, agentKey, { decision: "approve" });
        // Another team's static key is refused like a missing room; the team's own agents as non-people.
        expect([403, 404]).toContain(res.status);
        if (agentKey !== TEAM_A.secret)
          expect(res.body).toEqual({ error: "Only people can decide approvals" });
      }
      expect(await roomState(http, OPERATOR.secret, roomId)).toBe(before);
      const decisions = await Promise.all([
        http.post(`/rooms/${roomId}/approvals/apr-1`, keys.alice, { decision: "approve", note: "go" }),
        http.post(`/rooms/${roomId}/approvals/apr-1`, keys.bob, { decision: "reject" }),
      ]);
      expect(decisions.map((d) => d.status).sort()).toEqual([200, 409]);
      const won = decisions.find((d) => d.status === 200)?.body;
      const lost = decisions.find((d) => d.status === 409)?.body;
      expect(lost.error).toBe(
        `Approval apr-1 was already ${won.status} by ${won.decidedBy} at ${won.decided_at}`,
      );
      const read = JSON.parse(
        (await http.tool(keys.bot, "get_approval", { roomId, approvalId: "apr-1" })).text,
      );
      expect(read).toEqual(won);
    });

    test("only decide_approval decides an approval, and only for a person; no agent key decides one", async () => {
      // Every tool runs its example in a room holding a pending approval, with the approval's id wherever the
      // tool takes one, as a person and as an agent: the approval stays pending — but for the board's
      // decide_approval called with a person's key.
      const callers = [OPERATOR.secret, keys.alice, keys.plain, keys.bot];
      const people = new Set([OPERATOR.secret, keys.alice]);
      // Each caller in a room of its own, the four side by side.
      for (const tool of CATALOG.tools) {
        const check = async (key: string) => {
          const roomId = await room();
          await http.tool(keys.plain, "request_approval", { roomId, agentId: "asker", action: "x" });
          const args = await tool.example(
            exampleRoom({ http, teamKey: OPERATOR.secret, otherTeamKey: TEAM_A.secret }, roomId),
          );
          const full = {
            ...(tool.room ? { roomId } : {}),
            ...args,
            ...("approvalId" in tool.input.shape ? { approvalId: "apr-1" } : {}),
          };
          await http.tool(key, tool.name, full);
          const approvals = (await http.get(`/rooms/${roomId}/approvals`, OPERATOR.secret)).body.approvals;
          const decides = tool.name === "decide_approval" && people.has(key);
          const first = approvals.find((a: { id: string }) => a.id === "apr-1");
          expect({ tool: tool.name, status: first.status }).toEqual({
            tool: tool.name,
            status: decides ? "approved" : "pending",
          });
        };
        await Promise.all(callers.map(check));
      }
    });

    test("approvals past expires_at read as expired and cannot be decided; ?status filters", async () => {
      const roomId = await room();
      await http.tool(keys.bot, "request_approval", { roomId, action: "rotate", expiresInSeconds: 60 });
      clock += 60_000;
      const read = JSON.parse(
        (await http.tool(keys.bot, "get_approval", { roomId, approvalId: "apr-1" })).text,
      );
      expect(read.status).toBe("expired");
      expect((await http.get(`/rooms/${roomId}/approvals?status=pending`, keys.alice)).body).toEqual({
        approvals: [],
      });
      expect(
        (await http.get(`/rooms/${roomId}/approvals?status=expired`, keys.alice)).body.approvals,
      ).toHaveLength(1);
      const late = await http.post(`/rooms/${roomId}/approvals/apr-1`, keys.alice, { decision: "approve" });
      expect(late).toMatchObject({
        status: 409,
        body: { error: `Approval apr-1 expired at ${read.expires_at}; ask for a new one` },
      });
      expect((await http.get(`/rooms/${roomId}/approvals?status=soon`, keys.alice)).status).toBe(400);
    });

    test("the wheel: an agent drives until a person takes it; a person keeps it from another person unless an operator forces", async () => {
      const roomId = await room();
      const held = JSON.parse((await http.tool(keys.bot, "claim_driver", { roomId })).text);
      expect(held).toMatchObject({ holder: "bot", holderKind: "agent", epoch: 1 });
      const taken = await http.post(`/rooms/${roomId}/driver`, keys.alice, { action: "take" });
      expect(taken).toMatchObject({
        status: 200,
        body: { holder: "human:alice", holderKind: "human", epoch: 2 },
      });
      const late = await http.tool(keys.bot, "release_driver", { roomId, epoch: 1 });
      expect(late.text).toBe("Error: Stale driver epoch 1; the driver is now human:alice at epoch 2");
      const blocked = await http.post(`/rooms/${roomId}/driver`, keys.bob, { action: "take" });
      expect(blocked.status).toBe(409);
      expect(blocked.body.error).toMatch(
        /^The room is driven by human:alice since .+; they release it, or an operator takes it with force$/,
      );
      expect(
        await http.post(`/rooms/${roomId}/driver`, keys.bob, { action: "take", force: true }),
      ).toMatchObject({
        status: 403,
        body: { error: "Only an operator can take the wheel from another person (force)" },
      });
      const steerByBob = await http.post(`/rooms/${roomId}/steer`, keys.bob, {
        epoch: 2,
        to: "bot",
        text: "x",
      });
      expect(steerByBob).toMatchObject({
        status: 403,
        body: { error: "Only the driver (human:alice) can steer" },
      });
      const forced = await http.post(`/rooms/${roomId}/driver`, OPERATOR.secret, {
        action: "take",
        force: true,
      });
      expect(forced.body).toMatchObject({ holder: "human:carol", epoch: 3 });
      const stale = await http.post(`/rooms/${roomId}/steer`, keys.alice, { epoch: 2, to: "bot", text: "x" });
      expect(stale).toMatchObject({
        status: 409,
        body: { error: "Stale driver epoch 2; the driver is now human:carol at epoch 3" },
      });
      expect(
        (await http.post(`/rooms/${roomId}/steer`, keys.bot, { epoch: 3, to: "bot", text: "x" })).body,
      ).toEqual({
        error: "Only people can steer",
      });
      const released = await http.post(`/rooms/${roomId}/driver`, OPERATOR.secret, {
        action: "release",
        epoch: 3,
      });
      expect(released.body).toMatchObject({ holder: null, epoch: 4 });
      expect((await http.get(`/rooms/${roomId}/driver`, keys.bot)).body).toMatchObject({
        holder: null,
        epoch: 4,
      });
    });

    test("a message reaches the addressed agent's next get_my_summary first, and only that agent (or all)", async () => {
      const roomId = await room();
      for (let i = 0; i < 25; i++)
        await http.tool(keys.plain, "post_event", { roomId, type: "noise", from: "x" });
      const sent = await http.post(`/rooms/${roomId}/messages`, keys.alice, {
        to: "backend",
        text: "stop: schema changed",
      });
      expect(sent).toMatchObject({ status: 201, body: { eventId: "evt-26", seq: 26 } });
      const other = JSON.parse(
        (await http.tool(keys.plain, "get_my_summary", { roomId, agentId: "frontend", limit: 5 })).text,
      );
      expect(other.messages).toEqual([]);
      const summary = JSON.parse(
        (await http.tool(keys.plain, "get_my_summary", { roomId, agentId: "backend", limit: 5 })).text,
      );
      expect(summary.messages).toEqual([
        {
          id: "evt-26",
          seq: 26,
          from: "human:alice",
          to: "backend",
          text: "stop: schema changed",
          timestamp: expect.any(String),
        },
      ]);
      await http.post(`/rooms/${roomId}/messages`, keys.bob, { to: "all", text: "demo at 3" });
      for (const agentId of ["backend", "frontend"]) {
        const s = JSON.parse(
          (await http.tool(keys.plain, "get_my_summary", { roomId, agentId, limit: 1 })).text,
        );
        expect(s.messages.map((m: { text: string }) => m.text)).toEqual(["demo at 3"]);
      }
      expect(
        (await http.post(`/rooms/${roomId}/messages`, keys.bot, { to: "all", text: "hi" })).body,
      ).toEqual({
        error: "Only people can post messages",
      });
    });

    test("handoffs: a person offers on behalf of the room, one of 8 racing agents wins, cancel and decline", async () => {
      const roomId = await room();
      const task = JSON.parse(
        (await http.tool(keys.plain, "add_task", { roomId, title: "ship it", agentId: "old" })).text,
      );
      await http.tool(keys.plain, "update_task", { roomId, taskId: task.id, owner: "old", agentId: "old" });
      const offer = await http.post(`/rooms/${roomId}/handoffs`, keys.alice, {
        to: "any",
        taskIds: [task.id],
        note: "old is gone",
      });
      expect(offer).toMatchObject({
        status: 201,
        body: { id: "hof-1", from: "human:alice", offeredBy: "human:alice", owners: { [task.id]: "old" } },
      });
      const racing = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          http.tool(keys.plain, "accept_handoff", { roomId, handoffId: "hof-1", agentId: `w${i}` }),
        ),
      );
      const winners = racing.filter((r) => !r.isError);
      expect(winners).toHaveLength(1);
      const winner = JSON.parse(winners[0]?.text ?? "{}").closedBy;
      for (const r of racing.filter((r) => r.isError))
        expect(r.text).toBe(`Error: Handoff hof-1 was accepted by ${winner}`);
      expect(
        JSON.parse((await http.tool(keys.plain, "get_task", { roomId, taskId: task.id })).text).owner,
      ).toBe(winner);

      const mine = await http.post(`/rooms/${roomId}/handoffs`, keys.bot, { to: "helper", note: "docs" });
      expect(mine.body).toMatchObject({ from: "bot", offeredBy: "bot" });
      expect(
        await http.post(`/rooms/${roomId}/handoffs/${mine.body.id}`, keys.alice, { action: "cancel" }),
      ).toMatchObject({
        status: 403,
        body: { error: `Only the offerer (bot) can cancel handoff ${mine.body.id}` },
      });
      expect(
        (await http.post(`/rooms/${roomId}/handoffs/${mine.body.id}`, keys.bot, { action: "cancel" })).body,
      ).toMatchObject({
        status: "cancelled",
        closedBy: "bot",
      });
      const third = JSON.parse(
        (await http.tool(keys.bot, "offer_handoff", { roomId, to: "helper", note: "tests" })).text,
      );
      const declined = JSON.parse(
        (
          await http.tool(keys.plain, "decline_handoff", {
            roomId,
            handoffId: third.id,
            agentId: "helper",
            reason: "no",
          })
        ).text,
      );
      expect(declined).toMatchObject({ status: "declined", closedBy: "helper", reason: "no" });
      const statuses = (await http.get(`/rooms/${roomId}/handoffs`, keys.bot)).body.handoffs.map(
        (h: { status: string }) => h.status,
      );
      expect(statuses).toEqual(["accepted", "cancelled", "declined"]);
    });

    test("forks: a person forks at a seq and nobody drives the fork until they take the wheel; the fork shows where it came from; invites cannot fork", async () => {
      const roomId = await room();
      await http.tool(keys.plain, "add_task", { roomId, title: "a" });
      await http.tool(keys.plain, "add_task", { roomId, title: "b" });
      const res = await http.post(`/rooms/${roomId}/fork`, keys.alice, {
        newRoomId: `${roomId}-fork`,
        atSeq: 1,
      });
      expect(res).toMatchObject({
        status: 201,
        body: { roomId: `${roomId}-fork`, forkedFrom: { roomId, seq: 1 } },
      });
      const fork = `${roomId}-fork`;
      expect((await http.get(`/rooms/${fork}/driver`, keys.bot)).body).toMatchObject({
        holder: null,
        epoch: 0,
      });
      const plan = JSON.parse((await http.tool(keys.plain, "read_plan", { roomId: fork })).text);
      expect(plan.tasks.map((t: { title: string }) => t.title)).toEqual(["a"]);
      const info = JSON.parse((await http.tool(keys.bot, "get_room_info", { roomId: fork })).text);
      expect(info).toMatchObject({ forkedFrom: { roomId, seq: 1 }, taskCount: 1, eventCount: 2 });
      expect((await http.get(`/room/${fork}`)).body.forkedFrom).toEqual({ roomId, seq: 1 });
      const events = JSON.parse(
        (await http.tool(keys.plain, "read_events", { roomId: fork, limit: 10 })).text,
      );
      expect(events[0]).toMatchObject({
        seq: 2,
        type: "room_forked",
        from: "human:alice",
        payload: { from: { roomId, seq: 1 } },
      });
      // The person who forked takes the fork's wheel, as anyone allowed to drive would.
      const take = await http.post(`/rooms/${fork}/driver`, keys.alice, { action: "take" });
      expect([take.status, take.body.holder, take.body.epoch]).toEqual([200, "human:alice", 1]);
      // An unbound agent key forks too (it is a team key). A key bound to an agent cannot
      // make rooms, here as on POST /admin/rooms.
      const byAgent = await http.post(`/rooms/${roomId}/fork`, keys.plain, {});
      expect(byAgent.status).toBe(201);
      expect((await http.get(`/rooms/${byAgent.body.roomId}/driver`, keys.bot)).body.holder).toBeNull();
      expect(await http.post(`/rooms/${roomId}/fork`, keys.bot, {})).toMatchObject({
        status: 403,
        body: { error: "Keys bound to an agent cannot fork a room: use a team key or a person's key" },
      });
      const inv = await invite(roomId, { kind: "human", humanId: "dana" });
      expect(await http.post(`/rooms/${roomId}/fork`, inv, {})).toMatchObject({
        status: 403,
        body: { error: "Invites cannot fork a room: use a team key" },
      });
    });

    test("a person's message cannot be deleted by an agent key (it would silence the person)", async () => {
      const roomId = await room();
      const sent = (
        await http.post(`/rooms/${roomId}/messages`, keys.alice, { to: "bot", text: "do not deploy" })
      ).body;
      const eventId = sent.event?.id ?? sent.id ?? `evt-${sent.seq ?? sent.event?.seq}`;
      const res = await http.tool(keys.plain, "delete_event", { roomId, eventId, agentId: "mallory" });
      expect(res.text).toBe(
        `Error: Event ${eventId} was sent by human:alice; only that person can delete it`,
      );
      const bridged = await http.post(`/rooms/${roomId}/bridge`, keys.bot, { hook: "Stop" });
      expect(JSON.stringify(bridged.body)).toContain("do not deploy");
    });

    test("the bridge speaks for agents only: a person's key cannot take an agent's waiting messages", async () => {
      const roomId = await room();
      await http.post(`/rooms/${roomId}/messages`, keys.alice, { to: "bot", text: "for the bot" });
      expect(
        await http.post(`/rooms/${roomId}/bridge`, keys.bob, { hook: "Stop", agentId: "bot" }),
      ).toMatchObject({
        status: 403,
        body: { error: "The bridge speaks for an agent: use the agent's key, not a person's" },
      });
      // The message still waits for the bot.
      const bridged = await http.post(`/rooms/${roomId}/bridge`, keys.bot, { hook: "Stop" });
      expect(bridged.status).toBe(200);
      expect(JSON.stringify(bridged.body)).toContain("for the bot");
    });

    test("verdicts are advice: kept, listed newest first, an ordinary event, nothing else changes", async () => {
      const roomId = await room();
      const before = await roomState(http, OPERATOR.secret, roomId);
      const v = JSON.parse(
        (
          await http.tool(keys.bot, "record_verdict", {
            roomId,
            verdict: "fail",
            summary: "no tests",
            ref: "https://example.com/pr/9",
          })
        ).text,
      );
      expect(v).toMatchObject({
        id: "vrd-1",
        verdict: "fail",
        by: "bot",
        ref: "https://example.com/pr/9",
        details: "",
      });
      expect((await http.get(`/rooms/${roomId}/verdicts`, keys.alice)).body).toEqual({ verdicts: [v] });
      const events = JSON.parse((await http.tool(keys.plain, "read_events", { roomId, limit: 10 })).text);
      expect(events.map((e: { type: string }) => e.type)).toEqual(["verdict_recorded"]);
      const after = JSON.parse(await roomState(http, OPERATOR.secret, roomId));
      const then = JSON.parse(before);
      expect([after[0], after[1], after[2], after[5]]).toEqual([then[0], then[1], then[2], then[5]]);
      const bad = await http.tool(keys.bot, "record_verdict", {
        roomId,
        verdict: "fail",
        summary: "x",
        ref: "javascript:alert(1)",
      });
      expect(bad.text).toMatch(/^Error: Invalid arguments: ref: must be an http\(s\) URL/);
    });

    test("bad input on every people route: a clear 400 naming the field, nothing changed", async () => {
      const roomId = await room();
      await http.tool(keys.bot, "request_approval", { roomId, action: "x" });
      await http.post(`/rooms/${roomId}/driver`, keys.alice, { action: "take" });
      const before = await roomState(http, OPERATOR.secret, roomId);
      const cases: [string, unknown, RegExp][] = [
        ["messages", { to: "bot" }, /^Invalid arguments: text: required/],
        ["messages", { to: "bot", text: "" }, /^Invalid arguments: text:/],
        ["messages", { to: "bot", text: "x".repeat(8001) }, /^Invalid arguments: text:/],
        ["messages", { to: "human:bob", text: "hi" }, /^Invalid arguments: to: must not start with "human:"/],
        [
          "messages",
          { to: "bot", text: "hi", extra: 1 },
          /Unrecognized key "extra" — valid arguments: to, text/,
        ],
        ["messages", { to: "bot", txt: "hi" }, /Unrecognized key "txt" — did you mean "text"\?/],
        ["messages", "{not json", /^Invalid JSON body$/],
        ["messages", { to: "bot", text: "ok\ud800" }, /^Invalid arguments: text: contains invalid Unicode/],
        ["driver", { action: "steal" }, /^Invalid arguments: action:/],
        ["driver", { action: "release" }, /^Invalid arguments: epoch:/],
        ["steer", { epoch: "1", to: "bot", text: "x" }, /^Invalid arguments: epoch:/],
        ["steer", { epoch: 1, to: "all", text: "x" }, /^Invalid arguments: to: must name one agent/],
        ["interrupt", { epoch: 1, to: "bot" }, /^Invalid arguments: reason: required/],
        ["approvals/apr-1", { decision: "maybe" }, /^Invalid arguments: decision:/],
        ["handoffs", { to: "bot" }, /^Invalid arguments: note: required/],
        ["handoffs", { to: "bot", note: "n", taskIds: "task-1" }, /^Invalid arguments: taskIds:/],
        ["handoffs/hof-1", { action: "accept" }, /^Invalid arguments: action:/],
        ["fork", { atSeq: -1 }, /^Invalid arguments: atSeq:/],
        ["fork", { atSeq: 99 }, /^Invalid arguments: atSeq: 99 is past the room's last event/],
        ["fork", { newRoomId: "Bad Id" }, /^Invalid arguments: newRoomId:/],
        ["bridge", { hook: "Sometimes" }, /^Invalid arguments: hook:/],
        ["bridge", { hook: "Stop", agentId: "a", step: { tool: "x" } }, /^Invalid arguments: step\./],
      ];
      for (const [path, body, error] of cases) {
        // The bridge is an agent's route (a person's key gets 403 before the body is read).
        const res = await http.post(
          `/rooms/${roomId}/${path}`,
          path === "bridge" ? keys.plain : keys.alice,
          body,
        );
        expect({ path, status: res.status }).toEqual({ path, status: 400 });
        expect(res.body.error, path).toMatch(error);
      }
      expect(await roomState(http, OPERATOR.secret, roomId)).toBe(before);
      // Unknown records are not found; another team's room and a foreign invite read as missing.
      expect(
        (await http.post(`/rooms/${roomId}/approvals/apr-9`, keys.alice, { decision: "approve" })).body,
      ).toEqual({
        error: "Approval not found: apr-9",
      });
      expect((await http.get(`/rooms/${roomId}/driver`, TEAM_A.secret)).status).toBe(404);
      const elsewhere = await room();
      const foreign = await invite(elsewhere, { kind: "human", humanId: "dana" });
      expect((await http.post(`/rooms/${roomId}/messages`, foreign, { to: "bot", text: "hi" })).status).toBe(
        404,
      );
      expect((await http.get("/rooms/NOT_A_ROOM/driver", keys.alice)).status).toBe(404);
      expect(await roomState(http, OPERATOR.secret, roomId)).toBe(before);
    });
  });
}
