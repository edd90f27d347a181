/**
 * Just enough RESP2 for a sharded-subscriber connection: encode a command, and decode the replies and pushes a
 * subscribed connection receives (simple strings, errors, integers, bulk strings and arrays of those). Bun's
 * RedisClient cannot be used here: after SSUBSCRIBE its connection stops answering, and it has no way to
 * receive `smessage` pushes.
 */

/** An error reply (`-MOVED 1234 host:port`, …), kept apart from strings. */
export class ReplyError extends Error {
  override readonly name = "ReplyError";
}

export type Reply = string | number | null | ReplyError | Reply[];

const encoder = new TextEncoder();

/** A command as a RESP array of bulk strings. */
export function encodeCommand(args: string[]): Uint8Array {
  let text = `*${args.length}\r\n`;
  for (const arg of args) text += `$${encoder.encode(arg).length}\r\n${arg}\r\n`;
  return encoder.encode(text);
}

/** Incremental decoder: push() bytes as they arrive, get back every reply they complete. */
export class ReplyReader {
  private buffer = Buffer.alloc(0);
  private offset = 0;

  push(chunk: Uint8Array): Reply[] {
    this.buffer = Buffer.concat([this.buffer.subarray(this.offset), chunk]);
    this.offset = 0;
    const replies: Reply[] = [];
    for (;;) {
      const start = this.offset;
      const reply = this.read();
      if (reply === undefined) {
        this.offset = start;
        return replies;
      }
      replies.push(reply.value);
    }
  }

  private line(): string | undefined {
    const end = this.buffer.indexOf("\r\n", this.offset);
    if (end === -1) return undefined;
    const text = this.buffer.toString("utf8", this.offset, end);
    this.offset = end + 2;
    return text;
  }

  /** One whole reply from `offset`, or undefined (offset unspecified) when the bytes so far are not enough. */
  private read(): { value: Reply } | undefined {
    const line = this.line();
    if (line === undefined) return undefined;
    const body = line.slice(1);
    switch (line[0]) {
      case "+":
        return { value: body };
      case "-":
        return { value: new ReplyError(body) };
      case ":":
        return { value: Number(body) };
      case "$": {
        const length = Number(body);
        if (length < 0) return { value: null };
        if (this.buffer.length < this.offset + length + 2) return undefined;
        const value = this.buffer.toString("utf8", this.offset, this.offset + length);
        this.offset += length + 2;
        return { value };
      }
      case "*": {
        const count = Number(body);
        if (count < 0) return { value: null };
        const items: Reply[] = [];
        for (let i = 0; i < count; i++) {
          const item = this.read();
          if (item === undefined) return undefined;
          items.push(item.value);
        }
        return { value: items };
      }
      default:
        throw new Error(`unexpected RESP type byte: ${JSON.stringify(line[0])}`);
    }
  }
}
