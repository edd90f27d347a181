/**
 * A Server-Sent Events reader for tests, written from the WHATWG "server-sent events" parsing rules: lines end in
 * LF, CRLF or CR; `field: value` with one optional space stripped; a blank line dispatches; comments start with ":".
 * It keeps every message and comment it saw, so a test can ask for "the next event" or check what came.
 */

export interface SseMessage {
  /** The `event:` field, "message" when absent. */
  event: string;
  data: string;
  /** The `id:` field of this message, if it had one. */
  id?: string;
}

export interface SseReader {
  status: number;
  headers: Headers;
  /** Every message dispatched so far, in order. */
  readonly messages: SseMessage[];
  /** Comment lines (without the leading ":") seen so far. */
  readonly comments: string[];
  /** The `retry:` value, once seen. */
  readonly retry: number | undefined;
  /** Resolves with the nth message (0-based) or rejects after `ms`. */
  message(n: number, ms?: number): Promise<SseMessage>;
  /** Resolves once `predicate` holds over what was seen, or rejects after `ms`. */
  until(predicate: (reader: SseReader) => boolean, ms?: number): Promise<void>;
  /** True once the server ended the stream. */
  readonly ended: boolean;
  /** Closes the connection (as a browser does when the page goes). */
  close(): void;
}

export interface OpenSse {
  url: string;
  secret?: string;
  headers?: Record<string, string>;
}

/** Opens a stream; a non-2xx answer is returned with its body in `error` and nothing to read. */
export async function openSse(options: OpenSse): Promise<SseReader & { error?: any }> {
  const abort = new AbortController();
  const res = await fetch(options.url, {
    headers: {
      Accept: "text/event-stream",
      ...(options.secret ? { Authorization: `Bearer ${options.secret}` } : {}),
      ...options.headers,
    },
    signal: abort.signal,
  });
  const messages: SseMessage[] = [];
  const comments: string[] = [];
  let retry: number | undefined;
  let ended = false;
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of [...waiters]) w();
  };
  const reader: SseReader & { error?: any } = {
    status: res.status,
    headers: res.headers,
    messages,
    comments,
    get retry() {
      return retry;
    },
    get ended() {
      return ended;
    },
    message(n, ms = 5000) {
      return reader.until(() => messages.length > n, ms).then(() => messages[n] as SseMessage);
    },
    until(predicate, ms = 5000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (predicate(reader)) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve();
          } else if (ended) {
            clearTimeout(timer);
            waiters.delete(check);
            reject(new Error(`stream ended after ${messages.length} messages`));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out after ${ms} ms with ${messages.length} messages`));
        }, ms);
        waiters.add(check);
        check();
      });
    },
    close() {
      abort.abort();
    },
  };
  if (!res.ok || !res.body) {
    const text = await res.text();
    try {
      reader.error = JSON.parse(text);
    } catch {
      reader.error = text;
    }
    ended = true;
    return reader;
  }

  void (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    let event = "";
    let data: string[] = [];
    let id: string | undefined;
    const line = (text: string) => {
      if (text === "") {
        if (data.length > 0) {
          messages.push({
            event: event || "message",
            data: data.join("\n"),
            ...(id !== undefined ? { id } : {}),
          });
        }
        event = "";
        data = [];
        id = undefined;
        return;
      }
      if (text.startsWith(":")) {
        comments.push(text.slice(1).trimStart());
        return;
      }
      const colon = text.indexOf(":");
      const field = colon === -1 ? text : text.slice(0, colon);
      let value = colon === -1 ? "" : text.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "data") data.push(value);
      else if (field === "event") event = value;
      else if (field === "id") id = value;
      else if (field === "retry" && /^\d+$/.test(value)) retry = Number(value);
    };
    try {
      for await (const chunk of res.body as ReadableStream<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (;;) {
          const match = /\r\n|\r|\n/.exec(buffer);
          if (!match) break;
          // A lone CR at the end of the buffer may be the first half of a CRLF: wait for more.
          if (match[0] === "\r" && match.index === buffer.length - 1) break;
          line(buffer.slice(0, match.index));
          buffer = buffer.slice(match.index + match[0].length);
        }
        notify();
      }
    } catch {
      // Closed by us (abort) or the connection dropped.
    } finally {
      ended = true;
      notify();
    }
  })();
  return reader;
}

/** The log events among a stream's messages (those with an id), parsed. */
export function eventsOf(
  reader: SseReader,
): Array<{ seq: number; type: string; to: string; id: string } & Record<string, unknown>> {
  return reader.messages.filter((m) => m.id !== undefined).map((m) => JSON.parse(m.data));
}
