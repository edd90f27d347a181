/**
 * The simulation kernel: a virtual clock and a scheduler running one agent step at a time.
 *
 * Agents are async functions that call real roomd tools over HTTP and pass time only through `sleep` (thinking,
 * working) and `park` (waiting for an event). The scheduler resumes exactly one of them at a time, at the earliest
 * virtual time (ties broken by the order they were scheduled), and resumes the next only when the running one
 * sleeps, parks or ends — so whatever the real latencies, every run of one seed makes the same calls in the same
 * order at the same virtual times, and roomd (whose clock is `now()`) answers them identically.
 *
 * A parked agent is woken when its `ready` check (run after every step, against the store) says something
 * arrived for it, at the virtual time of the step that made it arrive; else at its deadline.
 */

interface Timer {
  at: number;
  order: number;
  resume: () => void;
}

interface Parked {
  ready: () => Promise<boolean>;
  wake: (how: "woken" | "timeout") => void;
  done: boolean;
}

export class Sim {
  private clock: number;
  private order = 0;
  private readonly timers: Timer[] = [];
  private readonly parked = new Set<Parked>();
  private yielded: (() => void) | undefined;
  private failure: unknown;
  private live = 0;

  constructor(start: number) {
    this.clock = start;
  }

  /** The virtual time (ms since the epoch): roomd's clock. */
  readonly now = (): number => this.clock;

  private schedule(at: number, resume: () => void): void {
    const timer = { at, order: this.order++, resume };
    // Sorted insert (stable by order): the queues here hold at most a few dozen timers.
    let i = this.timers.length;
    while (i > 0 && (this.timers[i - 1] as Timer).at > at) i--;
    this.timers.splice(i, 0, timer);
  }

  private yieldTurn(): void {
    const next = this.yielded;
    this.yielded = undefined;
    next?.();
  }

  /** Starts an agent at the current virtual time (after those already due). */
  spawn(body: () => Promise<void>, delayMs = 0): void {
    this.live++;
    this.schedule(this.clock + delayMs, () => {
      body().then(
        () => {
          this.live--;
          this.yieldTurn();
        },
        (error: unknown) => {
          this.live--;
          this.failure ??= error;
          this.yieldTurn();
        },
      );
    });
  }

  /** Lets `ms` of virtual time pass for the calling agent. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.schedule(this.clock + Math.max(0, Math.round(ms)), resolve);
      this.yieldTurn();
    });
  }

  /** Waits until `ready()` holds (checked after every step) or `timeoutMs` of virtual time pass. */
  park(timeoutMs: number, ready: () => Promise<boolean>): Promise<"woken" | "timeout"> {
    return new Promise((resolve) => {
      const entry: Parked = {
        ready,
        done: false,
        wake: (how) => {
          if (entry.done) return;
          entry.done = true;
          this.parked.delete(entry);
          this.schedule(this.clock, () => resolve(how));
        },
      };
      this.parked.add(entry);
      this.schedule(this.clock + Math.max(0, Math.round(timeoutMs)), () => {
        if (entry.done) return this.yieldTurn();
        entry.done = true;
        this.parked.delete(entry);
        resolve("timeout");
      });
      this.yieldTurn();
    });
  }

  /** Runs every agent to its end; rejects with the first agent's failure. */
  async run(): Promise<void> {
    // Agents parked from the start (nothing ran yet) are checked once too.
    await this.checkParked();
    while (this.timers.length > 0) {
      if (this.failure !== undefined) throw this.failure;
      const timer = this.timers.shift() as Timer;
      this.clock = Math.max(this.clock, timer.at);
      const turn = new Promise<void>((resolve) => {
        this.yielded = resolve;
      });
      timer.resume();
      await turn;
      await this.checkParked();
    }
    if (this.failure !== undefined) throw this.failure;
    if (this.live > 0) throw new Error(`simulation stalled with ${this.live} agents unfinished`);
  }

  private async checkParked(): Promise<void> {
    for (const entry of [...this.parked]) {
      if (!entry.done && (await entry.ready())) entry.wake("woken");
    }
  }
}
