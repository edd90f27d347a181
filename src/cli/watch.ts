/**
 * `roomctl watch <room>`: a live tail of the room's log over GET /rooms/:roomId/stream. It remembers the seq of the
 * last event it printed and, when the connection drops (network, roomd restarted, shutdown), reconnects with
 * `Last-Event-ID: <seq>` after a growing, jittered delay: the server resumes exactly after that seq, so nothing is
 * lost or printed twice, whichever roomd process answers. Without --after it first reads the log's head (one
 * read_events call), so even a drop before the first event resumes from where watching began.
 */
import { AGENT_ID } from "../protocol/ids.ts";
import type { RoomEvent } from "../protocol/records.ts";
import { describeEvent, EVENT_KINDS, type EventKind, eventKind, lineText } from "../protocol/timeline.ts";
import { type Api, answerFailure, createApi, networkReason, seg, USER_AGENT } from "./api.ts";
import { resolveCredentials } from "./credentials.ts";
import { CliError, type Command, int, list, noMore, roomArg, str, UsageError } from "./kit.ts";
import { clean, cut, paint } from "./output.ts";
import { readSse } from "./sse.ts";

/** First reconnect delay; it doubles per failed attempt up to MAX_DELAY_MS, ±20% at random. */
const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 10_000;
/** roomd sends a keep-alive after 15 s of quiet: nothing at all for this long means the connection is dead. */
const IDLE_MS = 45_000;
/** A connection that lasted this long (or carried an event) counts as good: the next delay starts over. */
const GOOD_MS = 5_000;
/** Longest sentence printed; `--json` (or the room page) has the whole payload. */
const LINE_MAX = 240;

const delayFor = (attempt: number) =>
  Math.round(Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** attempt) * (0.8 + Math.random() * 0.4));

const note = (text: string) => process.stderr.write(`roomctl watch: ${text}\n`);
const clock = (iso: string) => {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return clean(iso).slice(0, 8);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, "0")).join(":");
};

interface Options {
  roomId: string;
  agent?: string;
  types?: string[];
  kinds?: EventKind[];
  json: boolean;
  signals: boolean;
}

/** The seq of the newest event (0 for an empty log). */
async function headOf(api: Api, roomId: string): Promise<number> {
  const newest = await api.tool<RoomEvent[]>("read_events", { roomId, limit: 1 });
  return newest[0]?.seq ?? 0;
}

function printEvent(event: RoomEvent, options: Options): void {
  if (options.kinds && !options.kinds.includes(eventKind(event.type))) return;
  if (options.json) {
    process.stdout.write(`${JSON.stringify(event)}\n`);
    return;
  }
  // The room page's own sentence (protocol/timeline.ts), cleaned of control characters for the terminal.
  const sentence = cut(clean(lineText(describeEvent(event).parts)), LINE_MAX);
  process.stdout.write(
    `${paint("dim", clock(event.timestamp))}  ${paint("dim", `#${event.seq}`)}  ${paint("cyan", clean(event.type))}  ${sentence}\n`,
  );
}

function printSignal(kind: string, options: Options): void {
  const now = new Date().toISOString();
  if (options.json) {
    if (options.signals) process.stdout.write(`${JSON.stringify({ signal: kind, time: now })}\n`);
    return;
  }
  process.stdout.write(
    `${paint("dim", clock(now))}  ${paint("dim", "signal")}  ${paint("magenta", clean(kind))}\n`,
  );
}

type Outcome = { good: boolean; reason: string; retryAfterMs?: number };

export const watch: Command = {
  name: "watch",
  summary: "live tail of a room's events; resumes after a dropped connection",
  help: `usage: roomctl watch <room> [--after N] [--agent X] [--types a,b] [--json] [--signals]

Prints each event of the room's log as it is appended, one line each:
  time  #seq  type  what happened, in the room page's words
  e.g. 12:04:31  #18  steer  alice steered frontend: use the v2 endpoint
and signals (state outside the log changed: presence, locks, vars, claims, driver).
Runs until interrupted (Ctrl-C). When the connection drops or roomd restarts it
reconnects (after 0.25 s, doubling up to 10 s) and resumes exactly after the last
event shown: no event is lost or shown twice.

options:
  --after N     first replay the events after seq N (0: the whole log), then go live;
                without it, start with the next new event
  --agent X     only events addressed to X or to all
  --types a,b   only events of these types
  --kind k,…    only events of these kinds: work (plan, context, files, handoffs,
                reviews), talk (messages, agents' own types), people (the wheel,
                steers, approvals), system (steps, leaving, expiries, forks)
  --json        one event per line as JSON (NDJSON), exactly as the stream sends it;
                signals are left out unless --signals
  --signals     with --json, also print signals as {"signal": kind, "time": iso}

examples:
  roomctl watch my-project
  roomctl watch my-project --after 0 --json | jq -c 'select(.type == "task_updated")'`,
  options: {
    after: { type: "string" },
    agent: { type: "string" },
    types: { type: "string", multiple: true },
    kind: { type: "string", multiple: true },
    json: { type: "boolean" },
    signals: { type: "boolean" },
  },
  async run({ values, positionals }) {
    const roomId = roomArg(positionals);
    noMore(positionals, 1);
    const after = int(values, "after", 0);
    const agent = str(values, "agent");
    if (agent !== undefined && !AGENT_ID.test(agent))
      throw new UsageError("--agent must be 1-64 chars of A-Z, a-z, 0-9, _ . : -");
    const types = list(values, "types");
    const kinds = list(values, "kind");
    const unknown = kinds?.find((k) => !(EVENT_KINDS as readonly string[]).includes(k));
    if (unknown !== undefined)
      throw new UsageError(`--kind must be among ${EVENT_KINDS.join(", ")} (got ${unknown})`);
    const options: Options = {
      roomId,
      ...(agent !== undefined ? { agent } : {}),
      ...(types && types.length > 0 ? { types } : {}),
      ...(kinds && kinds.length > 0 ? { kinds: kinds as EventKind[] } : {}),
      json: values.json === true,
      signals: values.signals === true,
    };
    const credentials = resolveCredentials();
    const api = createApi(credentials);
    let last = after ?? (await headOf(api, roomId));
    let attempt = 0;
    let dropped = false;
    let watching = false;

    const query = new URLSearchParams();
    if (options.agent) query.set("agentId", options.agent);
    if (options.types) query.set("types", options.types.join(","));

    const once = async (): Promise<Outcome> => {
      const abort = new AbortController();
      let idle: ReturnType<typeof setTimeout> | undefined;
      const touch = () => {
        clearTimeout(idle);
        idle = setTimeout(() => abort.abort(), IDLE_MS);
      };
      query.set("after", String(last));
      const started = Date.now();
      let carried = false;
      try {
        touch();
        const res = await fetch(`${credentials.url}/rooms/${seg(roomId)}/stream?${query}`, {
          headers: {
            Authorization: `Bearer ${credentials.key}`,
            Accept: "text/event-stream",
            "Last-Event-ID": String(last),
            "User-Agent": USER_AGENT,
          },
          signal: abort.signal,
        });
        if (res.status === 429 || res.status >= 500 || !res.body) {
          await res.body?.cancel();
          const retry = Number(res.headers.get("retry-after"));
          return {
            good: false,
            reason: `roomd answered ${res.status}`,
            ...(Number.isFinite(retry) && retry > 0 ? { retryAfterMs: retry * 1000 } : {}),
          };
        }
        if (!res.ok) throw await answerFailure(res);
        if (dropped) note(`reconnected; resuming after #${last}`);
        else if (!watching) note(`watching ${roomId} after #${last} (Ctrl-C to stop)`);
        watching = true;
        dropped = false;
        for await (const message of readSse(res.body, touch)) {
          if (message.id !== undefined) {
            const event = JSON.parse(message.data) as RoomEvent;
            if (event.seq <= last) continue;
            last = event.seq;
            carried = true;
            printEvent(event, options);
          } else if (message.event === "signal") {
            printSignal((JSON.parse(message.data) as { kind: string }).kind, options);
          }
        }
        return { good: carried || Date.now() - started >= GOOD_MS, reason: "the stream ended" };
      } catch (error) {
        if (error instanceof CliError) throw error;
        const reason = abort.signal.aborted
          ? `nothing received for ${IDLE_MS / 1000} s`
          : networkReason(error);
        return { good: carried || Date.now() - started >= GOOD_MS, reason };
      } finally {
        clearTimeout(idle);
      }
    };

    for (;;) {
      const outcome = await once();
      if (outcome.good) attempt = 0;
      const delay = outcome.retryAfterMs ?? delayFor(attempt++);
      if (!dropped) note(`${outcome.reason}; reconnecting (resuming after #${last})`);
      dropped = true;
      await Bun.sleep(delay);
    }
  },
};
