/**
 * Which valid name a mistyped one meant: an unknown argument's error names the closest argument, a mistyped room's
 * error the caller's closest room ids (docs/protocol.md#4-results-and-errors). Pure string work, so tools, routes
 * and the room hint share it.
 */

/**
 * Damerau-Levenshtein distance (optimal string alignment: insertions, deletions, substitutions and swaps of two
 * neighbours each cost 1). Stops early and answers `limit + 1` once the distance must exceed `limit`, so a long
 * name costs at most its length times the limit's band.
 */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let previousBest = 0;
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(at(previous, j) + 1, at(current, j - 1) + 1, at(previous, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, at(before, j - 2) + 1);
      current[j] = d;
      best = Math.min(best, d);
    }
    // Every cell comes from the two rows above (or its left neighbour): past both, no path gets back under.
    if (best > limit && previousBest > limit) return limit + 1;
    before = previous;
    previous = current;
    previousBest = best;
  }
  return Math.min(at(previous, b.length), limit + 1);
}

const at = (row: readonly number[], j: number): number => row[j] as number;

/** A name as compared: case, `_` and `-` ignored, so status_text, StatusText and statusText are one name. */
export const foldName = (name: string): string => name.toLowerCase().replace(/[_-]/g, "");

/** The most edits a name of this length may be away and still read as a typo of it. */
const allowedEdits = (length: number): number => (length <= 3 ? 1 : length <= 7 ? 2 : 3);

/**
 * How far `given` is from `valid`, or undefined when it is not close: equal once folded (0); the folded name is
 * the other's start or end, at least 2 characters long (`status` for `statusText`, `id` for `taskId`: their length
 * difference); or within allowedEdits of the longer name's length.
 */
function closeness(given: string, valid: string): number | undefined {
  const g = foldName(given);
  const v = foldName(valid);
  if (g === v) return 0;
  const [short, long] = g.length <= v.length ? [g, v] : [v, g];
  if (short.length >= 2 && (long.startsWith(short) || long.endsWith(short)))
    return long.length - short.length;
  const limit = allowedEdits(long.length);
  const d = editDistance(g, v, limit);
  return d <= limit ? d : undefined;
}

/**
 * The valid names closest to `given`, closest first (ties in the order given), at most `max`; empty when none is
 * close. `given` itself is never suggested.
 */
export function closestNames(given: string, valid: Iterable<string>, max = 3): string[] {
  const found: { name: string; distance: number; order: number }[] = [];
  let order = 0;
  for (const name of valid) {
    const distance = name === given ? undefined : closeness(given, name);
    if (distance !== undefined) found.push({ name, distance, order });
    order++;
  }
  found.sort((x, y) => x.distance - y.distance || x.order - y.order);
  return found.slice(0, max).map((f) => f.name);
}

/**
 * Names tools use for one another's arguments, which no spelling rule links: the acting agent (`agentId`, and
 * `from` or `author` where the record names it so), a context entry's id (`id` in the context tools), how long
 * something lasts (`ttlSeconds` for locks and file claims, `leaseSeconds` for a task, `expiresInSeconds` for an
 * approval).
 */
const SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  agentid: ["from", "author", "agentId"],
  agent: ["agentId", "from", "author"],
  from: ["agentId", "author"],
  author: ["agentId", "from"],
  contextid: ["id"],
  consumers: ["consuming_agents"],
  ttl: ["ttlSeconds", "leaseSeconds", "expiresInSeconds"],
  ttlseconds: ["leaseSeconds", "expiresInSeconds"],
  leaseseconds: ["ttlSeconds", "expiresInSeconds"],
  expiresinseconds: ["ttlSeconds", "leaseSeconds"],
};

/**
 * What an unknown argument most likely meant: the same name spelt otherwise (agent_id for agentId), a known synonym
 * this tool takes, else the closest of the required arguments the call left out (`id` sent where `reviewId` is
 * missing), else the closest two names; empty when nothing is close.
 */
export function meantArgument(
  given: string,
  valid: readonly string[],
  missing: readonly string[] = [],
): string[] {
  const same = valid.find((name) => foldName(name) === foldName(given));
  if (same !== undefined) return [same];
  const synonym = (SYNONYMS[foldName(given)] ?? []).find((name) => valid.includes(name));
  if (synonym !== undefined) return [synonym];
  const left = closestNames(given, missing, 2);
  return left.length > 0 ? left : closestNames(given, valid, 2);
}

/** `"a"`, `"a" or "b"`, `"a", "b" or "c"`: names quoted as the caller would send them. */
export function orList(names: readonly string[]): string {
  const quoted = names.map((n) => JSON.stringify(n));
  return quoted.length <= 1 ? (quoted[0] ?? "") : `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}`;
}
