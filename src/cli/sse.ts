/**
 * A Server-Sent Events reader for `roomctl watch`, after the WHATWG "server-sent events" parsing rules: lines end
 * in LF, CRLF or CR; `field: value` with one leading space stripped; a blank line dispatches the message; lines
 * starting with ":" are comments (roomd's keep-alives). Only what roomctl needs: event, data, id.
 */

export interface SseMessage {
  /** The `event:` field; "message" when absent. */
  event: string;
  data: string;
  /** The `id:` field of this message, if it had one (roomd: the event's seq). */
  id?: string;
}

/**
 * The messages of a stream, in order. `onBytes` is called on every chunk received (comments included), so the
 * caller can tell a live but quiet stream from a dead connection.
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  onBytes: () => void = () => {},
): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = "";
  let event = "";
  let data: string[] = [];
  let id: string | undefined;
  for await (const chunk of body) {
    onBytes();
    buffer += decoder.decode(chunk, { stream: true });
    for (;;) {
      const match = /\r\n|\r|\n/.exec(buffer);
      if (!match) break;
      // A lone CR at the end of what arrived may be the first half of a CRLF: wait for more.
      if (match[0] === "\r" && match.index === buffer.length - 1) break;
      const line = buffer.slice(0, match.index);
      buffer = buffer.slice(match.index + match[0].length);
      if (line === "") {
        if (data.length > 0)
          yield { event: event || "message", data: data.join("\n"), ...(id !== undefined ? { id } : {}) };
        event = "";
        data = [];
        id = undefined;
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "data") data.push(value);
      else if (field === "event") event = value;
      else if (field === "id") id = value;
    }
  }
}
