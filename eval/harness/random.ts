/**
 * The run's randomness: mulberry32 seeded from `--seed` and the scenario's name, so one seed replays every draw
 * and adding a scenario changes no other scenario's draws.
 */

export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  between(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  /** A derived stream (per agent, per trial) that does not move this one's sequence but by one draw. */
  fork(label: string): Random;
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

export function random(seed: number, label = ""): Random {
  let a = (seed ^ hash(label)) | 0;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const self: Random = {
    next,
    between: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => {
      const item = items[Math.floor(next() * items.length)];
      if (item === undefined) throw new Error("pick from an empty list");
      return item;
    },
    fork: (label2) => random(Math.floor(next() * 2 ** 31), label2),
  };
  return self;
}
