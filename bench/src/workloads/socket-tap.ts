// Stamps the bytes that reach this process from one loopback port, at the point where a socket
// read enters JavaScript (net.Socket's `push`, called by the stream machinery for every read),
// before any HTTP client or SSE parser has seen them. Every runtime's transport (undici, Node's
// fetch, the openai SDK on it) reads through there, so the stamps are the same for all of them.
// Only for the latency workload's worker: it wraps a prototype method while the tap is open.

import net from "node:net";
import type { Read } from "./timeline.js";

type Push = (this: net.Socket, chunk: unknown, encoding?: BufferEncoding) => boolean;

export interface SocketTap {
  /** What arrived from the port while the tap was open, in order. */
  reads: Read[];
  close(): void;
}

export function tapReads(port: number): SocketTap {
  const proto = net.Socket.prototype as unknown as { push: Push };
  const own = Object.hasOwn(proto, "push");
  const original = proto.push;
  const reads: Read[] = [];
  proto.push = function (chunk, encoding) {
    const ns = process.hrtime.bigint();
    if (chunk != null && this.remotePort === port)
      reads.push({ ns, text: Buffer.isBuffer(chunk) ? chunk.toString("latin1") : String(chunk) });
    return original.call(this, chunk, encoding);
  };
  return {
    reads,
    close() {
      if (own) proto.push = original;
      else delete (proto as { push?: Push }).push;
    },
  };
}
