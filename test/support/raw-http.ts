/**
 * HTTP/1.1 requests written byte for byte on a TCP socket: what fetch refuses to send (a Host header with spaces,
 * `@` or a bad port, raw non-ASCII bytes in a path) reaches the server exactly as given.
 */
import { connect } from "node:net";

export interface RawAnswer {
  status: number;
  /** Header names lower-cased. */
  headers: Map<string, string>;
}

/** The request bytes: request line, the given headers, `Connection: close`, then the body (with its length). */
export function rawRequest(
  method: string | Uint8Array,
  target: string | Uint8Array,
  headers: [string, string | Uint8Array][],
  body?: Uint8Array,
): Buffer {
  const bytes = (value: string | Uint8Array) =>
    typeof value === "string" ? Buffer.from(value, "latin1") : Buffer.from(value);
  const parts: Buffer[] = [bytes(method), bytes(" "), bytes(target), bytes(" HTTP/1.1\r\n")];
  for (const [name, value] of headers) parts.push(bytes(`${name}: `), bytes(value), bytes("\r\n"));
  if (body !== undefined) parts.push(bytes(`Content-Length: ${body.length}\r\n`));
  parts.push(bytes("Connection: close\r\n\r\n"));
  if (body !== undefined) parts.push(Buffer.from(body));
  return Buffer.concat(parts);
}

/**
 * Sends `request` to 127.0.0.1:`port` and resolves with the answer's status line and headers as soon as they have
 * arrived (a stream's body is not waited for); null when the connection closed without an answer.
 */
export function sendRaw(port: number, request: Buffer, timeoutMs = 10_000): Promise<RawAnswer | null> {
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    const socket = connect(port, "127.0.0.1", () => socket.write(request));
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const finish = (answer: RawAnswer | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf("\r\n\r\n");
      if (end >= 0) finish(parseHead(received.subarray(0, end).toString("latin1")));
    });
    socket.on("end", () => finish(null));
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

function parseHead(head: string): RawAnswer {
  const [statusLine = "", ...lines] = head.split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? Number.NaN);
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { status, headers };
}
