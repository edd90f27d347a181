/** What the load's agents do: the producer/consumer handoff between a pair, and weighted random ops. */
import { type Actions, agentName, LOCK_RESOURCES, VAR_KEYS } from "./agent.ts";
import type { LockHolding } from "./ledger.ts";

/**
 * The handoff between a producer and its consumer: the producer takes `plan`, claims its task and
 * releases; publishes an API contract for the consumer; the consumer finds it in its events and sends a
 * change_request back; the producer revises the contract and replies to the request's event.
 */
export async function handoff(p: Actions, c: Actions): Promise<void> {
  const added = await p.addTask(`${p.agent}: build the orders API`);
  let plan: LockHolding | undefined;
  for (let attempt = 0; attempt < 60 && !plan; attempt++) {
    plan = await p.acquire("plan", 60);
    if (!plan) await Bun.sleep(2 + Math.floor(p.rand() * 10));
  }
  if (added.outcome === "ok") await p.updateTask(added.value.id, { owner: p.agent, status: "in_progress" });
  if (plan) await p.release(plan);
  const contract = await p.writeContext({
    type: "api_contract",
    summary: `Orders API by ${p.agent}`,
    consuming_agents: [c.agent],
    payload: {
      service: "orders",
      version: "1.0.0",
      endpoints: [
        {
          method: "GET",
          path: "/orders",
          response: { items: "Order[]" },
          auth_required: true,
          description: "list",
        },
      ],
    },
  });
  if (contract.outcome !== "ok") return;
  const contractId: string = contract.value.id;
  await c.awaitContextEvent(contractId);
  const request = await c.writeContext({
    type: "change_request",
    summary: `${c.agent} needs pagination on /orders`,
    consuming_agents: [p.agent],
    payload: {
      requested_by: c.agent,
      target_agent: p.agent,
      description: "add ?cursor= to GET /orders",
      urgency: "medium",
    },
  });
  await p.updateContext(contractId, `Orders API by ${p.agent}, paginated`);
  if (request.outcome !== "ok") return;
  const asked = await p.awaitContextEvent(request.value.id);
  if (!asked) return;
  const reply = await p.post("reply_to_event", {
    replyToId: asked.id,
    type: "change_request_done",
    to: c.agent,
  });
  if (reply.outcome === "ok") p.ledger.handoffsCompleted++;
}

/** One random op, chosen by weight with the agent's PRNG. */
export async function randomOp(a: Actions, agents: number): Promise<void> {
  const roll = a.rand() * 100;
  if (roll < 14) {
    await a.addTask(`${a.agent} task ${Math.floor(a.rand() * 1e6)}`);
  } else if (roll < 34) {
    const pool = a.own.length > 0 && a.rand() < 0.4 ? a.own : a.shared.tasks;
    const status = a.rand() < 0.3 ? { status: a.pick(["pending", "in_progress", "blocked"]) } : {};
    await a.updateTask(a.pick(pool), {
      note: `${a.agent} progress ${Math.floor(a.rand() * 1e6)}`,
      ...status,
    });
  } else if (roll < 48) {
    const to = a.rand() < 0.5 ? "all" : agentName(Math.floor(a.rand() * agents));
    await a.post("post_event", { type: "status", to });
  } else if (roll < 63) {
    await a.consume();
  } else if (roll < 73) {
    await a.updateContext(a.pick(a.shared.contexts), `${a.agent} revised ${Math.floor(a.rand() * 1e6)}`);
  } else if (roll < 81) {
    const key = a.pick(VAR_KEYS);
    const value = `${a.agent}:${Math.floor(a.rand() * 1e6)}`;
    await a.setVar(key, value);
  } else if (roll < 94) {
    const holding = await a.acquire(a.pick(LOCK_RESOURCES), 60);
    if (holding) {
      await Bun.sleep(Math.floor(a.rand() * 4));
      await a.release(holding);
    }
  } else {
    if (a.rand() < 0.5) await a.call("read_plan", {});
    else await a.call("get_unblocked_tasks", { agentId: a.agent });
  }
}
