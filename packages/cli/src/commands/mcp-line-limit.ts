// The size limit of `tern mcp serve`'s stdin, in front of the MCP SDK's stdio transport. MCP over
// stdio is one JSON-RPC message a line; the SDK's ReadBuffer throws past its own limit (10 MiB)
// and its transport then closes, so a large request made the server exit silently with 0. This
// stream passes on lines up to `maxBytes` whole, one at a time, and skips a longer one as it
// arrives (never holding it), then reports it with the request's id (read from its first and
// last bytes), so the caller can answer it with an error while the next request is served.

import { Transform, type TransformCallback } from "node:stream";
import { type RequestId, RequestIdSniffer } from "@tern/server";

const NEWLINE = 0x0a;

export interface OverLimit {
  /** The line's length in bytes (its newline not counted). */
  size: number;
  limit: number;
  id: RequestId;
}

export class LineLimit extends Transform {
  private line: Buffer[] = [];
  private size = 0;
  private skipping: RequestIdSniffer | undefined;

  constructor(
    private readonly maxBytes: number,
    private readonly onOverLimit: (line: OverLimit) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf(NEWLINE, start);
      const piece = chunk.subarray(start, end < 0 ? chunk.length : end);
      this.append(piece);
      if (end < 0) break;
      this.finishLine();
      start = end + 1;
    }
    done();
  }

  /** Adds a piece of the current line: kept while it fits, else sniffed and dropped. */
  private append(piece: Buffer): void {
    this.size += piece.length;
    if (!this.skipping && this.size > this.maxBytes) {
      this.skipping = new RequestIdSniffer();
      for (const kept of this.line) this.skipping.push(kept);
      this.line = [];
    }
    if (this.skipping) this.skipping.push(piece);
    else if (piece.length > 0) this.line.push(Buffer.from(piece));
  }

  private finishLine(): void {
    if (this.skipping) this.onOverLimit({ size: this.size, limit: this.maxBytes, id: this.skipping.id() });
    else this.push(Buffer.concat([...this.line, Buffer.from("\n")]));
    this.line = [];
    this.size = 0;
    this.skipping = undefined;
  }
}
