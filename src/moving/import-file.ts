/**
 * Reading an export for import: the NDJSON is read as it streams in — bounded in bytes overall and per line —
 * every line is checked (JSON, well-formed text, shape with the live rules' sizes and numbers, the hash chain, seqs
 * without gaps, the end line's counts and hashes; no more records of a kind than a live room holds; context payloads
 * by their type's schema; records that contradict themselves, the plan's rules and references: import-rules.ts),
 * the state lines are gathered into a snapshot and the log is spooled to a temporary file. Nothing is written to
 * any store until the whole file has passed, so a bad file creates nothing; the store then reads the log back from
 * the spool (RoomImport.events), synchronously, so SQLite can write the room in one transaction.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { z } from "zod";
import { PRIVATE_FILE_MODE } from "../files.ts";
import { RoomError } from "../protocol/errors.ts";
import {
  chainSeed,
  type EndLine,
  type EventLine,
  type ExportHeader,
  endLineSchema,
  eventLineSchema,
  headerSchema,
  LINES_PER_ROOM,
  MAX_LINE_BYTES,
  nextHash,
  type StateLine,
  stateLineSchema,
} from "../protocol/export-format.ts";
import { validatePayload } from "../protocol/payloads.ts";
import type { ContextType } from "../protocol/records.ts";
import { pieceOf, VALUE_PIECES, type ValuePieces, valueErrors, valueText } from "../protocol/room-values.ts";
import { describeIssues, findIllFormed } from "../protocol/validation.ts";
import type { LoggedEvent, RoomImport, RoomSnapshot } from "../store/move-types.ts";
import {
  createLogRules,
  eventActs,
  namedIdProblem,
  snapshotProblem,
  stateActs,
  stateProblem,
} from "./import-rules.ts";

/** Why a file was refused: 400 (naming the first bad line) or 413 (too large). Nothing was created. */
export class ImportRefused extends Error {
  override readonly name = "ImportRefused";
  constructor(
    readonly status: 400 | 413,
    message: string,
  ) {
    super(message);
  }
}

const bad = (line: number, message: string) => new ImportRefused(400, `line ${line}: ${message}`);

export interface VerifiedImport extends RoomImport {
  header: ExportHeader;
  end: EndLine;
  /**
   * True when records of the file are people's acts (import-rules.ts: a decided approval, a message, a steer, the
   * wheel, anything `human:<id>` sent or holds): only a person may import those, or an agent's key could forge them.
   */
  namesPeople: boolean;
  /** Removes the spooled log; call once the store has read it (or gave up). */
  close(): void;
}

/**
 * The line's value once its shape is checked: the value itself, not the schema's output, because a schema rebuilds
 * objects in its own key order and records keep theirs (the schemas transform nothing).
 */
function parseLine<S extends z.ZodType>(schema: S, value: unknown, n: number): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw bad(n, describeIssues(parsed.error.issues));
  return value as z.output<S>;
}

const serial = (id: string) => Number(id.slice(id.lastIndexOf("-") + 1));

/** A context payload checked by its type's schema, as write_context and update_context check it. */
function checkPayload(type: ContextType, payload: unknown, n: number): void {
  try {
    validatePayload(type, payload);
  } catch (error) {
    if (error instanceof RoomError) throw bad(n, error.message);
    throw error;
  }
}

/**
 * Collects state lines into a snapshot, checking what the chain cannot: duplicates, counters, and once every line
 * is in, the plan's rules and the references between records (import-rules.ts).
 */
function createGatherer(header: ExportHeader, pieces: ValuePieces) {
  let room: Extract<StateLine, { kind: "room" }> | undefined;
  const s: Omit<RoomSnapshot, "createdAt" | "plan" | "counters" | "driver"> = {
    forkedFrom: header.forkedFrom ?? null,
    head: header.head,
    trimmedBefore: header.trimmedBefore ?? null,
    tasks: [],
    contexts: [],
    vars: [],
    reviews: [],
    approvals: [],
    handoffs: [],
    verdicts: [],
    cursors: [],
    marks: [],
    fences: [],
    claims: [],
    values: [],
  };
  // Values held per kind, against each kind's maxKeys.
  const valueCount = new Map<string, number>();
  // Each record's line, by key ("task task-3"), so a problem found later names it.
  const seen = new Map<string, number>();
  const once = (key: string, n: number, what: string) => {
    if (seen.has(key)) throw bad(n, `${what} appears twice`);
    seen.set(key, n);
  };
  const versions = new Map<
    string,
    { line: number; list: RoomSnapshot["contexts"][number]["history"]; lines: number[] }
  >();
  const atMostHead = (seq: number | null, n: number, what: string) => {
    if (seq !== null && seq > header.head)
      throw bad(n, `${what} ${seq} is past the log's head (${header.head})`);
  };

  return {
    add(line: StateLine, n: number): void {
      switch (line.kind) {
        case "room":
          once("room", n, "the room line");
          room = line;
          return;
        case "task":
          once(`task ${line.task.id}`, n, `task ${line.task.id}`);
          s.tasks.push({ task: line.task, leaseMs: line.leaseMs ?? null });
          return;
        case "context_version": {
          const entry = versions.get(line.id) ?? { line: n, list: [], lines: [] };
          entry.list.push({ version: line.version, atSeq: line.atSeq });
          entry.lines.push(n);
          versions.set(line.id, entry);
          return;
        }
        case "context": {
          once(`context ${line.entry.id}`, n, `context entry ${line.entry.id}`);
          checkPayload(line.entry.type, line.entry.payload, n);
          const older = versions.get(line.entry.id);
          for (const [i, v] of (older?.list ?? []).entries())
            checkPayload(line.entry.type, v.version.payload, older?.lines[i] ?? n);
          const history = older?.list ?? [];
          versions.delete(line.entry.id);
          s.contexts.push({ entry: line.entry, atSeq: line.atSeq, changedSeq: line.changedSeq, history });
          return;
        }
        case "var":
          once(`var ${line.key}`, n, `variable ${line.key}`);
          s.vars.push({ key: line.key, value: line.value });
          return;
        case "review":
          once(`review ${line.review.id}`, n, `review ${line.review.id}`);
          s.reviews.push(line.review);
          return;
        case "approval":
          once(`approval ${line.approval.id}`, n, `approval ${line.approval.id}`);
          s.approvals.push(line.approval);
          return;
        case "handoff":
          once(`handoff ${line.handoff.id}`, n, `handoff ${line.handoff.id}`);
          s.handoffs.push(line.handoff);
          return;
        case "verdict":
          once(`verdict ${line.verdict.id}`, n, `verdict ${line.verdict.id}`);
          s.verdicts.push(line.verdict);
          return;
        case "cursor":
          once(`cursor ${line.agentId}`, n, `the cursor of ${line.agentId}`);
          atMostHead(line.seq, n, "cursor seq");
          s.cursors.push({ agentId: line.agentId, seq: line.seq, contextMark: line.contextMark });
          return;
        case "mark":
          once(`mark ${line.agentId} ${line.type}`, n, `the ${line.type} mark of ${line.agentId}`);
          atMostHead(line.seq, n, "mark seq");
          s.marks.push({ agentId: line.agentId, type: line.type, seq: line.seq });
          return;
        case "fence":
          once(`fence ${line.resource}`, n, `the fence of ${line.resource}`);
          s.fences.push({ resource: line.resource, fence: line.fence });
          return;
        case "claim": {
          once(`claim ${line.path}`, n, `the claim on ${line.path}`);
          const { kind: _kind, ...claim } = line;
          s.claims.push(claim);
          return;
        }
        case "value": {
          once(`value ${line.piece} ${line.key}`, n, `the ${line.piece} value ${JSON.stringify(line.key)}`);
          const decl = Object.hasOwn(pieces, line.piece) ? pieces[line.piece] : undefined;
          if (decl?.moved !== true) throw bad(n, `${line.piece} is not a kind of room value an import takes`);
          try {
            valueText(pieces, line.piece, line.key, line.value);
          } catch (error) {
            if (error instanceof RoomError) throw bad(n, error.message);
            throw error;
          }
          const held = (valueCount.get(line.piece) ?? 0) + 1;
          if (held > decl.maxKeys) throw bad(n, valueErrors.limit(line.piece, decl.maxKeys).message);
          valueCount.set(line.piece, held);
          s.values.push({ piece: line.piece, key: line.key, value: line.value });
          return;
        }
      }
    },
    /** The snapshot, once every state line is in; `n` names the line that ended the state part. */
    finish(n: number): RoomSnapshot {
      if (!room) throw bad(n, "the file has no room line before this one");
      for (const [id, { line }] of versions) throw bad(line, `a version of ${id}, which has no context line`);
      const maxTask = s.tasks.reduce((max, t) => Math.max(max, serial(t.task.id) || 0), 0);
      if (room.counters.tasks < maxTask)
        throw bad(n, `counters.tasks (${room.counters.tasks}) is below task-${maxTask}`);
      const maxCtx = s.contexts.reduce((max, c) => Math.max(max, serial(c.entry.id)), 0);
      if (room.counters.contexts < maxCtx)
        throw bad(n, `counters.contexts (${room.counters.contexts}) is below ctx-${maxCtx}`);
      const snapshot: RoomSnapshot = {
        ...s,
        createdAt: room.createdAt,
        plan: room.plan,
        counters: room.counters,
        driver: room.driver,
      };
      const problem = snapshotProblem(snapshot);
      if (problem) throw bad(seen.get(problem.key) ?? n, problem.message);
      return snapshot;
    },
  };
}

/** Lines of the spool file, read synchronously. */
function* spooled(path: string): Generator<LoggedEvent> {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(1024 * 1024);
    let rest = "";
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) break;
      rest += buffer.toString("utf8", 0, read);
      let newline = rest.indexOf("\n");
      while (newline >= 0) {
        yield JSON.parse(rest.slice(0, newline)) as LoggedEvent;
        rest = rest.slice(newline + 1);
        newline = rest.indexOf("\n");
      }
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads and verifies an export from `body`, refusing more than `maxBytes` in all; its small values are checked
 * against `pieces` (the kinds the store keeps). Resolves with the import to hand
 * to the store (its log spooled to a temporary file: call close()), or rejects with ImportRefused.
 */
export async function readExport(
  body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>,
  maxBytes: number,
  pieces: ValuePieces = VALUE_PIECES,
): Promise<VerifiedImport> {
  const dir = mkdtempSync(join(tmpdir(), "roomd-import-"));
  const spool = join(dir, "events.ndjson");
  const fd = openSync(spool, "w", PRIVATE_FILE_MODE);
  let closed = false;
  const close = () => {
    if (!closed) closeSync(fd);
    closed = true;
  };
  const cleanup = () => {
    close();
    rmSync(dir, { recursive: true, force: true });
  };
  const pending: string[] = [];
  let pendingBytes = 0;
  const flush = () => {
    if (pending.length === 0) return;
    writeSync(fd, pending.join(""));
    pending.length = 0;
    pendingBytes = 0;
  };

  let header: ExportHeader | undefined;
  let gatherer: ReturnType<typeof createGatherer> | undefined;
  let snapshot: RoomSnapshot | undefined;
  let end: EndLine | undefined;
  let hash = "";
  let stateHash = "";
  let nextSeq = 0;
  const counts: Record<string, number> = {};
  let namesPeople = false;
  const log = createLogRules();
  let n = 0;

  const take = (text: string) => {
    n++;
    if (text.trim() === "") {
      if (end) return;
      throw bad(n, "empty line");
    }
    if (end) throw bad(n, "nothing may follow the end line");
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw bad(n, `not JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    const ill = findIllFormed(value);
    if (ill) throw bad(n, `${ill.path}: contains invalid Unicode (a lone surrogate)`);
    if (!header) {
      header = parseLine(headerSchema, value, n);
      if (header.trimmedBefore !== undefined && header.trimmedBefore > header.head) {
        throw bad(n, `trimmedBefore (${header.trimmedBefore}) is past head (${header.head})`);
      }
      gatherer = createGatherer(header, pieces);
      hash = chainSeed(header);
      nextSeq = header.trimmedBefore ?? 1;
      return;
    }
    const kind = (value as { kind?: unknown } | null)?.kind;
    if (kind === "event" || kind === "end") {
      if (!snapshot) {
        snapshot = (gatherer as ReturnType<typeof createGatherer>).finish(n);
        stateHash = hash;
      }
      if (kind === "end") {
        end = parseLine(endLineSchema, value, n);
        return;
      }
      const line: EventLine = parseLine(eventLineSchema, value, n);
      const { hash: given, ...rest } = line;
      if (nextHash(hash, rest) !== given) {
        throw bad(
          n,
          "the hash does not continue the chain: this event, an event before it, or a state line was edited, removed or reordered",
        );
      }
      if (line.event.seq !== nextSeq)
        throw bad(n, `event seq ${line.event.seq} where ${nextSeq} was expected`);
      if (line.event.seq > header.head)
        throw bad(n, `event seq ${line.event.seq} is past head (${header.head})`);
      hash = given;
      nextSeq++;
      const problem = log.problem(line.event) ?? namedIdProblem(line.event, line.posted === true);
      if (problem) throw bad(n, problem);
      if (eventActs(line.event)) namesPeople = true;
      counts.event = (counts.event ?? 0) + 1;
      const logged: LoggedEvent = {
        event: line.event,
        posted: line.posted === true,
        deliveredAt: line.deliveredAt ?? {},
      };
      const json = `${JSON.stringify(logged)}\n`;
      pending.push(json);
      pendingBytes += json.length;
      if (pendingBytes > 1024 * 1024) flush();
      return;
    }
    if (snapshot) throw bad(n, "a state line after the log began");
    const line = parseLine(stateLineSchema, value, n);
    const most = LINES_PER_ROOM[line.kind];
    if (most && (counts[line.kind] ?? 0) >= most.max)
      throw bad(n, `a room holds at most ${most.max} ${most.what}; this is one more`);
    const problem = stateProblem(line);
    if (problem) throw bad(n, problem);
    (gatherer as ReturnType<typeof createGatherer>).add(line, n);
    if (stateActs(line) || (line.kind === "value" && pieceOf(pieces, line.piece).people === true))
      namesPeople = true;
    counts[line.kind] = (counts[line.kind] ?? 0) + 1;
    hash = nextHash(hash, line);
  };

  try {
    const decoder = new TextDecoder("utf-8", { fatal: true });
    let total = 0;
    let rest = "";
    for await (const chunk of body as AsyncIterable<Uint8Array>) {
      total += chunk.byteLength;
      if (total > maxBytes) throw new ImportRefused(413, `Import body too large (max ${maxBytes} bytes)`);
      try {
        rest += decoder.decode(chunk, { stream: true });
      } catch {
        throw bad(n + 1 + (rest.match(/\n/g)?.length ?? 0), "not UTF-8");
      }
      let newline = rest.indexOf("\n");
      while (newline >= 0) {
        take(rest.slice(0, newline).replace(/\r$/, ""));
        rest = rest.slice(newline + 1);
        newline = rest.indexOf("\n");
      }
      if (rest.length > MAX_LINE_BYTES) throw bad(n + 1, `longer than ${MAX_LINE_BYTES} bytes`);
    }
    rest += decoder.decode();
    if (rest !== "") take(rest.replace(/\r$/, ""));
    if (!header) throw bad(1, "the file is empty");
    if (!end) throw bad(n + 1, "the file ends without its end line (was the export cut short?)");
    const last = n;
    if (end.stateHash !== stateHash) {
      throw bad(
        last,
        "stateHash does not match the state lines: a state line was edited, removed or reordered",
      );
    }
    if (end.headHash !== hash) throw bad(last, "headHash does not match the last event's hash");
    if (nextSeq - 1 !== header.head) {
      throw bad(last, `the log ends at seq ${nextSeq - 1}, but head is ${header.head}`);
    }
    for (const kind of new Set([...Object.keys(end.counts), ...Object.keys(counts)])) {
      if ((end.counts[kind] ?? 0) !== (counts[kind] ?? 0)) {
        throw bad(
          last,
          `counts.${kind} is ${end.counts[kind] ?? 0}, but the file holds ${counts[kind] ?? 0}`,
        );
      }
    }
    flush();
    close();
  } catch (error) {
    cleanup();
    throw error;
  }
  const verified = snapshot as RoomSnapshot;
  return {
    header: header as ExportHeader,
    end,
    namesPeople,
    snapshot: verified,
    events: () => spooled(spool),
    close: cleanup,
  };
}
