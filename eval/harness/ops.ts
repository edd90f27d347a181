/**
 * The operations scripted agents perform, mapped onto the tools of their profile. `full` has a tool for each;
 * `compact` maps the canonical workflow onto its tools; `agentroom` maps claims, reads and broadcasts onto its
 * five. What a profile does not list is called through the full tool of the same operation (roomd keeps every tool
 * callable whatever the list): eval/README.md tables which. Results are normalised to one shape per operation.
 */
import type { CallResult, Session } from "./session.ts";

export interface EventLike {
  seq: number;
  type: string;
  from: string;
  to: string;
  payload: Record<string, unknown>;
}

export interface TaskLike {
  id: string;
  title: string;
  status: string;
  owner: string | null;
  version: number;
  description: string;
}

interface Batch {
  events?: EventLike[];
  remaining?: number;
  timedOut?: boolean;
}

export class Ops {
  constructor(readonly s: Session) {}

  private get compact() {
    return this.s.profile === "compact";
  }
  private get agentroom() {
    return this.s.profile === "agentroom";
  }
  private room(args: Record<string, unknown> = {}) {
    return { roomId: this.s.roomId, ...args };
  }

  /** Session start: summary (tasks, unread events, context count, presence). Returns the events it delivered. */
  async summary(): Promise<EventLike[]> {
    if (this.agentroom) {
      await this.s.must("room_state", {});
      return this.unread();
    }
    const r = await this.s.must<{ unreadEvents?: Batch }>(
      this.compact ? "summary" : "get_my_summary",
      this.room(),
    );
    return r.unreadEvents?.events ?? [];
  }

  async unblocked(): Promise<TaskLike[]> {
    if (this.compact) return this.s.must<TaskLike[]>("plan", this.room({ ready: true }));
    return this.s.must<TaskLike[]>("get_unblocked_tasks", this.room());
  }

  async readPlan(): Promise<TaskLike[]> {
    const name = this.compact ? "plan" : "read_plan";
    return (await this.s.must<{ tasks: TaskLike[] }>(name, this.room())).tasks;
  }

  async readTask(taskId: string): Promise<TaskLike> {
    return (await this.readPlan()).find((t) => t.id === taskId) as TaskLike;
  }

  claim(taskId: string): Promise<CallResult> {
    return this.s.call(this.compact ? "claim" : "claim_task", this.room({ taskId }));
  }

  /** update_task: status, note, expectedVersion; description (full tool) when given. */
  update(taskId: string, change: Record<string, unknown>): Promise<CallResult> {
    const simple = Object.keys(change).every((k) => ["status", "note", "expectedVersion"].includes(k));
    return this.s.call(this.compact && simple ? "update" : "update_task", this.room({ taskId, ...change }));
  }

  addTask(title: string, dependsOn: string[] = []): Promise<TaskLike> {
    return this.s.must<TaskLike>("add_task", this.room({ title, depends_on: dependsOn }));
  }

  writeContext(type: string, summary: string, payload: object, consuming_agents: string[]) {
    const name = this.compact ? "context_write" : "write_context";
    return this.s.must<{ id: string; version: string }>(
      name,
      this.room({ type, summary, payload, consuming_agents }),
    );
  }

  updateContext(id: string, summary: string, payload: object) {
    return this.s.must<{ id: string; version: string }>(
      "update_context",
      this.room({ id, summary, payload }),
    );
  }

  readContext(id: string) {
    const name = this.compact ? "context_read" : "read_context";
    return this.s.must<{ id: string; version: string; payload: Record<string, unknown> }>(
      name,
      this.room({ id }),
    );
  }

  /** An event to one agent or all; in agentroom a broadcast carrying the payload as its message. */
  async post(type: string, to: string, payload: Record<string, unknown>): Promise<void> {
    if (this.agentroom && to === "all") {
      await this.s.must("room_broadcast", { message: JSON.stringify({ type, ...payload }) });
      return;
    }
    await this.s.must(this.compact ? "post" : "post_event", this.room({ type, to, payload }));
  }

  /** The unread events (consumed), oldest first. */
  async unread(): Promise<EventLike[]> {
    if (this.agentroom) return (await this.s.must<Batch>("room_read", {})).events ?? [];
    if (this.compact)
      return (await this.s.must<Batch>("wait", this.room({ timeoutSeconds: 0 }))).events ?? [];
    return (await this.s.must<Batch>("get_unread_events", this.room())).events ?? [];
  }

  /**
   * wait_for_events, issued when it returns (see harness/sim.ts): `woken` with events waiting, else as a timed-out
   * wait (timeoutSeconds 0 answers exactly what a wait that ran out answers).
   */
  async wait(woken: boolean): Promise<EventLike[]> {
    if (this.agentroom) return (await this.s.must<Batch>("room_read", {})).events ?? [];
    const name = this.compact ? "wait" : "wait_for_events";
    return (await this.s.must<Batch>(name, this.room({ timeoutSeconds: woken ? 30 : 0 }))).events ?? [];
  }

  heartbeat(statusText: string): Promise<CallResult> {
    return this.s.call("heartbeat", this.room({ statusText }));
  }

  claimFiles(paths: string[]): Promise<CallResult> {
    if (this.compact) return this.s.call("files", this.room({ action: "claim", paths }));
    return this.s.call("claim_files", this.room({ paths }));
  }

  releaseFiles(paths: string[]): Promise<CallResult> {
    if (this.compact) return this.s.call("files", this.room({ action: "release", paths }));
    return this.s.call("release_files", this.room({ paths }));
  }

  acquireLock(resource: string): Promise<CallResult> {
    if (this.compact) return this.s.call("lock", this.room({ action: "acquire", resource }));
    return this.s.call("acquire_lock", this.room({ resource }));
  }

  releaseLock(resource: string): Promise<CallResult> {
    if (this.compact) return this.s.call("lock", this.room({ action: "release", resource }));
    return this.s.call("release_lock", this.room({ resource }));
  }

  requestApproval(action: string) {
    const name = this.compact ? "ask" : "request_approval";
    return this.s.must<{ id: string; status: string }>(name, this.room({ action }));
  }

  /** The whole log, oldest first, paging back with read_events (a transcript replay). */
  async transcript(): Promise<EventLike[]> {
    const all: EventLike[] = [];
    let before: number | undefined;
    for (;;) {
      const page = await this.s.must<EventLike[]>(
        "read_events",
        this.room({ limit: 100, ...(before ? { before } : {}) }),
      );
      all.unshift(...[...page].reverse());
      if (page.length < 100) return all;
      before = (page.at(-1) as EventLike).seq;
    }
  }

  leave(): Promise<CallResult> {
    return this.s.call(this.compact ? "leave" : "leave_room", this.room());
  }
}
