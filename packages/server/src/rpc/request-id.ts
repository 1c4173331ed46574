// The id of a JSON-RPC request too large to read, so its error reply can name it and the client's
// call fails at once instead of waiting for an answer that never comes. Only the message's first
// and last bytes are kept (never the whole): the id is taken when it is the first member (after
// short string members such as "jsonrpc", as vscode-jsonrpc and the Copilot SDK write it) or the
// last one (as the MCP SDK writes it). Both anchors are at the top-level object's braces, so an
// "id" inside params or inside a string is never taken; anything else is no id (null in the reply).

const EDGE_BYTES = 1024;
const ID = String.raw`(-?\d{1,20}|"[^"\\]{0,200}")`;
const SIMPLE_MEMBER = String.raw`"[A-Za-z]{1,20}"\s*:\s*"[^"\\]{0,200}"`;
const FIRST = new RegExp(String.raw`^\s*\{\s*(?:${SIMPLE_MEMBER}\s*,\s*)*"id"\s*:\s*${ID}\s*[,}]`);
const LAST = new RegExp(String.raw`[,{]\s*"id"\s*:\s*${ID}\s*(?:,\s*${SIMPLE_MEMBER}\s*)*\}\s*$`);

export type RequestId = string | number | null;

/** Takes a message's bytes as they pass, keeping its first and last EDGE_BYTES. */
export class RequestIdSniffer {
  private head = Buffer.alloc(0);
  private tail = Buffer.alloc(0);

  push(chunk: Buffer): void {
    if (this.head.length < EDGE_BYTES)
      this.head = Buffer.concat([this.head, chunk.subarray(0, EDGE_BYTES - this.head.length)]);
    // Copies (concat always does), so no chunk of the stream is held on to.
    this.tail =
      chunk.length >= EDGE_BYTES
        ? Buffer.concat([chunk.subarray(chunk.length - EDGE_BYTES)])
        : Buffer.concat([
            this.tail.subarray(Math.max(0, this.tail.length + chunk.length - EDGE_BYTES)),
            chunk,
          ]);
  }

  /** The request's id when its edges show one, else null. */
  id(): RequestId {
    const match = FIRST.exec(this.head.toString("utf8")) ?? LAST.exec(this.tail.toString("utf8"));
    return match ? (JSON.parse(match[1]!) as string | number) : null;
  }
}
