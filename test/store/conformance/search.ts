/**
 * Search: every driver ranks a scripted corpus exactly as SQLite FTS5's own bm25() ranks the same documents in a
 * table holding that room alone (an independent reference: FTS5's C code, not protocol/search.ts), and keeps its
 * index in step with every write, update and deletion.
 */
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import {
  contextFields,
  eventFields,
  kindOf,
  queryTerms,
  SEARCH_KINDS,
  type SearchFields,
  type SearchKind,
  taskFields,
} from "../../../src/protocol/search.ts";
import type { RoomScope, RoomStore } from "../../../src/store/types.ts";
import { newScope, newTask, type Suite } from "./harness.ts";

/** Words to draw documents from: some frequent, some rare, some with accents and capitals. */
const WORDS = [
  "login",
  "token",
  "session",
  "Café",
  "cafe",
  "résumé",
  "endpoint",
  "POST",
  "user",
  "users",
  "error",
  "timeout",
  "retry",
  "deploy",
  "staging",
  "port",
  "8080",
  "schema",
  "naïve",
  "über",
  "build",
  "failed",
  "cache",
  "Login",
];

/** A deterministic corpus: tasks, context notes and posted events of 3–40 words each. */
async function fillRoom(store: RoomStore, scope: RoomScope): Promise<Map<string, SearchFields>> {
  let seed = 7;
  const next = () => {
    seed = (seed * 48271) % 2147483647;
    return seed;
  };
  const text = (n: number) =>
    Array.from({ length: n }, () => WORDS[next() % WORDS.length]).join(next() % 3 === 0 ? ", " : " ");
  const docs = new Map<string, SearchFields>();
  for (let i = 0; i < 14; i++) {
    const task = await store.addTask(
      scope,
      newTask(text(3 + (next() % 5)), { description: text(next() % 40) }),
    );
    docs.set(task.id, taskFields(task));
    const entry = await store.writeContext(scope, {
      type: "note",
      summary: text(2 + (next() % 6)),
      consuming_agents: [],
      payload: { text: text(next() % 30), references: [text(2)], n: next() % 100 },
      author: "a",
    });
    docs.set(entry.id, contextFields(entry));
    const event = await store.postEvent(scope, {
      type: `note_${i % 3}`,
      from: "a",
      to: "all",
      payload: { message: text(next() % 20), nested: { deeper: [text(3)] } },
    });
    docs.set(event.id, eventFields(event));
  }
  return docs;
}

/** FTS5's own ranking of the documents (one table = one room, so its statistics are the room's). */
function reference(
  docs: Map<string, SearchFields>,
  query: string,
  kinds: readonly SearchKind[],
  limit: number,
) {
  const db = new Database(":memory:");
  try {
    db.exec(
      "CREATE VIRTUAL TABLE d USING fts5(id UNINDEXED, kind UNINDEXED, body, tokenize = 'unicode61 remove_diacritics 2')",
    );
    const insert = db.query("INSERT INTO d (id, kind, body) VALUES (?, ?, ?)");
    for (const [id, fields] of docs) {
      const kind = id.startsWith("task-") ? "task" : id.startsWith("ctx-") ? "context" : "event";
      insert.run(id, kind, fields.map(([, t]) => t).join("\n"));
    }
    const match = queryTerms(query)
      .map((t) => `"${t}"`)
      .join(" AND ");
    const placeholders = kinds.map(() => "?").join(",");
    return db
      .query<{ id: string; score: number }, (string | number)[]>(
        `SELECT id, -bm25(d) AS score FROM d WHERE d MATCH ? AND kind IN (${placeholders}) ORDER BY bm25(d), id LIMIT ?`,
      )
      .all(match, ...kinds, limit);
  } finally {
    db.close();
  }
}

export function searchTests(suite: Suite): void {
  test("ranks like FTS5's bm25() over the room alone, ties by id, for many queries", async () => {
    const scope = newScope();
    const docs = await fillRoom(suite.store, scope);
    // Another room with other words must not move this room's ranking.
    const noise = newScope();
    for (let i = 0; i < 5; i++) await suite.store.addTask(noise, newTask(`login login token ${i}`));
    const queries: [string, SearchKind[], number][] = [
      ["login", [...SEARCH_KINDS], 50],
      ["LOGIN token", [...SEARCH_KINDS], 50],
      ["cafe", [...SEARCH_KINDS], 10],
      ["resume", ["context"], 50],
      ["naive uber", [...SEARCH_KINDS], 50],
      ["8080 port", ["task", "event"], 5],
      ["error timeout retry", [...SEARCH_KINDS], 50],
      ["users", ["event"], 3],
      ["note_1", ["event"], 50],
      ["nothing-here", [...SEARCH_KINDS], 50],
    ];
    for (const [query, types, limit] of queries) {
      const expected = reference(docs, query, types, limit);
      const hits = await suite.store.search(scope, { terms: queryTerms(query), types, limit });
      expect({ query, ids: hits.map((h) => h.id) }).toEqual({ query, ids: expected.map((r) => r.id) });
      hits.forEach((hit, i) => {
        expect(hit.score).toBeCloseTo(expected[i]?.score as number, 9);
        expect(hit.type).toBe(kindOf(hit.id));
      });
    }
  });

  test("hits carry a title and a snippet with the matched words in bold", async () => {
    const scope = newScope();
    const task = await suite.store.addTask(
      scope,
      newTask("Add the login endpoint", {
        description: "POST /login returns a Session token after checking the password.",
      }),
    );
    const [hit] = await suite.store.search(scope, {
      terms: queryTerms("session"),
      types: SEARCH_KINDS,
      limit: 5,
    });
    expect(hit).toEqual({
      type: "task",
      id: task.id,
      score: expect.any(Number),
      title: "Add the login endpoint",
      field: "description",
      snippet: "POST /login returns a **Session** token after checking the password.",
    });
  });

  test("the index follows updates and deletions of tasks, context entries and events", async () => {
    const scope = newScope();
    const ids = async (q: string) =>
      (await suite.store.search(scope, { terms: queryTerms(q), types: SEARCH_KINDS, limit: 50 })).map(
        (h) => h.id,
      );
    const task = await suite.store.addTask(scope, newTask("alpha", { description: "shared" }));
    const entry = await suite.store.writeContext(scope, {
      type: "note",
      summary: "beta",
      consuming_agents: [],
      payload: { text: "shared words" },
      author: "a",
    });
    const event = await suite.store.postEvent(scope, {
      type: "gamma",
      from: "a",
      to: "all",
      payload: { t: "shared" },
    });
    // Events roomd appends itself (task_added, …) are not indexed: only the task is.
    expect((await ids("shared")).sort()).toEqual([entry.id, event.id, task.id].sort());
    await suite.store.updateTask(scope, { taskId: task.id, title: "delta" });
    expect(await ids("alpha")).toEqual([]);
    expect(await ids("delta shared")).toEqual([task.id]);
    await suite.store.updateTask(scope, { taskId: task.id, status: "blocked" });
    expect(await ids("delta")).toEqual([task.id]);
    await suite.store.updateContext(scope, { id: entry.id, author: "a", payload: { text: "epsilon" } });
    expect(await ids("words")).toEqual([]);
    expect(await ids("beta epsilon")).toEqual([entry.id]);
    await suite.store.deleteEvent(scope, { eventId: event.id, by: "a" });
    await suite.store.deleteContext(scope, { id: entry.id, agentId: "a" });
    await suite.store.deleteTask(scope, { taskId: task.id });
    expect(await ids("shared")).toEqual([]);
    expect(
      await suite.store.search(newScope(), { terms: ["shared"], types: SEARCH_KINDS, limit: 5 }),
    ).toEqual([]);
  });
}
