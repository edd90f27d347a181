/**
 * The harness's pure parts: the collision curve p(N,K) (the AgentRoom paper's operating point: N = 2, K = 5 gives
 * 0.2), the Wilson interval, and the simulation kernel — one agent at a time, in virtual-time order whatever the
 * real delays, a parked agent woken by the step that makes its check true, or by its deadline.
 */
import { expect, test } from "bun:test";
import { collisionCurve, wilson } from "../../eval/harness/metrics.ts";
import { Sim } from "../../eval/harness/sim.ts";

test("p(N,K) = 1 − ∏(1 − k/K)", () => {
  expect(collisionCurve(1, 16)).toBe(0);
  expect(collisionCurve(2, 5)).toBeCloseTo(0.2, 10);
  expect(collisionCurve(3, 5)).toBeCloseTo(1 - (4 / 5) * (3 / 5), 10);
  expect(collisionCurve(17, 16)).toBe(1);
});

test("Wilson: the interval holds the rate, narrows with trials, stays in [0, 1]", () => {
  const [low, high] = wilson(30, 100);
  expect(low).toBeLessThan(0.3);
  expect(high).toBeGreaterThan(0.3);
  const [low2, high2] = wilson(300, 1000);
  expect(high2 - low2).toBeLessThan(high - low);
  expect(wilson(0, 5)[0]).toBe(0);
  expect(wilson(5, 5)[1]).toBe(1);
});

test("the kernel runs agents one at a time in virtual-time order, whatever the real delays", async () => {
  const sim = new Sim(1000);
  const log: string[] = [];
  const realDelay = (ms: number) => new Promise((r) => setTimeout(r, ms));
  for (const [name, think, delay] of [
    ["a", 30, 20],
    ["b", 10, 0],
    ["c", 20, 5],
  ] as const) {
    sim.spawn(async () => {
      await realDelay(delay);
      log.push(`${name} starts at ${sim.now()}`);
      await sim.sleep(think);
      await realDelay(delay);
      log.push(`${name} acts at ${sim.now()}`);
    });
  }
  await sim.run();
  expect(log).toEqual([
    "a starts at 1000",
    "b starts at 1000",
    "c starts at 1000",
    "b acts at 1010",
    "c acts at 1020",
    "a acts at 1030",
  ]);
});

test("a parked agent wakes at the step that makes its check true, else at its deadline", async () => {
  const sim = new Sim(0);
  let posted = false;
  const log: string[] = [];
  sim.spawn(async () => {
    log.push(`${await sim.park(60, async () => posted)} at ${sim.now()}`);
    log.push(`${await sim.park(60, async () => false)} at ${sim.now()}`);
  });
  sim.spawn(async () => {
    await sim.sleep(25);
    posted = true;
  });
  await sim.run();
  expect(log).toEqual(["woken at 25", "timeout at 85"]);
});

test("an agent's failure ends the run with it", async () => {
  const sim = new Sim(0);
  sim.spawn(async () => {
    await sim.sleep(5);
    throw new Error("refused");
  });
  sim.spawn(() => sim.sleep(50));
  await expect(sim.run()).rejects.toThrow("refused");
});
